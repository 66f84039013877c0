"""The slow query log and the general query log over a real server: MySQL 8.4's file formats
line by line, Slow_queries, FLUSH LOGS after logrotate's rename, switching files at run time,
and Percona Toolkit's pt-query-digest reading the slow log."""
import json
import os
import re
import shutil
import subprocess
import time

import mysql.connector
import pymysql
from pymysql.constants import CLIENT
import pytest

from conftest import Server, global_status

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"
GENERAL_LINE = re.compile(r"^(" + TIME + r")\t {0,4}(\d+) ([A-Za-z][A-Za-z ]*)\t(.*)$")


@pytest.fixture(scope="module")
def srv():
    # the slow log from the command line (a relative name: inside the data directory), every
    # statement slow; the general log on with its default name
    s = Server(extra=["--slow-query-log", "--long-query-time", "0",
                      "--slow-query-log-file", "slow.log", "--general-log"]).start()
    yield s
    s.stop()


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def slow_path(srv):
    return os.path.join(srv.datadir, "slow.log")


def general_path(srv):
    c = srv.connect()
    path = q(c, "SELECT @@global.general_log_file")[0][0]
    c.close()
    return path


SERVER_HEADER = re.compile(r"^(/\S+.* mysqld, Version: .* started with:|Tcp port: \d+  Unix socket: .*"
                           r"|Time                 Id Command    Argument)$")


def entries(text):
    """The slow log's entries, each {"lines": the lines from `# Time:` to `SET timestamp=…;`,
    "stmt": the statement after them}; the server's header lines (written at every open) are
    dropped."""
    out = []
    cur = None
    for line in text.splitlines():
        if SERVER_HEADER.match(line):
            continue
        if line.startswith("# Time: "):
            cur = {"lines": [line], "stmt": []}
            out.append(cur)
        elif cur is not None:
            if cur["stmt"] or not (line.startswith("#") or line.startswith("use ") or line.startswith("SET timestamp=")
                                   or line.startswith("SET insert_id=")):
                cur["stmt"].append(line)
            else:
                cur["lines"].append(line)
    for e in out:
        e["stmt"] = "\n".join(e["stmt"])
    return out


def wait_for(pred, what, timeout=5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_variables(srv):
    c = srv.connect()
    names = dict(q(c, "SHOW VARIABLES LIKE 'slow%'"))
    assert names["slow_query_log"] == "ON"
    assert names["slow_query_log_file"] == "slow.log"
    assert names["slow_launch_time"] == "2"
    assert str(q(c, "SELECT @@long_query_time")[0][0]) == "0.000000"
    assert str(q(c, "SELECT @@global.long_query_time")[0][0]) == "0.000000"
    assert dict(q(c, "SHOW VARIABLES LIKE 'long_query_time'"))["long_query_time"] == "0.000000"
    hostname = q(c, "SELECT @@hostname")[0][0]
    datadir = q(c, "SELECT @@datadir")[0][0]
    assert q(c, "SELECT @@general_log, @@log_output, @@log_queries_not_using_indexes, "
                "@@log_slow_admin_statements, @@min_examined_row_limit")[0] == (1, "FILE", 0, 0, 0)
    assert general_path(srv) == os.path.join(datadir, hostname + ".log")
    assert os.path.exists(os.path.join(datadir, hostname + ".log"))
    # a session value of its own
    q(c, "SET long_query_time = 2.5")
    assert str(q(c, "SELECT @@long_query_time")[0][0]) == "2.500000"
    assert str(q(c, "SELECT @@global.long_query_time")[0][0]) == "0.000000"
    q(c, "SET long_query_time = DEFAULT")
    # TABLE output is not built: refused, not ignored; the value stays
    for bad in ("TABLE", "FILE,TABLE"):
        with pytest.raises(pymysql.err.MySQLError) as e:
            q(c, f"SET GLOBAL log_output = '{bad}'")
        assert e.value.args[0] == 1235 and "log_output=TABLE" in e.value.args[1]
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, "SET GLOBAL log_output = 'DISK'")
    assert e.value.args[0] == 1231
    assert q(c, "SELECT @@log_output")[0][0] == "FILE"
    # global only
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, "SET slow_query_log = OFF")
    assert e.value.args[0] == 1229
    # a file that cannot be opened changes nothing
    with pytest.raises(pymysql.err.MySQLError) as e:
        q(c, "SET GLOBAL slow_query_log_file = '/nonexistent/dir/slow.log'")
    assert e.value.args[0] == 1231
    assert q(c, "SELECT @@slow_query_log_file")[0][0] == "slow.log"
    c.close()


def workload(srv):
    """Two databases, text statements through PyMySQL, server-side prepared statements through
    mysql-connector, a slow SELECT SLEEP(0.2). Returns the PyMySQL connection's id."""
    c = srv.connect()
    conn_id = q(c, "SELECT CONNECTION_ID()")[0][0]
    q(c, "CREATE DATABASE ql_a")
    q(c, "CREATE DATABASE ql_b")
    c.select_db("ql_a")
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), k INT, KEY (k))")
    q(c, "INSERT INTO t VALUES " + ", ".join(f"({i}, 'v{i}', {i % 4})" for i in range(1, 11)))
    for i in range(1, 6):
        assert q(c, f"SELECT v FROM t WHERE id = {i}") == ((f"v{i}",),)
    assert q(c, "SELECT COUNT(*) FROM t WHERE v LIKE 'v1%'")[0][0] == 2
    c.select_db("ql_b")
    q(c, "CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(10))")
    for s in ("a", "b", "c"):
        q(c, "INSERT INTO u (s) VALUES (%s)", (s,))
    assert q(c, "SELECT SLEEP(0.2)") == ((0,),)
    # a multi-statement text: one entry per statement
    mc = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="ql_b",
                         client_flag=CLIENT.MULTI_STATEMENTS)
    cur = mc.cursor()
    cur.execute("SELECT 101; SELECT 'x;y'")
    while cur.nextset():
        pass
    mc.close()
    pc = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="",
                                 database="ql_a", use_pure=True, autocommit=True, ssl_disabled=True)
    pcur = pc.cursor(prepared=True)
    for k in range(4):
        pcur.execute("SELECT v FROM t WHERE k = ?", (k,))
        pcur.fetchall()
    pcur.execute("SELECT ? AS s", ("it's",))
    pcur.fetchall()
    pc.close()
    c.close()
    return conn_id


def test_logs_of_a_workload(srv):
    conn_id = workload(srv)
    slow = open(slow_path(srv)).read()
    # the header MySQL writes when it opens the file
    head = slow.splitlines()[:3]
    assert re.match(r"^/\S+ mysqld, Version: 8\.\d+\.\d+\S* \(.*\)\. started with:$", head[0]), head[0]
    assert re.match(rf"^Tcp port: {srv.port}  Unix socket: {re.escape(srv.socket)}$", head[1]), head[1]
    assert head[2] == "Time                 Id Command    Argument"
    es = entries(slow)
    by_stmt = {}
    for e in es:
        by_stmt.setdefault(e["stmt"], []).append(e)
    # every entry line by line
    for e in es:
        lines = e["lines"]
        assert re.match(rf"^# Time: {TIME}$", lines[0]), lines
        # the id right-aligned in 5 columns after "Id: " (MySQL's "%5u")
        assert re.match(r"^# User@Host: root\[root\] @ localhost \[127\.0\.0\.1\]  Id: [ \d]{4}\d+$", lines[1]), lines
        assert re.match(r"^# Query_time: \d+\.\d{6}  Lock_time: \d+\.\d{6} Rows_sent: \d+  Rows_examined: \d+$",
                        lines[2]), lines
        assert re.match(r"^SET (insert_id=\d+,)?timestamp=\d+;$", lines[-1]), lines
        assert all(re.match(r"^use \w+;$", ln) for ln in lines[3:-1]), lines
        assert e["stmt"].endswith(";"), e
        ts = int(re.search(r"timestamp=(\d+)", lines[-1]).group(1))
        assert abs(ts - time.time()) < 120

    def one(stmt):
        assert stmt in by_stmt, (stmt, list(by_stmt))
        return by_stmt[stmt][-1]["lines"]

    sleep = one("SELECT SLEEP(0.2);")
    assert sleep[1].endswith(f"Id: {conn_id:>5}")
    qt = float(re.search(r"Query_time: (\S+)", sleep[2]).group(1))
    assert 0.2 <= qt < 5, sleep
    assert "Rows_sent: 1  Rows_examined: 0" in sleep[2]
    point = one("SELECT v FROM t WHERE id = 3;")
    assert "Rows_sent: 1  Rows_examined: 1" in point[2], point
    scan = one("SELECT COUNT(*) FROM t WHERE v LIKE 'v1%';")
    assert int(re.search(r"Rows_examined: (\d+)", scan[2]).group(1)) >= 10, scan
    # `use db;` when the database changed since the previous entry
    assert one("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), k INT, KEY (k));")[3] == "use ql_a;"
    assert one("CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, s VARCHAR(10));")[3] == "use ql_b;"
    assert one("CREATE DATABASE ql_a;")[-1].startswith("SET timestamp=")
    # an INSERT that generated an AUTO_INCREMENT value
    assert one("INSERT INTO u (s) VALUES ('b');")[-1].startswith("SET insert_id=2,timestamp=")
    # each statement of a multi-statement text on its own
    one("SELECT 101;")
    one("SELECT 'x;y';")
    # prepared statements: logged with their parameters
    for k in range(4):
        one(f"SELECT v FROM t WHERE k = {k};")
    one("SELECT 'it\\'s' AS s;")

    # the general log
    lines = open(general_path(srv)).read().splitlines()
    assert re.match(r"^/\S+ mysqld, Version: .*\. started with:$", lines[0])
    assert lines[2] == "Time                 Id Command    Argument"
    parsed = [GENERAL_LINE.match(ln) for ln in lines[3:]]
    assert all(parsed), [ln for ln, m in zip(lines[3:], parsed) if not m][:5]
    mine = [(m.group(3), m.group(4)) for m in parsed if int(m.group(2)) == conn_id]
    assert mine[0] == ("Connect", "root@localhost on  using TCP/IP"), mine[:3]
    assert ("Query", "SELECT CONNECTION_ID()") in mine
    assert ("Init DB", "ql_a") in mine
    assert ("Query", "SELECT v FROM t WHERE id = 3") in mine
    assert ("Query", "INSERT INTO u (s) VALUES ('a')") in mine
    wait_for(lambda: any(ln.endswith(f"{conn_id:>5} Quit\t") for ln in open(general_path(srv)).read().splitlines()),
             "the Quit line")
    every = [(m.group(3), m.group(4)) for m in parsed]
    assert ("Prepare", "SELECT v FROM t WHERE k = ?") in every
    assert ("Execute", "SELECT v FROM t WHERE k = 2") in every
    assert ("Connect", "root@localhost on ql_a using TCP/IP") in every
    assert ("Query", "SELECT 101") in every and ("Query", "SELECT 'x;y'") in every


def test_slow_queries_counted_also_with_the_log_off(srv):
    c = srv.connect()
    before = global_status(c.cursor(), "Slow_queries")
    for i in range(3):
        q(c, f"SELECT {i}")
    # the SHOW itself is a slow statement too (long_query_time = 0)
    assert global_status(c.cursor(), "Slow_queries") - before == 4
    size = os.path.getsize(slow_path(srv))
    q(c, "SET GLOBAL slow_query_log = OFF")
    before = global_status(c.cursor(), "Slow_queries")
    q(c, "SELECT 1")
    assert global_status(c.cursor(), "Slow_queries") - before == 2
    q(c, "SET GLOBAL slow_query_log = ON")
    # nothing was written while off; the SET that turned it on is (it is on when it ends)
    text = open(slow_path(srv)).read()[size:]
    assert "SELECT 1;" not in text and "slow_query_log = OFF" not in text
    assert "SET GLOBAL slow_query_log = ON;" in text
    # a statement faster than long_query_time is neither counted nor written
    q(c, "SET long_query_time = 10")
    before = global_status(c.cursor(), "Slow_queries")
    q(c, "SELECT 'fast one'")
    assert global_status(c.cursor(), "Slow_queries") == before
    assert "SELECT 'fast one'" not in open(slow_path(srv)).read()
    # min_examined_row_limit: a slow statement that read fewer rows is not slow
    q(c, "SET long_query_time = 0, min_examined_row_limit = 1000")
    q(c, "SELECT 'few rows'")
    assert "SELECT 'few rows'" not in open(slow_path(srv)).read()
    q(c, "SET min_examined_row_limit = 0")
    c.close()


def test_not_using_indexes(srv):
    c = srv.connect()
    q(c, "CREATE DATABASE IF NOT EXISTS ql_i")
    c.select_db("ql_i")
    q(c, "CREATE TABLE n (id INT PRIMARY KEY, x INT)")
    q(c, "INSERT INTO n VALUES (1, 1), (2, 2)")
    q(c, "SET long_query_time = 10")
    q(c, "SET GLOBAL log_queries_not_using_indexes = ON")
    try:
        q(c, "SELECT x FROM n WHERE x = 2")          # a table scan
        q(c, "SELECT x FROM n WHERE id = 2")         # a primary-key lookup
    finally:
        q(c, "SET GLOBAL log_queries_not_using_indexes = OFF")
    text = open(slow_path(srv)).read()
    assert "SELECT x FROM n WHERE x = 2;" in text
    assert "SELECT x FROM n WHERE id = 2;" not in text
    c.close()


def test_flush_logs_after_rename_and_switching_files(srv):
    c = srv.connect()
    path = slow_path(srv)
    rotated = path + ".1"
    os.rename(path, rotated)
    q(c, "SELECT 'before flush'")
    q(c, "FLUSH LOGS")
    q(c, "SELECT 'after flush'")
    assert "SELECT 'before flush';" in open(rotated).read()
    fresh = open(path).read()
    assert re.match(r"^/\S+ mysqld, Version: ", fresh)
    assert "SELECT 'after flush';" in fresh and "before flush" not in fresh
    # the general log follows FLUSH LOGS too; FLUSH SLOW LOGS / FLUSH GENERAL LOGS one each
    gpath = general_path(srv)
    os.rename(gpath, gpath + ".1")
    q(c, "FLUSH GENERAL LOGS")
    assert os.path.exists(gpath)
    q(c, "FLUSH SLOW LOGS")
    # another file at run time, relative to the data directory
    q(c, "SET GLOBAL slow_query_log_file = 'switched-slow.log'")
    q(c, "SELECT 'in the new file'")
    switched = os.path.join(srv.datadir, "switched-slow.log")
    assert "SELECT 'in the new file';" in open(switched).read()
    assert "in the new file" not in open(path).read()
    q(c, "SET GLOBAL slow_query_log_file = 'slow.log'")
    c.close()


def test_pt_query_digest_reads_the_slow_log(srv):
    exe = shutil.which("pt-query-digest")
    if exe is None:
        if os.environ.get("STRATA_REQUIRE_CLIENTS") == "1":
            pytest.fail("pt-query-digest (Debian package percona-toolkit) is not installed")
        pytest.skip("pt-query-digest (percona-toolkit) is not installed")
    # a log of the workload alone
    c = srv.connect()
    q(c, "SET GLOBAL slow_query_log_file = 'digest.log'")
    c.close()
    for d in ("ql_a", "ql_b"):
        c = srv.connect()
        q(c, f"DROP DATABASE IF EXISTS {d}")
        c.close()
    workload(srv)
    log = os.path.join(srv.datadir, "digest.log")
    p = subprocess.run([exe, "--output", "json", "--limit", "100%", "--no-version-check", log],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    classes = {cl["fingerprint"]: cl for cl in report["classes"]}
    counts = {fp: cl["query_count"] for fp, cl in classes.items()}
    assert counts.get("select v from t where id = ?") == 5, counts
    assert counts.get("select v from t where k = ?") == 4, counts
    assert counts.get("insert into u (s) values(?+)") == 3, counts
    assert counts.get("select sleep(?)") == 1, counts
    # the top statement by total time is the sleep
    top = max(report["classes"], key=lambda cl: float(cl["metrics"]["Query_time"]["sum"]))
    assert top["fingerprint"] == "select sleep(?)"
    assert float(top["metrics"]["Query_time"]["max"]) >= 0.2
    # the attributes pt-query-digest takes from the header lines
    ins = classes["insert into u (s) values(?+)"]
    assert ins["metrics"]["db"]["value"] == "ql_b"
    assert ins["metrics"]["host"]["value"] == "localhost"
    assert ins["metrics"]["user"]["value"] == "root"
    point = classes["select v from t where id = ?"]
    assert float(point["metrics"]["Rows_sent"]["sum"]) == 5
    assert float(point["metrics"]["Rows_examined"]["sum"]) == 5
    # every event parsed: as many as the entries in the file
    assert report["global"]["query_count"] == len(entries(open(log).read()))
    c = srv.connect()
    q(c, "SET GLOBAL slow_query_log_file = 'slow.log'")
    c.close()
