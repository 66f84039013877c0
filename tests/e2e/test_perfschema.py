"""performance_schema's statement instrumentation and SHOW ENGINE … STATUS over a real server:
statement digests (MySQL 8.4's normalised text, counts, latencies), the per-thread history and
current statement tables, `threads`, `performance_schema=OFF`, SHOW ENGINE INNODB STATUS with
the last deadlock the lock manager detected, SHOW ENGINE ROCKSDB STATUS, and the operator tools
that read them: Debian's prometheus-mysqld-exporter (statement digests, processlist) and
Percona Toolkit's pt-deadlock-logger."""
import os
import re
import shutil
import subprocess
import threading
import time
import urllib.request

import pymysql
import pytest

from conftest import Server, free_port


@pytest.fixture(scope="module")
def srv():
    s = Server().start()
    c = s.connect()
    c.cursor().execute("CREATE DATABASE ps")
    c.cursor().execute("CREATE TABLE ps.t (id INT PRIMARY KEY, v INT)")
    c.cursor().execute("INSERT INTO ps.t VALUES (1, 0), (2, 0), (3, 0)")
    c.close()
    yield s
    s.stop()


def query(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def digest_row(c, text):
    rows = query(c, "SELECT SCHEMA_NAME, DIGEST, COUNT_STAR, SUM_ROWS_SENT, SUM_ROWS_EXAMINED, "
                    "SUM_TIMER_WAIT, MIN_TIMER_WAIT, MAX_TIMER_WAIT, QUANTILE_95, FIRST_SEEN, "
                    "LAST_SEEN, QUERY_SAMPLE_TEXT, SUM_ERRORS "
                    "FROM performance_schema.events_statements_summary_by_digest "
                    "WHERE DIGEST_TEXT = %s", (text,))
    assert len(rows) == 1, (text, rows, query(c, "SELECT DIGEST_TEXT FROM "
                                                 "performance_schema.events_statements_summary_by_digest"))
    return rows[0]


def test_digests_have_normalised_text_and_counts(srv):
    c = srv.connect(db="ps")
    for i in (1, 2, 3):
        query(c, f"SELECT v FROM t WHERE id = {i}")
    query(c, "select v from t where id in (1, 2, 3)")
    query(c, "SELECT v FROM t WHERE id IN (3)")
    with pytest.raises(pymysql.err.MySQLError):
        query(c, "SELECT nothing FROM t")
    schema, digest, count, sent, examined, total, lo, hi, q95, first, last, sample, errors = \
        digest_row(c, "SELECT `v` FROM `t` WHERE `id` = ?")
    assert schema == "ps"
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert (count, sent) == (3, 3)
    assert examined >= 3
    assert 0 < lo <= hi <= total and q95 > 0
    assert first <= last
    assert sample.startswith("SELECT v FROM t WHERE id = ")
    # IN lists of any length are one digest
    assert digest_row(c, "SELECT `v` FROM `t` WHERE `id` IN (...)")[2] == 2
    assert digest_row(c, "SELECT `nothing` FROM `t`")[12] == 1
    # the variables performance_schema is sized by
    v = dict(query(c, "SHOW VARIABLES LIKE '%digest%'"))
    assert v["performance_schema_digests_size"] == "10000"
    assert v["max_digest_length"] == "1024"
    assert v["performance_schema_max_digest_length"] == "1024"
    assert query(c, "SELECT @@performance_schema")[0][0] == 1
    c.close()


def test_history_current_and_threads(srv):
    c = srv.connect(db="ps")
    me = query(c, "SELECT CONNECTION_ID()")[0][0]
    query(c, "UPDATE t SET v = v + 1 WHERE id = 3")
    query(c, "SELECT * FROM t")
    hist = query(c, "SELECT EVENT_ID, EVENT_NAME, SQL_TEXT, DIGEST_TEXT, ROWS_AFFECTED, ROWS_SENT, "
                    "CURRENT_SCHEMA, TIMER_WAIT > 0 "
                    "FROM performance_schema.events_statements_history "
                    "WHERE THREAD_ID = %s ORDER BY EVENT_ID", (me,))
    assert 2 <= len(hist) <= 10, hist
    last, before = hist[-1], hist[-2]
    assert last[1:] == ("statement/sql/select", "SELECT * FROM t", "SELECT * FROM `t`", 0, 3, "ps", 1)
    assert before[1:5] == ("statement/sql/update", "UPDATE t SET v = v + 1 WHERE id = 3",
                           "UPDATE `t` SET `v` = `v` + ? WHERE `id` = ?", 1)
    # ten per thread at most
    for i in range(12):
        query(c, f"SELECT {i}")
    n = query(c, "SELECT COUNT(*) FROM performance_schema.events_statements_history "
                 "WHERE THREAD_ID = %s", (me,))[0][0]
    assert n == 10
    # another connection's current statement is the last one it ran
    other = srv.connect(db="ps")
    oid = query(other, "SELECT CONNECTION_ID()")[0][0]
    query(other, "SELECT 42")
    cur = query(c, "SELECT SQL_TEXT, DIGEST_TEXT, END_EVENT_ID IS NOT NULL "
                   "FROM performance_schema.events_statements_current WHERE THREAD_ID = %s", (oid,))
    assert cur == (("SELECT 42", "SELECT ?", 1),)
    threads = query(c, "SELECT THREAD_ID, PROCESSLIST_ID, NAME, TYPE, PROCESSLIST_USER, "
                       "PROCESSLIST_DB, PROCESSLIST_COMMAND, INSTRUMENTED "
                       "FROM performance_schema.threads ORDER BY THREAD_ID")
    assert (me, me, "thread/sql/one_connection", "FOREGROUND", "root", "ps", "Query", "YES") in threads
    assert (oid, oid, "thread/sql/one_connection", "FOREGROUND", "root", "ps", "Sleep", "YES") in threads
    other.close()
    c.close()


def test_truncate_resets_summary_and_history(srv):
    c = srv.connect(db="ps")
    query(c, "SELECT 1 FROM t")
    query(c, "TRUNCATE TABLE performance_schema.events_statements_summary_by_digest")
    n = query(c, "SELECT COUNT(*) FROM performance_schema.events_statements_summary_by_digest "
                 "WHERE DIGEST_TEXT = 'SELECT ? FROM `t`'")[0][0]
    assert n == 0
    query(c, "TRUNCATE TABLE performance_schema.events_statements_history")
    rows = query(c, "SELECT SQL_TEXT FROM performance_schema.events_statements_history")
    assert all("TRUNCATE" in r[0] for r in rows), rows
    c.close()


def provoke_deadlock(srv):
    """Two transactions that lock rows 1 and 2 in opposite orders: one is rolled back."""
    a = srv.connect(db="ps", autocommit=False)
    b = srv.connect(db="ps", autocommit=False)
    query(a, "UPDATE t SET v = 10 WHERE id = 1")
    query(b, "UPDATE t SET v = 20 WHERE id = 2")
    errors = []

    def blocked():
        try:
            query(b, "UPDATE t SET v = 21 WHERE id = 1")
        except pymysql.err.MySQLError as e:
            errors.append(e.args[0])
    th = threading.Thread(target=blocked)
    th.start()
    watcher = srv.connect()
    deadline = time.time() + 10
    while time.time() < deadline:
        states = [r[0] for r in query(watcher, "SELECT STATE FROM information_schema.processlist")]
        if "Waiting for row lock" in states:
            break
        time.sleep(0.05)
    try:
        query(a, "UPDATE t SET v = 11 WHERE id = 2")
    except pymysql.err.MySQLError as e:
        errors.append(e.args[0])
    th.join(timeout=30)
    for conn in (a, b):
        conn.rollback()
        conn.close()
    watcher.close()
    assert errors == [1213], errors


def test_innodb_status_shows_the_last_deadlock(srv):
    provoke_deadlock(srv)
    c = srv.connect()
    rows = query(c, "SHOW ENGINE INNODB STATUS")
    assert len(rows) == 1 and rows[0][0] == "InnoDB", rows
    text = rows[0][2]
    for section in ("BACKGROUND THREAD", "SEMAPHORES", "LATEST DETECTED DEADLOCK", "TRANSACTIONS",
                    "FILE I/O", "BUFFER POOL AND MEMORY", "ROW OPERATIONS"):
        assert f"\n{section}\n" in text, section
    assert "END OF INNODB MONITOR OUTPUT" in text
    deadlock = text.split("LATEST DETECTED DEADLOCK", 1)[1].split("\nTRANSACTIONS\n", 1)[0]
    assert "UPDATE t SET v = 21 WHERE id = 1" in deadlock, deadlock
    assert "UPDATE t SET v = 11 WHERE id = 2" in deadlock, deadlock
    assert "*** (1) TRANSACTION:" in deadlock and "*** (2) TRANSACTION:" in deadlock
    assert "*** (1) WAITING FOR THIS LOCK TO BE GRANTED:" in deadlock
    assert "index PRIMARY of table `ps`.`t`" in deadlock
    assert re.search(r"^\*\*\* WE ROLL BACK TRANSACTION \(2\)$", deadlock, re.M), deadlock
    # the buffer pool section is the block cache's
    assert re.search(r"^Buffer pool size\s+\d+$", text, re.M)
    c.close()


def test_rocksdb_status(srv):
    c = srv.connect()
    rows = query(c, "SHOW ENGINE ROCKSDB STATUS")
    kinds = {r[0] for r in rows}
    assert {"STATISTICS", "DBSTATS", "CF_COMPACTION", "MEMORY_STATS"} <= kinds, kinds
    cf = [r for r in rows if r[0] == "CF_COMPACTION"]
    assert any("Compaction Stats" in r[2] for r in cf), cf
    assert query(c, "SHOW ENGINE INNODB MUTEX") == ()
    with pytest.raises(pymysql.err.MySQLError) as e:
        query(c, "SHOW ENGINE NOSUCH STATUS")
    assert e.value.args[0] == 1286
    c.close()


def test_pt_deadlock_logger_records_the_deadlock(srv):
    tool = shutil.which("pt-deadlock-logger")
    if not tool:
        pytest.skip("percona-toolkit is not installed (./x installs it)")
    provoke_deadlock(srv)
    p = subprocess.run(
        [tool, "--no-version-check", "--iterations", "1",
         f"h=127.0.0.1,P={srv.port},u=root"],
        capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    lines = p.stdout.strip().splitlines()
    assert lines and lines[0].split() == ["server", "ts", "thread", "txn_id", "txn_time", "user",
                                          "hostname", "ip", "db", "tbl", "idx", "lock_type",
                                          "lock_mode", "wait_hold", "victim", "query"], p.stdout
    body = "\n".join(lines[1:])
    assert "UPDATE t SET v = 21 WHERE id = 1" in body, p.stdout
    assert "UPDATE t SET v = 11 WHERE id = 2" in body, p.stdout
    victims = [line.split()[14] for line in lines[1:]]
    assert sorted(victims) == ["0", "1"], p.stdout
    for line in lines[1:]:
        f = line.split()
        assert (f[8], f[9], f[10], f[11], f[12]) == ("ps", "t", "PRIMARY", "RECORD", "X"), line


def wait_http(url, deadline):
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"no answer from {url}")


def test_prometheus_exporter_reads_statement_digests(srv):
    tool = shutil.which("prometheus-mysqld-exporter")
    if not tool:
        pytest.skip("prometheus-mysqld-exporter is not installed (./x installs it)")
    c = srv.connect(db="ps")
    for i in range(5):
        query(c, f"SELECT v FROM t WHERE id = {i}")
    port = free_port()
    env = dict(os.environ, DATA_SOURCE_NAME=f"root:@(127.0.0.1:{srv.port})/")
    proc = subprocess.Popen([tool, f"--web.listen-address=127.0.0.1:{port}",
                             "--collect.perf_schema.eventsstatements",
                             "--collect.info_schema.processlist"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        text = wait_http(f"http://127.0.0.1:{port}/metrics", time.time() + 30)
    finally:
        proc.terminate()
        errors = proc.communicate(timeout=10)[1]
    c.close()
    assert "mysql_up 1" in text
    assert "mysql_exporter_last_scrape_error 0" in text, errors[-3000:]
    for collector in ("perf_schema.eventsstatements", "info_schema.processlist"):
        assert f'mysql_exporter_collector_duration_seconds{{collector="collect.{collector}"}}' \
            in text, collector
    series = [line for line in text.splitlines()
              if line.startswith("mysql_perf_schema_events_statements_total{")]
    assert any('schema="ps"' in s and "SELECT `v` FROM `t` WHERE `id` = ?" in s for s in series), \
        series[:10]
    assert "mysql_perf_schema_events_statements_seconds_total{" in text
    assert "mysql_perf_schema_events_statements_rows_examined_total{" in text
    assert "mysql_info_schema_processlist_threads{" in text


def test_performance_schema_off():
    s = Server(extra=["--performance-schema=OFF"]).start()
    try:
        c = s.connect()
        assert query(c, "SELECT @@performance_schema")[0][0] == 0
        query(c, "SELECT 1")
        assert query(c, "SELECT COUNT(*) FROM "
                        "performance_schema.events_statements_summary_by_digest")[0][0] == 0
        assert query(c, "SELECT COUNT(*) FROM performance_schema.events_statements_history")[0][0] == 0
        with pytest.raises(pymysql.err.MySQLError) as e:
            query(c, "SET GLOBAL performance_schema = ON")
        assert e.value.args[0] == 1238
        # SHOW ENGINE INNODB STATUS does not depend on it
        assert "TRANSACTIONS" in query(c, "SHOW ENGINE INNODB STATUS")[0][2]
        c.close()
    finally:
        s.stop()
