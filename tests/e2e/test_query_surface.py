"""Query-surface gaps of issue 3 over the wire: ANALYZE TABLE statistics surviving a restart,
row comparisons with subqueries, GROUPING(), RANGE frames with value offsets and views WITH
CHECK OPTION through a driver (error codes and SQLSTATEs; the golden file
tests/golden/surface.sql covers the result shapes)."""
import pymysql
import pytest

from conftest import Server


def err(cur, sql, args=None):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql, args)
    return e.value.args[0]


def cardinalities(cur, table):
    cur.execute(f"SHOW INDEX FROM {table}")
    return {(r[2], r[3]): r[6] for r in cur.fetchall()}


def test_analyze_statistics_survive_restart():
    srv = Server().start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("CREATE DATABASE st")
        cur.execute("USE st")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, flag INT, grp INT, v INT, KEY kflag (flag), KEY kgrp (grp, v))")
        cur.executemany("INSERT INTO t VALUES (%s, %s, %s, %s)", [(i, i % 2, i % 50, i) for i in range(1, 1001)])
        before = cardinalities(cur, "t")
        cur.execute("ANALYZE TABLE t")
        assert cur.fetchall()[0][2:] == ("status", "OK")
        analysed = cardinalities(cur, "t")
        assert analysed[("kflag", 1)] == 2 and analysed[("kgrp", 1)] == 50
        assert analysed[("kgrp", 2)] == 1000 and analysed[("PRIMARY", 1)] == 1000
        assert analysed != before
        cur.execute("EXPLAIN SELECT * FROM t WHERE flag = 1 AND grp = 7")
        key_before = cur.fetchall()[0][6]
        assert key_before == "kgrp"
        c.close()
        srv.stop()

        srv.start(port=srv.port)
        c = srv.connect(db="st")
        cur = c.cursor()
        # the planner and SHOW INDEX see the stored statistics without a new ANALYZE
        assert cardinalities(cur, "t") == analysed
        cur.execute("EXPLAIN SELECT * FROM t WHERE flag = 1 AND grp = 7")
        assert cur.fetchall()[0][6] == key_before
        cur.execute("SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'st' AND INDEX_NAME = 'kflag'")
        assert cur.fetchone()[0] == 2
        # a schema change makes them stale; the next ANALYZE stores fresh ones
        cur.execute("ALTER TABLE t ADD COLUMN extra INT")
        assert cardinalities(cur, "t")[("kflag", 1)] != 2
        cur.execute("ANALYZE TABLE t")
        assert cardinalities(cur, "t")[("kflag", 1)] == 2
        # DROP TABLE forgets them: a new table of the same name starts without statistics
        cur.execute("DROP TABLE t")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, flag INT, KEY kflag (flag))")
        cur.executemany("INSERT INTO t VALUES (%s, %s)", [(i, 0) for i in range(1, 11)])
        assert cardinalities(cur, "t")[("kflag", 1)] != 2
        c.close()
    finally:
        srv.stop()


def test_row_comparisons(db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, a INT, b INT)")
    cur.execute("INSERT INTO p VALUES (1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 2, NULL)")
    cur.execute("CREATE TABLE q (k INT PRIMARY KEY, x INT, y INT)")
    cur.execute("INSERT INTO q VALUES (1, 1, 2), (2, 2, 1)")
    cur.execute("SELECT id FROM p WHERE (a, b) = (SELECT x, y FROM q WHERE k = %s)", (2,))
    assert cur.fetchall() == ((3,),)
    cur.execute("SELECT id, (a, b) < (SELECT x, y FROM q WHERE q.k = p.id) FROM p ORDER BY id")
    assert cur.fetchall() == ((1, 1), (2, 1), (3, None), (4, None))
    cur.execute("SELECT id FROM p WHERE ROW(a, b) IN ((1, 2), (2, 1)) ORDER BY id")
    assert cur.fetchall() == ((2,), (3,))
    assert err(cur, "SELECT (1, 2) = (SELECT x, y FROM q)") == 1242
    assert err(cur, "SELECT (1, 2) = (SELECT x FROM q WHERE k = 1)") == 1241
    assert err(cur, "SELECT * FROM p WHERE (a, b) = (1, 2, 3)") == 1241
    # the session survives the errors
    cur.execute("SELECT (1, NULL) <=> (1, NULL)")
    assert cur.fetchone() == (1,)


def test_grouping_and_range_frames(db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE s (region VARCHAR(5), yr INT, amt INT, d DATE)")
    cur.execute("INSERT INTO s VALUES ('n', 2023, 10, '2024-01-01'), ('n', 2024, 20, '2024-01-03'), ('s', 2024, 5, '2024-01-10')")
    cur.execute("SELECT region, yr, SUM(amt), GROUPING(region, yr) FROM s GROUP BY region, yr WITH ROLLUP")
    rows = cur.fetchall()
    assert [r[3] for r in rows] == [0, 0, 1, 0, 1, 3]
    assert rows[-1][:3] == (None, None, 35)
    assert err(cur, "SELECT GROUPING(region) FROM s GROUP BY region") == 1111
    assert err(cur, "SELECT GROUPING(amt) FROM s GROUP BY region WITH ROLLUP") == 3602
    cur.execute("SELECT amt, SUM(amt) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND CURRENT ROW) FROM s ORDER BY d")
    assert [int(r[1]) for r in cur.fetchall()] == [10, 30, 5]
    assert err(cur, "SELECT SUM(amt) OVER (ORDER BY region RANGE 1 PRECEDING) FROM s") == 3587
    assert err(cur, "SELECT SUM(amt) OVER (ORDER BY d RANGE 1 PRECEDING) FROM s") == 3588
    assert err(cur, "SELECT SUM(amt) OVER (ORDER BY yr RANGE INTERVAL 1 DAY PRECEDING) FROM s") == 3589
    assert err(cur, "SELECT SUM(amt) OVER (ORDER BY yr GROUPS 1 PRECEDING) FROM s") == 1235


def test_view_check_option(db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY, n INT)")
    cur.execute("CREATE VIEW small AS SELECT id, n FROM b WHERE n < 10 WITH CHECK OPTION")
    cur.execute("CREATE VIEW pos AS SELECT id, n FROM small WHERE n > 0 WITH LOCAL CHECK OPTION")
    cur.execute("SHOW CREATE VIEW small")
    assert cur.fetchone()[1].endswith(" WITH CASCADED CHECK OPTION")
    cur.execute("SHOW CREATE VIEW pos")
    assert cur.fetchone()[1].endswith(" WITH LOCAL CHECK OPTION")
    cur.execute("INSERT INTO small VALUES (1, 5)")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("INSERT INTO small VALUES (2, 50)")
    assert e.value.args == (1369, f"CHECK OPTION failed '{name}.small'")
    assert err(cur, "UPDATE small SET n = 11 WHERE id = 1") == 1369
    # LOCAL checks its own WHERE and the underlying view's CHECK OPTION (MySQL 8)
    assert err(cur, "INSERT INTO pos VALUES (3, 0)") == 1369
    assert err(cur, "INSERT INTO pos VALUES (3, 20)") == 1369
    cur.execute("INSERT INTO pos VALUES (3, 3)")
    cur.execute("UPDATE IGNORE small SET n = n * 3")
    cur.execute("SHOW WARNINGS")
    assert [w[1] for w in cur.fetchall()] == [1369]
    cur.execute("SELECT * FROM b ORDER BY id")
    assert cur.fetchall() == ((1, 5), (3, 9))
    assert err(cur, "CREATE VIEW agg AS SELECT n, COUNT(*) FROM b GROUP BY n WITH CHECK OPTION") == 1368


def test_index_hints_decide_the_read(db):
    """USE / FORCE / IGNORE INDEX change the index a query reads, as EXPLAIN and the session's
    Handler_read_* counters show; wrong hints get MySQL's errors (1176, 1221, 1064)."""
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE h (id INT PRIMARY KEY, a INT, b INT, KEY ka (a), KEY kb (b))")
    cur.executemany("INSERT INTO h VALUES (%s, %s, %s)", [(i, i % 10, i % 50) for i in range(1, 201)])
    cur.execute("ANALYZE TABLE h")
    q = "SELECT COUNT(*) FROM h {} WHERE a = 3 AND b = 3"

    def read(hint):
        cur.execute("EXPLAIN " + q.format(hint))
        key = cur.fetchone()[6]
        cur.execute("FLUSH STATUS")
        cur.execute(q.format(hint))
        n = cur.fetchone()[0]
        cur.execute("SHOW SESSION STATUS LIKE 'Handler_read%'")
        got = {k: int(v) for k, v in cur.fetchall()}
        return key, n, got

    key, n, got = read("")
    assert (key, n) == ("kb", 4) and got["Handler_read_rnd_next"] == 0, got
    key, n, got = read("IGNORE INDEX (kb)")
    assert (key, n, got["Handler_read_key"]) == ("ka", 4, 1), got
    assert got["Handler_read_next"] == 19 and got["Handler_read_rnd_next"] == 0, got
    key, n, got = read("USE INDEX ()")
    assert (key, n, got["Handler_read_key"]) == (None, 4, 0), got
    assert got["Handler_read_rnd_next"] == 201, got
    key, n, got = read("FORCE INDEX (ka)")
    assert (key, n) == ("ka", 4), got
    assert err(cur, "SELECT * FROM h USE INDEX (nope)") == 1176
    assert err(cur, "SELECT * FROM h USE INDEX (ka) FORCE INDEX (kb)") == 1221
    assert err(cur, "SELECT * FROM h IGNORE INDEX ()") == 1064
    assert err(cur, "DELETE FROM h USE INDEX (ka) WHERE a = 1") == 1064


def test_maintenance_statements_name_table_lists(server):
    """ANALYZE / OPTIMIZE / CHECK TABLE take a list of tables (one result row each), as
    `mariadb-check` sends them: one statement for all the tables of a database."""
    import subprocess
    c = server.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS maint")
    cur.execute("CREATE TABLE maint.a (id INT PRIMARY KEY, v INT, KEY kv (v))")
    cur.execute("CREATE TABLE maint.b (id INT PRIMARY KEY)")
    cur.execute("INSERT INTO maint.a VALUES (1, 1), (2, 1), (3, 2)")
    cur.execute("USE maint")
    cur.execute("ANALYZE NO_WRITE_TO_BINLOG TABLE a, maint.b")
    assert cur.fetchall() == (("maint.a", "analyze", "status", "OK"), ("maint.b", "analyze", "status", "OK"))
    cur.execute("SHOW INDEX FROM a WHERE Key_name = 'kv'")
    assert cur.fetchall()[0][6] == 2  # cardinality from the statistics ANALYZE gathered
    cur.execute("OPTIMIZE TABLE a, b")
    assert [r[:2] for r in cur.fetchall()] == [("maint.a", "optimize"), ("maint.b", "optimize")]
    cur.execute("CHECK TABLE a, b")
    assert [r[0] for r in cur.fetchall()] == ["maint.a", "maint.b"]
    assert err(cur, "ANALYZE TABLE a junk") == 1064
    for flag, op in (("--analyze", "analyze"), ("--optimize", "optimize"), ("--check", "check")):
        p = subprocess.run(["mariadb-check", "-h127.0.0.1", f"-P{server.port}", "-uroot", "--skip-ssl",
                            flag, "maint"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, (op, p.stdout, p.stderr)
        assert "maint.a" in p.stdout and "maint.b" in p.stdout, (op, p.stdout)
    cur.execute("DROP DATABASE maint")


def test_explain_formats_over_the_wire(db):
    """EXPLAIN FORMAT=TRADITIONAL / JSON / TREE as a driver sees them (Django's explain() sends
    the first two and parses the JSON)."""
    import json
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY kv (v))")
    cur.execute("CREATE TABLE u (id INT PRIMARY KEY, t_id INT)")
    cur.execute("EXPLAIN SELECT * FROM t WHERE id = 1")
    plain = cur.fetchall()
    cur.execute("EXPLAIN FORMAT=TRADITIONAL SELECT * FROM t WHERE id = 1")
    assert cur.fetchall() == plain and plain[0][4] == "const"
    cur.execute("EXPLAIN FORMAT=JSON SELECT * FROM t JOIN u ON u.t_id = t.id WHERE t.v = 3")
    assert [d[0] for d in cur.description] == ["EXPLAIN"]
    doc = json.loads(cur.fetchone()[0])
    assert [x["table"]["table_name"] for x in doc["query_block"]["nested_loop"]] == ["t", "u"]
    cur.execute("EXPLAIN FORMAT=TREE SELECT * FROM t WHERE v = 3")
    assert "using kv" in cur.fetchone()[0]
    assert err(cur, "EXPLAIN ANALYZE FORMAT=TRADITIONAL SELECT * FROM t") == 1235
    assert err(cur, "EXPLAIN FORMAT=GRAPHVIZ SELECT * FROM t") == 1791
    # the plan of a join and EXPLAIN ANALYZE's counts per table read
    cur.execute("INSERT INTO t VALUES (1, 3), (2, 3), (3, 4)")
    cur.execute("INSERT INTO u VALUES (10, 1), (11, 1), (12, 2), (13, 9)")
    cur.execute("EXPLAIN SELECT * FROM t JOIN u ON u.t_id = t.id WHERE t.v = 3")
    rows = cur.fetchall()
    assert [(r[2], r[4], r[6]) for r in rows] == [("t", "ref", "kv"), ("u", "ALL", None)]
    cur.execute("EXPLAIN ANALYZE SELECT * FROM t JOIN u ON u.t_id = t.id WHERE t.v = 3")
    tree = cur.fetchone()[0]
    assert "Index lookup on t using kv" in tree and "(actual rows=2 loops=1)" in tree, tree
    # explain_format, and EXPLAIN of UPDATE / DELETE / INSERT
    cur.execute("SET explain_format = TREE")
    cur.execute("EXPLAIN SELECT * FROM t WHERE v = 3")
    assert cur.fetchone()[0].startswith("-> ")
    cur.execute("SET explain_format = DEFAULT")
    cur.execute("EXPLAIN UPDATE t SET v = 0 WHERE v = 3")
    r = cur.fetchone()
    assert (r[1], r[4], r[6], r[11]) == ("UPDATE", "range", "kv", "Using where")
    cur.execute("EXPLAIN DELETE FROM u")
    assert cur.fetchone()[1:5] == ("DELETE", "u", None, "ALL")
    cur.execute("EXPLAIN INSERT INTO u VALUES (20, 2)")
    assert cur.fetchone()[1] == "INSERT"
    cur.execute("SELECT COUNT(*) FROM u")
    assert cur.fetchone()[0] == 4
    # Handler_read_*: the session's reads as the plans made them; FLUSH STATUS zeroes them,
    # GLOBAL adds up every session's
    cur.execute("FLUSH STATUS")
    cur.execute("SELECT * FROM t WHERE id = 2")
    cur.execute("SELECT COUNT(*) FROM u")
    cur.execute("SHOW SESSION STATUS LIKE 'Handler_read%'")
    got = dict(cur.fetchall())
    assert (got["Handler_read_key"], got["Handler_read_rnd_next"]) == ("1", "5"), got
    cur.execute("SHOW GLOBAL STATUS LIKE 'Handler_read_key'")
    assert int(cur.fetchone()[1]) >= 1
