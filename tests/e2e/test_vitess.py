"""Strata under Vitess: a two-shard cluster on 127.0.0.1 (etcd, vtctld, vtgate, two unmanaged
vttablets each in front of its own Strata; tests/vitess/cluster.sh) serving PyMySQL and sysbench
through vtgate, ALTERs seen by vttablet's schema tracking, a clean periodic schema reload; and
the server features Vitess relies on, checked directly (read_only / super_read_only,
WEIGHT_STRING, INFORMATION_SCHEMA.TABLES.CREATE_TIME, the InnoDB tables).

The Vitess binaries come from tests/vitess/build.sh (run by ./x test before pytest; cached under
~/.cache/strata-vitess). Without them, or without etcd, the cluster tests skip, unless
STRATA_REQUIRE_CLIENTS is set (./x test), where they fail."""
import os
import re
import socket
import subprocess
import tempfile
import time

import pymysql
import pytest

from conftest import BIN, Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTER = os.path.join(ROOT, "tests", "vitess", "cluster.sh")
BUILD = os.path.join(ROOT, "tests", "vitess", "build.sh")
REQUIRED = bool(os.environ.get("STRATA_REQUIRE_CLIENTS"))


def vitess_bin():
    """The cached Vitess bin directory, or None when not built."""
    home = os.environ.get("STRATA_VITESS_HOME", os.path.expanduser("~/.cache/strata-vitess"))
    d = os.path.join(home, os.environ.get("STRATA_VITESS_VERSION", "v0.24.4"), "bin")
    ok = all(os.access(os.path.join(d, b), os.X_OK) for b in ("vtgate", "vttablet", "vtctld", "vtctldclient"))
    return d if ok else None


def free_base(span=40):
    """A base port with `span` free ports above it."""
    for _ in range(50):
        base = 20000 + (os.getpid() * 7 + int(time.time() * 1000)) % 30000
        try:
            socks = []
            for p in range(base, base + span):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                socks.append(s)
            for s in socks:
                s.close()
            return base
        except OSError:
            for s in socks:
                s.close()
            time.sleep(0.01)
    raise RuntimeError("no free port range")


class Cluster:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="strata-vitess-")
        self.dir = os.path.join(self.tmp, "cluster")
        self.base = free_base()
        self.env = dict(os.environ, STRATA_VITESS_DIR=self.dir, STRATA_VITESS_PORT=str(self.base),
                        STRATA_VITESS_SHARDS="2", STRATA_BIN=BIN)
        self.vtgate = self.base + 6
        self.shard_ports = [self.base + 10, self.base + 20]

    def run(self, cmd, timeout=300):
        return subprocess.run([CLUSTER, cmd], env=self.env, capture_output=True, text=True, timeout=timeout)

    def vtctl(self, *args):
        prefix = [] if os.getuid() != 0 else ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        p = subprocess.run(prefix + [os.path.join(self.dir, "bin", "vtctldclient"), "--server",
                                     f"127.0.0.1:{self.base + 3}"] + list(args),
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return p.stdout

    def connect(self, **kw):
        return pymysql.connect(host="127.0.0.1", port=self.vtgate, user="root", password="",
                               database="commerce", autocommit=True, **kw)

    def shard(self, i):
        return pymysql.connect(host="127.0.0.1", port=self.shard_ports[i], user="root", password="",
                               database="commerce", autocommit=True)

    def log(self, name):
        with open(os.path.join(self.dir, "log", name + ".log"), errors="replace") as f:
            return f.read()


@pytest.fixture(scope="module")
def cluster():
    if not vitess_bin():
        if REQUIRED:
            # ./x test builds them first; build here when run alone
            p = subprocess.run([BUILD], capture_output=True, text=True, timeout=1800)
            assert p.returncode == 0, p.stderr
        else:
            pytest.skip("Vitess binaries not built (tests/vitess/build.sh)")
    for tool in ("etcd", "sysbench", "mariadb"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            if REQUIRED:
                pytest.fail(f"{tool} is missing")
            pytest.skip(f"{tool} is missing")
    c = Cluster()
    up = c.run("up")
    if up.returncode != 0:
        logs = ""
        for name in ("vtgate", "vttablet0", "vtctld", "etcd"):
            try:
                logs += f"\n== {name}\n" + c.log(name)[-3000:]
            except OSError:
                pass
        c.run("down")
        pytest.fail("cluster.sh up failed:\n" + up.stderr + logs)
    c.started = time.time()
    yield c
    c.run("down")


NAMES = ["alice", "Bob", "carol", "Dave", "eve", "Frank", "grace", "Heidi", "ivan", "Judy",
         "mallory", "Niaj", "olivia", "Peggy", "rupert", "Sybil", "trent", "Victor", "walter", "Zoe"]


def test_routes_and_merges_right_after_create(cluster):
    c = cluster.connect()
    cur = c.cursor()
    cur.execute("CREATE TABLE customer (id BIGINT PRIMARY KEY, name VARCHAR(64), score INT)")
    rows = [(i + 1, n, (i * 7) % 5) for i, n in enumerate(NAMES)]
    cur.executemany("INSERT INTO customer (id, name, score) VALUES (%s, %s, %s)", rows)
    # both shards hold some of the rows (hash vindex on id)
    counts = []
    for i in range(2):
        s = cluster.shard(i)
        with s.cursor() as sc:
            sc.execute("SELECT COUNT(*) FROM customer")
            counts.append(sc.fetchone()[0])
        s.close()
    assert sum(counts) == len(rows) and min(counts) > 0, counts
    # cross-shard merges before schema tracking knows the table: vtgate asks the shards for
    # WEIGHT_STRING of the text columns
    cur.execute("SELECT id, name FROM customer ORDER BY name")
    assert [r[1] for r in cur.fetchall()] == sorted(NAMES, key=str.lower)
    cur.execute("SELECT name FROM customer ORDER BY name DESC LIMIT 3")
    assert [r[0] for r in cur.fetchall()] == sorted(NAMES, key=str.lower, reverse=True)[:3]
    cur.execute("SELECT score, COUNT(*) FROM customer GROUP BY score ORDER BY score")
    want = {}
    for _, _, s in rows:
        want[s] = want.get(s, 0) + 1
    assert [tuple(r) for r in cur.fetchall()] == sorted(want.items())
    cur.execute("SELECT id FROM customer WHERE name IN ('alice', 'EVE', 'zoe') ORDER BY id")
    assert [r[0] for r in cur.fetchall()] == [1, 5, 20]
    cur.execute("SELECT DISTINCT LOWER(name) AS n FROM customer WHERE score = 0 ORDER BY n")
    assert [r[0] for r in cur.fetchall()] == sorted(n.lower() for _, n, s in rows if s == 0)
    cur.execute("SELECT name, COUNT(*) FROM customer GROUP BY name ORDER BY name LIMIT 2")
    assert [r[0] for r in cur.fetchall()] == sorted(NAMES, key=str.lower)[:2]
    c.close()


def test_alter_is_visible_to_the_next_query(cluster):
    c = cluster.connect()
    cur = c.cursor()
    cur.execute("ALTER TABLE customer ADD COLUMN extra INT")
    cur.execute("UPDATE customer SET extra = id * 2 WHERE id IN (1, 2, 3)")
    cur.execute("SELECT id, extra FROM customer WHERE id IN (1, 2, 3, 4) ORDER BY id")
    assert [tuple(r) for r in cur.fetchall()] == [(1, 2), (2, 4), (3, 6), (4, None)]
    cur.execute("ALTER TABLE customer DROP COLUMN extra")
    cur.execute("SELECT * FROM customer WHERE id = 1")
    assert len(cur.fetchone()) == 3
    c.close()


def sysbench(cluster, cmd, extra=()):
    args = ["sysbench", "oltp_read_write", "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={cluster.vtgate}", "--mysql-user=root", "--mysql-password=",
            "--mysql-db=commerce", "--tables=1", "--table-size=10000", "--auto_inc=off",
            "--rand-type=uniform",
            "--mysql-ignore-errors=none"] + list(extra) + [cmd]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"sysbench {cmd} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


def test_sysbench_read_write_through_vtgate(cluster):
    # Uniform keys over 10,000 rows: with sysbench's default hot-spot distribution ("special")
    # two transactions often lock the same rows on two shards in opposite orders, a cross-shard
    # deadlock no shard can see (as with MySQL under Vitess); it ends only at vttablet's 30 s
    # query timeout (3024). See docs/scaling-out.md.
    sysbench(cluster, "prepare")
    out = sysbench(cluster, "run", ["--threads=4", "--time=8"])
    m = re.search(r"transactions:\s+(\d+)", out)
    assert m and int(m.group(1)) > 0, out
    e = re.search(r"ignored errors:\s+(\d+)", out)
    assert e and int(e.group(1)) == 0, out
    sysbench(cluster, "cleanup")


def test_super_read_only_through_the_tablet(cluster):
    c = cluster.connect()
    cur = c.cursor()
    s0 = cluster.shard(0)
    with s0.cursor() as sc:
        sc.execute("SELECT id FROM customer ORDER BY id LIMIT 1")
        rid = sc.fetchone()[0]
        sc.execute("SET GLOBAL super_read_only = ON")
        sc.execute("SELECT @@global.read_only, @@global.super_read_only")
        assert sc.fetchone() == (1, 1)
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("UPDATE customer SET score = 9 WHERE id = %s", (rid,))
    assert "super-read-only" in str(e.value)
    # vttablet's SetWritable turns read_only (and with it super_read_only) off again
    alias = open(os.path.join(cluster.dir, "pid", "vttablet0.alias")).read().strip()
    cluster.vtctl("SetWritable", alias, "true")
    cur.execute("UPDATE customer SET score = 9 WHERE id = %s", (rid,))
    with s0.cursor() as sc:
        sc.execute("SELECT @@global.read_only, @@global.super_read_only")
        assert sc.fetchone() == (0, 0)
    full = cluster.vtctl("GetFullStatus", alias)
    with s0.cursor() as sc:
        sc.execute("SELECT @@global.server_uuid")
        assert sc.fetchone()[0] in full, full
    s0.close()
    c.close()


def test_periodic_schema_reload_logs_no_error(cluster):
    # the tablets reload every 5 s (--queryserver-config-schema-reload-time): wait for two
    time.sleep(max(0.0, cluster.started + 12 - time.time()))
    for i in range(2):
        log = cluster.log(f"vttablet{i}")
        bad = [l for l in log.splitlines()
               if re.search(r"schema reload failed|statistics failed|schema-tracker: error|ERR schema/", l)]
        assert not bad, "\n".join(bad[:5])
        reload = [l for l in log.splitlines() if re.search(r"schema/\w+\.go", l) and "errno" in l]
        assert not reload, "\n".join(reload[:5])


# ---- the server features Vitess relies on, checked on one server ----------------------------

@pytest.fixture(scope="module")
def own_server():
    s = Server().start()
    yield s
    s.stop()


def test_read_only_and_super_read_only(own_server):
    root = own_server.connect()
    cur = root.cursor()
    cur.execute("CREATE DATABASE ro")
    cur.execute("CREATE TABLE ro.t (a INT PRIMARY KEY)")
    cur.execute("CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
    cur.execute("GRANT ALL ON ro.* TO 'plain'@'%'")
    plain = own_server.connect(user="plain", password="pw", database="ro")
    pc = plain.cursor()
    cur.execute("SET GLOBAL read_only = ON")
    for sql in ["INSERT INTO t VALUES (1)", "UPDATE t SET a = 2", "DELETE FROM t",
                "CREATE TABLE t2 (a INT)", "DROP TABLE t", "ALTER TABLE t ADD COLUMN b INT"]:
        with pytest.raises(pymysql.MySQLError) as e:
            pc.execute(sql)
        assert e.value.args[0] == 1290 and "--read-only" in e.value.args[1], (sql, e.value)
    pc.execute("SELECT COUNT(*) FROM t")
    # TEMPORARY tables stay writable
    pc.execute("CREATE TEMPORARY TABLE tmp (a INT)")
    pc.execute("INSERT INTO tmp VALUES (1)")
    pc.execute("DROP TEMPORARY TABLE tmp")
    # an account with SUPER still writes under read_only, not under super_read_only
    cur.execute("INSERT INTO ro.t VALUES (1)")
    cur.execute("SET GLOBAL super_read_only = ON")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("INSERT INTO ro.t VALUES (2)")
    assert e.value.args[0] == 1290 and "--super-read-only" in e.value.args[1]
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("CREATE USER 'x'@'%'")
    assert e.value.args[0] == 1290
    # read_only = OFF also clears super_read_only; super_read_only = ON sets read_only
    cur.execute("SET GLOBAL read_only = OFF")
    cur.execute("SELECT @@global.read_only, @@global.super_read_only")
    assert cur.fetchone() == (0, 0)
    cur.execute("SET GLOBAL super_read_only = 'ON'")
    cur.execute("SELECT @@global.read_only, @@global.super_read_only")
    assert cur.fetchone() == (1, 1)
    cur.execute("SET GLOBAL read_only = 0")
    # switching it on inside a transaction: 1192
    cur.execute("BEGIN")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("SET GLOBAL read_only = ON")
    assert e.value.args[0] == 1192
    cur.execute("ROLLBACK")
    pc.execute("INSERT INTO t VALUES (5)")
    plain.close()
    root.close()


def test_weight_string(own_server):
    c = own_server.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ws")
    cur.execute("CREATE TABLE ws.t (a INT, b BIGINT UNSIGNED, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, "
                "bs VARBINARY(10))")
    cur.execute("INSERT INTO ws.t VALUES (-1, 258, 'AbC', 'AbC'), (NULL, NULL, NULL, NULL)")
    cur.execute("SELECT HEX(WEIGHT_STRING(a)), HEX(WEIGHT_STRING(b)), WEIGHT_STRING(s) = WEIGHT_STRING('abc'), "
                "WEIGHT_STRING(bs) FROM ws.t ORDER BY a IS NULL")
    assert cur.fetchall() == (("7FFFFFFF", "0000000000000102", 1, b"AbC"), (None, None, None, None))
    cur.execute("SELECT HEX(WEIGHT_STRING(1)), WEIGHT_STRING('ab' AS BINARY(4)), "
                "WEIGHT_STRING('a' AS CHAR(3)) = WEIGHT_STRING('A  ' AS CHAR(3))")
    assert cur.fetchone() == ("8000000000000001", b"ab\x00\x00", 1)
    # the weights order as the collation: a < B < c
    cur.execute("SELECT x FROM (SELECT 'c' x UNION ALL SELECT 'B' UNION ALL SELECT 'a') d ORDER BY WEIGHT_STRING(x)")
    assert [r[0] for r in cur.fetchall()] == ["a", "B", "c"]
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("SELECT WEIGHT_STRING('a' AS DECIMAL(3))")
    assert e.value.args[0] == 1064
    c.close()


def test_create_time_and_innodb_tables(own_server):
    c = own_server.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ct")
    cur.execute("CREATE TABLE ct.t (a INT PRIMARY KEY, b INT, KEY kb (b))")
    q = "SELECT UNIX_TIMESTAMP(create_time) FROM information_schema.tables WHERE table_schema='ct' AND table_name='t'"
    cur.execute(q)
    created = cur.fetchone()[0]
    assert created is not None and abs(int(created) - time.time()) < 30
    time.sleep(1.1)
    cur.execute("ALTER TABLE ct.t ADD COLUMN c INT")
    cur.execute(q)
    assert cur.fetchone()[0] > created
    cur.execute("SELECT it.name, its.name, its.page_size FROM information_schema.innodb_tables it "
                "JOIN information_schema.innodb_tablespaces its ON its.space = it.space "
                "WHERE its.name LIKE 'ct/%'")
    assert cur.fetchall() == (("ct/t", "ct/t", 16384),)
    cur.execute("SELECT index_name, stat_name FROM mysql.innodb_index_stats "
                "WHERE database_name = 'ct' AND stat_name = 'size' ORDER BY index_name")
    assert [r[0] for r in cur.fetchall()] == ["PRIMARY", "kb"]
    cur.execute("SELECT COUNT(*) FROM mysql.func")
    assert cur.fetchone()[0] == 0
    cur.execute("SELECT @@global.server_uuid, @@global.super_read_only")
    uuid, sro = cur.fetchone()
    assert re.fullmatch(r"[0-9a-f-]{36}", uuid) and sro == 0
    assert [d[0] for d in cur.description] == ["@@global.server_uuid", "@@global.super_read_only"]
    cur.execute("SHOW STATUS LIKE 'Innodb_rows_read'")
    assert int(cur.fetchone()[1]) > 0
    c.close()
