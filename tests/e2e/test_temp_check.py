"""TEMPORARY tables and CHECK constraints over the wire (issue 42).

TEMPORARY tables: private to their session (two sessions with the same name, shadowing a base
table, invisible to other sessions and to SHOW TABLES / INFORMATION_SCHEMA.TABLES), rolled back
with the transaction, gone at disconnect, COM_RESET_CONNECTION, COM_CHANGE_USER, KILL and after
a crash. CHECK constraints: 3819 through the driver, and INFORMATION_SCHEMA as Django's
introspection reads it."""
import time

import mysql.connector
import pymysql
import pytest

from conftest import Server


def rows(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def temp_count(c):
    """How many temporary tables the whole server holds (every session's)."""
    return rows(c, "SELECT COUNT(*) FROM information_schema.INNODB_TEMP_TABLE_INFO")[0][0]


def wait_temp_count(c, n, timeout=10):
    deadline = time.time() + timeout
    while temp_count(c) != n:
        assert time.time() < deadline, f"expected {n} temporary tables, have {temp_count(c)}"
        time.sleep(0.05)


def test_two_sessions_same_name_and_shadowing(server, db):
    admin, name = db
    cur = admin.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    cur.execute("INSERT INTO t VALUES (1, 'base')")
    a = server.connect(db=name)
    b = server.connect(db=name)
    rows(a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    rows(a, "INSERT INTO t VALUES (2, 'a')")
    rows(b, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    rows(b, "INSERT INTO t VALUES (3, 'b')")
    assert rows(a, "SELECT * FROM t") == [(2, "a")]
    assert rows(b, "SELECT * FROM t") == [(3, "b")]
    assert rows(admin, "SELECT * FROM t") == [(1, "base")]
    # invisible to listings and to the other sessions
    assert rows(a, "SHOW TABLES") == [("t",)]
    assert rows(a, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "
                   "WHERE TABLE_SCHEMA = DATABASE()") == [("t", "BASE TABLE")]
    rows(a, "CREATE TEMPORARY TABLE only_a (x INT)")
    with pytest.raises(pymysql.MySQLError) as e:
        rows(b, "SELECT * FROM only_a")
    assert e.value.args[0] == 1146
    # UPDATE / DELETE / ALTER / SHOW CREATE TABLE reach the temporary table
    rows(a, "UPDATE t SET v = 'a2'")
    rows(a, "ALTER TABLE t ADD COLUMN n INT DEFAULT 7")
    assert rows(a, "SELECT * FROM t") == [(2, "a2", 7)]
    assert rows(a, "SHOW CREATE TABLE t")[0][1].startswith("CREATE TEMPORARY TABLE `t`")
    assert rows(admin, "SELECT * FROM t") == [(1, "base")]
    # DROP TEMPORARY TABLE drops only temporary tables
    rows(a, "DROP TEMPORARY TABLE t")
    assert rows(a, "SELECT * FROM t") == [(1, "base")]
    with pytest.raises(pymysql.MySQLError) as e:
        rows(a, "DROP TEMPORARY TABLE t")
    assert e.value.args[0] == 1051
    a.close()
    b.close()


def test_gone_at_disconnect_reset_change_user_and_kill(server, db):
    admin, name = db
    base = temp_count(admin)
    a = server.connect(db=name)
    rows(a, "CREATE TEMPORARY TABLE gone (x INT)")
    rows(a, "INSERT INTO gone VALUES (1)")
    wait_temp_count(admin, base + 1)
    a.close()
    wait_temp_count(admin, base)

    c = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                database=name, use_pure=True, autocommit=True, ssl_disabled=True)
    cur = c.cursor()
    cur.execute("CREATE TEMPORARY TABLE r (x INT)")
    wait_temp_count(admin, base + 1)
    c.cmd_reset_connection()
    wait_temp_count(admin, base)
    cur = c.cursor()
    cur.execute("CREATE TEMPORARY TABLE r (x INT)")
    wait_temp_count(admin, base + 1)
    c.cmd_change_user(username="root", password="", database=name)
    wait_temp_count(admin, base)
    cur = c.cursor()
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("SELECT * FROM r")
        cur.fetchall()
    assert e.value.errno == 1146
    c.close()

    k = server.connect(db=name)
    rows(k, "CREATE TEMPORARY TABLE killed (x INT)")
    (kid,), = rows(k, "SELECT CONNECTION_ID()")
    wait_temp_count(admin, base + 1)
    rows(admin, f"KILL {kid}")
    wait_temp_count(admin, base)


def test_rollback_and_no_implicit_commit(server, db):
    admin, name = db
    c = server.connect(db=name, autocommit=False)
    rows(c, "CREATE TABLE base (a INT)")
    rows(c, "INSERT INTO base VALUES (1)")
    # CREATE / DROP TEMPORARY TABLE do not commit the open transaction
    rows(c, "CREATE TEMPORARY TABLE tt (a INT)")
    rows(c, "INSERT INTO tt VALUES (1), (2)")
    c.rollback()
    assert rows(c, "SELECT COUNT(*) FROM base") == [(0,)]
    assert rows(c, "SELECT COUNT(*) FROM tt") == [(0,)]
    rows(c, "INSERT INTO tt VALUES (3)")
    c.commit()
    rows(c, "INSERT INTO base VALUES (2)")
    rows(c, "DROP TEMPORARY TABLE tt")
    c.rollback()
    assert rows(c, "SELECT COUNT(*) FROM base") == [(0,)]
    rows(c, "CREATE TEMPORARY TABLE sel AS SELECT 1 AS one, 'x' AS s")
    rows(c, "CREATE TEMPORARY TABLE lik LIKE sel")
    c.commit()
    assert rows(c, "SELECT * FROM sel") == [(1, "x")]
    assert rows(c, "SELECT COUNT(*) FROM lik") == [(0,)]
    c.close()


def test_gone_after_restart():
    srv = Server().start()
    try:
        c = srv.connect()
        rows(c, "CREATE DATABASE r")
        rows(c, "CREATE TABLE r.t (a INT)")
        rows(c, "INSERT INTO r.t VALUES (1)")
        rows(c, "CREATE TEMPORARY TABLE r.t (a INT)")
        rows(c, "INSERT INTO r.t VALUES (2), (3)")
        assert temp_count(c) == 1
        srv.kill(9)
        srv.start(port=srv.port)
        c = srv.connect()
        assert temp_count(c) == 0
        assert rows(c, "SELECT * FROM r.t") == [(1,)]
        assert rows(c, "SHOW TABLES FROM r") == [("t",)]
    finally:
        srv.stop()


def test_check_constraints_through_the_driver(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE prod (id INT PRIMARY KEY, price INT, qty INT CHECK (qty >= 0), "
                "CONSTRAINT price_gte_0 CHECK (price >= 0), CONSTRAINT lazy CHECK (qty < 100) NOT ENFORCED)")
    cur.execute("INSERT INTO prod VALUES (1, 10, 5)")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("INSERT INTO prod VALUES (2, -1, 5)")
    assert e.value.args == (3819, "Check constraint 'price_gte_0' is violated.")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("UPDATE prod SET qty = -5 WHERE id = 1")
    assert e.value.args[0] == 3819
    cur.execute("INSERT INTO prod VALUES (3, 1, 500)")  # NOT ENFORCED
    cur.execute("INSERT IGNORE INTO prod VALUES (4, -1, 1)")
    cur.execute("SHOW WARNINGS")
    assert cur.fetchall() == (("Warning", 3819, "Check constraint 'price_gte_0' is violated."),)
    # Django's introspection (MySQL backend): check constraints joined to TABLE_CONSTRAINTS
    cur.execute("""
        SELECT cc.constraint_name, cc.check_clause
        FROM
            information_schema.check_constraints AS cc,
            information_schema.table_constraints AS tc
        WHERE
            cc.constraint_schema = DATABASE() AND
            tc.table_schema = cc.constraint_schema AND
            cc.constraint_name = tc.constraint_name AND
            tc.constraint_type = 'CHECK' AND
            tc.table_name = %s
    """, ["prod"])
    assert sorted(cur.fetchall()) == [("lazy", "(`qty` < 100)"), ("price_gte_0", "(`price` >= 0)"),
                                      ("prod_chk_1", "(`qty` >= 0)")]
    cur.execute("SELECT constraint_name, enforced FROM information_schema.table_constraints "
                "WHERE table_schema = DATABASE() AND table_name = 'prod' AND constraint_type = 'CHECK' "
                "ORDER BY constraint_name")
    assert cur.fetchall() == (("lazy", "NO"), ("price_gte_0", "YES"), ("prod_chk_1", "YES"))
    cur.execute("SHOW CREATE TABLE prod")
    ddl = cur.fetchall()[0][1]
    assert "CONSTRAINT `price_gte_0` CHECK ((`price` >= 0))" in ddl
    assert "CONSTRAINT `lazy` CHECK ((`qty` < 100)) /*!80016 NOT ENFORCED */" in ddl
    # ALTER TABLE validates existing rows when a constraint is added or enforced
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("ALTER TABLE prod ALTER CHECK lazy ENFORCED")
    assert e.value.args[0] == 3819
    cur.execute("ALTER TABLE prod DROP CHECK lazy")
    cur.execute("ALTER TABLE prod ADD CONSTRAINT both_cols CHECK (price + qty >= 0)")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("ALTER TABLE prod DROP COLUMN price")
    assert e.value.args[0] == 3959
    # a constraint on the dropped column alone goes with it
    cur.execute("ALTER TABLE prod DROP CHECK both_cols, DROP COLUMN price")
    cur.execute("RENAME TABLE prod TO goods")
    cur.execute("SELECT constraint_name, check_clause FROM information_schema.check_constraints "
                "WHERE constraint_schema = DATABASE() ORDER BY 1")
    assert cur.fetchall() == (("goods_chk_1", "(`qty` >= 0)"),)


def test_check_constraints_on_load_data(server, db, tmp_path):
    c, name = db
    rows(c, "SET GLOBAL local_infile = ON")
    rows(c, "CREATE TABLE ld (id INT PRIMARY KEY, n INT CHECK (n < 10))")
    f = tmp_path / "ld.tsv"
    f.write_bytes(b"1\t1\n2\t20\n3\t\\N\n")
    lc = server.connect(db=name, local_infile=True)
    cur = lc.cursor()
    # LOCAL implies IGNORE: the violating row is a warning and is skipped
    cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ld")
    cur.execute("SHOW WARNINGS")
    assert cur.fetchall() == (("Warning", 3819, "Check constraint 'ld_chk_1' is violated."),)
    assert rows(lc, "SELECT * FROM ld ORDER BY id") == [(1, 1), (3, None)]
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(f"LOAD DATA LOCAL INFILE '{f}' REPLACE INTO TABLE ld")
    assert e.value.args[0] == 3819
    lc.close()
