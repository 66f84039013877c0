"""Server-side prepared statements (binary protocol) with mysql-connector-python."""
import datetime
import decimal

import mysql.connector
import pytest
from conftest import global_status


def connect(server, db=None):
    return mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                   database=db, use_pure=True, autocommit=True, ssl_disabled=True)


def test_prepared_roundtrip_all_types(server, db):
    _, name = db
    c = connect(server, name)
    cur = c.cursor(prepared=True)
    cur.execute("""CREATE TABLE p (id BIGINT PRIMARY KEY, i INT, u INT UNSIGNED, d DECIMAL(10,3), f DOUBLE,
                   s VARCHAR(20), b VARBINARY(10), dt DATE, dtm DATETIME(6), tm TIME, n INT)""")
    row = (1, -5, 4000000000, decimal.Decimal("12.345"), 2.5, "héllo", b"\x00\x01\xff",
           datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 600000), datetime.timedelta(hours=5, minutes=6, seconds=7), None)
    cur.execute("INSERT INTO p VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    cur.execute("SELECT * FROM p WHERE id = ?", (1,))
    got = cur.fetchall()[0]
    assert got[0] == 1 and got[1] == -5 and got[2] == 4000000000
    assert decimal.Decimal(str(got[3])) == decimal.Decimal("12.345")
    assert got[4] == 2.5
    assert (got[5].decode() if isinstance(got[5], (bytes, bytearray)) else got[5]) == "héllo"
    assert bytes(got[6]) == b"\x00\x01\xff"
    assert got[7] == datetime.date(2020, 1, 2)
    assert got[8] == datetime.datetime(2020, 1, 2, 3, 4, 5, 600000)
    assert got[9] == datetime.timedelta(hours=5, minutes=6, seconds=7)
    assert got[10] is None
    # re-execution with new parameters
    for i in range(2, 6):
        cur.execute("INSERT INTO p (id, i) VALUES (?, ?)", (i, i * 10))
    cur.execute("SELECT SUM(i) FROM p WHERE id BETWEEN ? AND ?", (2, 5))
    assert int(cur.fetchall()[0][0]) == 140
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("INSERT INTO p (id) VALUES (?)", (1,))
    assert e.value.errno == 1062
    c.close()


def test_sql_prepare_execute(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("PREPARE s FROM 'SELECT ? + ?'")
    cur.execute("SET @a = 2, @b = 40")
    cur.execute("EXECUTE s USING @a, @b")
    assert cur.fetchall()[0][0] == 42
    cur.execute("DEALLOCATE PREPARE s")


def test_prepared_subqueries_windows_views(server, db):
    """Parameters inside subqueries, derived tables and CTEs; window functions and views through
    the binary protocol (column metadata must match the values sent)."""
    _, name = db
    c = connect(server, name)
    cur = c.cursor(prepared=True)
    cur.execute("CREATE TABLE o (id INT PRIMARY KEY, cust INT, amount DECIMAL(8,2))")
    for i in range(1, 9):
        cur.execute("INSERT INTO o VALUES (?, ?, ?)", (i, i % 3, decimal.Decimal(i * 10)))
    cur.execute("SELECT id FROM o WHERE cust IN (SELECT cust FROM o WHERE amount > ?) AND id < ? ORDER BY id",
                (decimal.Decimal("70"), 5))
    assert [r[0] for r in cur.fetchall()] == [2]
    cur.execute("SELECT COUNT(*) FROM o o1 WHERE EXISTS (SELECT 1 FROM o o2 WHERE o2.cust = o1.cust AND o2.amount > ?)", (75,))
    assert cur.fetchall()[0][0] == 3
    cur.execute("WITH big AS (SELECT * FROM o WHERE amount >= ?) SELECT d.c FROM (SELECT COUNT(*) AS c FROM big) AS d", (50,))
    assert cur.fetchall()[0][0] == 4
    cur.execute("SELECT id, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY amount DESC), SUM(amount) OVER (PARTITION BY cust) "
                "FROM o WHERE id <= ? ORDER BY id", (4,))
    rows = cur.fetchall()
    assert [(r[0], r[1]) for r in rows] == [(1, 2), (2, 1), (3, 1), (4, 1)]
    assert decimal.Decimal(str(rows[0][2])) == decimal.Decimal("50.00")
    cur.execute("CREATE VIEW big_orders AS SELECT id, amount FROM o WHERE amount > 40")
    cur.execute("SELECT COUNT(*), MIN(id) FROM big_orders WHERE id > ?", (5,))
    assert cur.fetchall()[0] == (3, 6)
    cur.execute("SELECT id FROM o WHERE id < ? UNION SELECT id FROM o WHERE id > ? ORDER BY id DESC", (2, 7))
    assert [r[0] for r in cur.fetchall()] == [8, 1]
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("SELECT (SELECT id FROM o WHERE id > ?)", (1,))
    assert e.value.errno == 1242


def test_plan_cache_reuse_and_invalidation(server, db):
    """A prepared SELECT keeps its plan between executions; DDL, USE, SET and volatile values
    (user variables) make it plan again, and a reused plan still takes its metadata locks."""
    admin, name = db
    acur = admin.cursor()
    acur.execute("CREATE TABLE pc (id INT PRIMARY KEY, v INT, g INT)")
    acur.execute("INSERT INTO pc VALUES (1, 10, 1), (2, 20, 1), (3, 30, 2)")
    c = connect(server, name)
    cur = c.cursor(prepared=True)
    hits0, misses0 = global_status(acur, "Strata_plan_cache_hits"), global_status(acur, "Strata_plan_cache_misses")
    for i in (1, 2, 3, 1):
        cur.execute("SELECT * FROM pc WHERE id = ?", (i,))
        assert cur.fetchall() == [(i, i * 10, 1 if i < 3 else 2)]
    assert global_status(acur, "Strata_plan_cache_misses") - misses0 == 1
    assert global_status(acur, "Strata_plan_cache_hits") - hits0 == 3
    # DDL between executions: the next execution sees the new column
    reprep = global_status(acur, "Com_stmt_reprepare")
    acur.execute("ALTER TABLE pc ADD COLUMN w INT DEFAULT 7")
    cur.execute("SELECT * FROM pc WHERE id = ?", (2,))
    assert cur.fetchall() == [(2, 20, 1, 7)]
    assert global_status(acur, "Com_stmt_reprepare") == reprep + 1
    # a reused plan takes the table's metadata lock again: DDL waits behind an open transaction
    cur.execute("SELECT * FROM pc WHERE id = ?", (2,))
    cur.fetchall()
    c.start_transaction()
    cur.execute("SELECT * FROM pc WHERE id = ?", (3,))
    assert cur.fetchall() == [(3, 30, 2, 7)]
    acur.execute("SET SESSION lock_wait_timeout = 1")
    with pytest.raises(Exception) as e:
        acur.execute("ALTER TABLE pc DROP COLUMN w")
    assert getattr(e.value, "args", [None])[0] == 1205 or "1205" in str(e.value)
    c.commit()
    acur.execute("ALTER TABLE pc DROP COLUMN w")
    # user variables are read at execution, not frozen into the plan
    uc = c.cursor()
    for val, want in ((1, 11), (5, 15)):
        uc.execute(f"SET @pc_off = {val}")
        cur.execute("SELECT v + @pc_off FROM pc WHERE id = ?", (1,))
        assert cur.fetchall()[0][0] == want
    # a changed sql_mode plans again (ONLY_FULL_GROUP_BY is checked when planning)
    q = "SELECT g, v FROM pc WHERE id > ? GROUP BY g ORDER BY g"
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute(q, (0,))
    assert e.value.errno == 1055
    uc.execute("SET SESSION sql_mode = ''")
    cur.execute(q, (0,))
    assert [r[0] for r in cur.fetchall()] == [1, 2]
    # USE another database: an unqualified name resolves there
    acur.execute("DROP DATABASE IF EXISTS pc_other")
    acur.execute("CREATE DATABASE pc_other")
    acur.execute("CREATE TABLE pc_other.pc (id INT PRIMARY KEY, v INT, g INT)")
    acur.execute("INSERT INTO pc_other.pc VALUES (1, 99, 9)")
    cur.execute("SELECT v FROM pc WHERE id = ?", (1,))
    assert cur.fetchall() == [(10,)]
    uc.execute("USE pc_other")
    cur.execute("SELECT v FROM pc WHERE id = ?", (1,))
    assert cur.fetchall() == [(99,)]
    # the table dropped under a cached plan: 1146, and the connection stays usable
    acur.execute("DROP TABLE pc_other.pc")
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("SELECT v FROM pc WHERE id = ?", (1,))
    assert e.value.errno == 1146
    uc.execute(f"USE `{name}`")
    cur.execute("SELECT v FROM pc WHERE id = ?", (3,))
    assert cur.fetchall() == [(30,)]
    acur.execute("DROP DATABASE pc_other")
    c.close()


def test_sql_execute_uses_plan_cache(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE pcs (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO pcs VALUES (1, 5), (2, 6)")
    cur.execute("PREPARE s FROM 'SELECT v FROM pcs WHERE id = ?'")
    hits = global_status(cur, "Strata_plan_cache_hits")
    for i, want in ((1, 5), (2, 6), (1, 5)):
        cur.execute(f"SET @i = {i}")
        cur.execute("EXECUTE s USING @i")
        assert list(cur.fetchall()) == [(want,)]
    assert global_status(cur, "Strata_plan_cache_hits") - hits == 2
    cur.execute("DEALLOCATE PREPARE s")


def test_plan_cache_update_delete(server, db):
    """Prepared single-table UPDATE and DELETE keep their bound plan between executions: the
    counters show reuse, parameters and user variables are read at each execution, DDL and USE
    plan again, a reused plan takes its metadata lock again, and a view target is rewritten
    each time (never cached)."""
    admin, name = db
    acur = admin.cursor()
    acur.execute("CREATE TABLE pu (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY (k))")
    acur.execute("INSERT INTO pu VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 40, 'd')")
    c = connect(server, name)
    cur = c.cursor(prepared=True)
    uc = c.cursor()

    def counters():
        return (global_status(acur, "Strata_plan_cache_hits"), global_status(acur, "Strata_plan_cache_misses"))

    h0, m0 = counters()
    upd = "UPDATE pu SET k = k + ? WHERE id = ?"
    for i in (1, 2, 1):
        cur.execute(upd, (5, i))
        assert cur.rowcount == 1
    h1, m1 = counters()
    assert (h1 - h0, m1 - m0) == (2, 1)
    # a user variable is read at each execution: such a plan is not kept
    uvar = "UPDATE pu SET c = CONCAT(c, @suffix) WHERE id = ?"
    for suffix, i in (("x", 1), ("y", 1), ("z", 3)):
        uc.execute(f"SET @suffix = '{suffix}'")
        cur.execute(uvar, (i,))
    assert counters()[0] == h1
    acur.execute("SELECT id, k, c FROM pu ORDER BY id")
    assert list(acur.fetchall()) == [(1, 20, "axy"), (2, 25, "b"), (3, 30, "cz"), (4, 40, "d")]
    # the same statement through a different range: k's index is used for the lookup
    rng = "UPDATE pu SET c = ? WHERE k BETWEEN ? AND ?"
    cur.execute(rng, ("lo", 0, 25))
    assert cur.rowcount == 2
    cur.execute(rng, ("hi", 26, 100))
    assert cur.rowcount == 2
    acur.execute("SELECT c FROM pu ORDER BY id")
    assert [r[0] for r in acur.fetchall()] == ["lo", "lo", "hi", "hi"]
    # DDL between executions: the next execution plans again and sees the new column
    # (the connector keeps one statement per cursor: `rng` is still the prepared one)
    reprep = global_status(acur, "Com_stmt_reprepare")
    acur.execute("ALTER TABLE pu ADD COLUMN n INT NOT NULL DEFAULT 0")
    cur.execute(rng, ("mid", 0, 25))
    assert global_status(acur, "Com_stmt_reprepare") == reprep + 1
    upd_n = "UPDATE pu SET n = n + 1 WHERE id = ?"
    cur.execute(upd_n, (1,))
    cur.execute(upd_n, (1,))
    acur.execute("SELECT n, c FROM pu WHERE id = 1")
    assert list(acur.fetchall()) == [(2, "mid")]
    # a reused plan takes its metadata lock again: DDL waits behind the open transaction
    c.start_transaction()
    cur.execute(upd_n, (2,))
    acur.execute("SET SESSION lock_wait_timeout = 1")
    with pytest.raises(Exception) as e:
        acur.execute("ALTER TABLE pu DROP COLUMN n")
    assert e.value.args[0] == 1205
    c.rollback()
    acur.execute("SELECT n FROM pu WHERE id = 2")
    assert list(acur.fetchall()) == [(0,)]
    # DELETE: reused, with its parameters read each time
    h0, m0 = counters()
    dele = "DELETE FROM pu WHERE id = ?"
    for i in (4, 3):
        cur.execute(dele, (i,))
        assert cur.rowcount == 1
    cur.execute(dele, (3,))
    assert cur.rowcount == 0
    h1, m1 = counters()
    assert (h1 - h0, m1 - m0) == (2, 1)
    acur.execute("SELECT id FROM pu ORDER BY id")
    assert list(acur.fetchall()) == [(1,), (2,)]
    # USE another database: the unqualified name now means that database's table
    acur.execute("DROP DATABASE IF EXISTS pu_other")
    acur.execute("CREATE DATABASE pu_other")
    acur.execute("CREATE TABLE pu_other.pu (id INT PRIMARY KEY, k INT, c VARCHAR(20), n INT)")
    acur.execute("INSERT INTO pu_other.pu VALUES (1, 0, 'o', 0), (2, 0, 'o', 0)")
    uc.execute("USE pu_other")
    cur.execute(dele, (2,))
    assert cur.rowcount == 1
    acur.execute("SELECT COUNT(*) FROM pu_other.pu")
    assert list(acur.fetchall()) == [(1,)]
    acur.execute(f"SELECT COUNT(*) FROM `{name}`.pu")
    assert list(acur.fetchall()) == [(2,)]
    # the table dropped under a cached plan: 1146, and the connection stays usable
    acur.execute("DROP TABLE pu_other.pu")
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute(dele, (1,))
    assert e.value.errno == 1146
    uc.execute(f"USE `{name}`")
    acur.execute("DROP DATABASE pu_other")
    # a view target is rewritten at every execution, with its CHECK OPTION
    acur.execute("CREATE VIEW pv AS SELECT id, k FROM pu WHERE k < 100 WITH CHECK OPTION")
    h0 = global_status(acur, "Strata_plan_cache_hits")
    vu = "UPDATE pv SET k = ? WHERE id = ?"
    cur.execute(vu, (50, 1))
    cur.execute(vu, (60, 1))
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute(vu, (500, 1))
    assert e.value.errno == 1369
    cur.execute("DELETE FROM pv WHERE id = ?", (2,))
    cur.execute("DELETE FROM pv WHERE id = ?", (2,))
    assert global_status(acur, "Strata_plan_cache_hits") == h0
    acur.execute("SELECT id, k FROM pu")
    assert list(acur.fetchall()) == [(1, 60)]
    c.close()


def test_plan_cache_insert(server, db):
    """A prepared INSERT … VALUES keeps its bound values, DEFAULTs and ON DUPLICATE KEY UPDATE
    assignments between executions; AUTO_INCREMENT, duplicates and LAST_INSERT_ID() still
    behave per execution, and INSERT … SELECT keeps the plan of its SELECT."""
    admin, name = db
    acur = admin.cursor()
    acur.execute("CREATE TABLE pi (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 7,"
                  " c VARCHAR(10), UNIQUE KEY (c))")
    c = connect(server, name)
    cur = c.cursor(prepared=True)
    h0, m0 = global_status(acur, "Strata_plan_cache_hits"), global_status(acur, "Strata_plan_cache_misses")
    ins = "INSERT INTO pi (k, c) VALUES (DEFAULT, ?), (?, ?)"
    ids = []
    for i in range(3):
        cur.execute(ins, (f"a{i}", i, f"b{i}"))
        assert cur.rowcount == 2
        ids.append(cur.lastrowid)
    assert ids == [1, 3, 5]
    assert global_status(acur, "Strata_plan_cache_hits") - h0 == 2
    assert global_status(acur, "Strata_plan_cache_misses") - m0 == 1
    # a duplicate fails each time with 1062, and the statement stays usable
    for _ in range(2):
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute(ins, ("a0", 9, "z9"))
        assert e.value.errno == 1062
    cur.execute(ins, ("a9", 9, "b9"))
    # ON DUPLICATE KEY UPDATE with VALUES(): inserted, then updated, then unchanged
    up = "INSERT INTO pi (k, c) VALUES (?, ?) ON DUPLICATE KEY UPDATE k = k + VALUES(k)"
    h1 = global_status(acur, "Strata_plan_cache_hits")
    cur.execute(up, (100, "u"))
    assert cur.rowcount == 1
    cur.execute(up, (5, "u"))
    assert cur.rowcount == 2
    cur.execute(up, (0, "u"))
    assert cur.rowcount == 0
    assert global_status(acur, "Strata_plan_cache_hits") - h1 == 2
    acur.execute("SELECT k FROM pi WHERE c = 'u'")
    assert list(acur.fetchall()) == [(105,)]
    acur.execute("SELECT COUNT(*), SUM(k) FROM pi WHERE c LIKE 'a%'")
    assert list(acur.fetchall()) == [(4, 28)]
    # LAST_INSERT_ID() is read at each execution
    cur2 = c.cursor(prepared=True)
    uc = c.cursor()
    uc.execute("INSERT INTO pi (c) VALUES ('l1')")
    lid = "INSERT INTO pi (k, c) VALUES (LAST_INSERT_ID(), ?)"
    cur2.execute(lid, ("l2",))
    first = cur2.lastrowid
    cur2.execute(lid, ("l3",))
    acur.execute("SELECT k FROM pi WHERE c IN ('l2', 'l3') ORDER BY id")
    assert [r[0] for r in acur.fetchall()] == [first - 1, first]
    # INSERT … SELECT: its SELECT's plan is the one kept
    acur.execute("CREATE TABLE pi2 (id INT PRIMARY KEY, k INT)")
    h2 = global_status(acur, "Strata_plan_cache_hits")
    sel = "INSERT INTO pi2 SELECT id, k FROM pi WHERE id = ?"
    for i in (1, 2, 3):
        cur.execute(sel, (i,))
    assert global_status(acur, "Strata_plan_cache_hits") - h2 == 2
    acur.execute("SELECT id, k FROM pi2 ORDER BY id")
    assert list(acur.fetchall()) == [(1, 7), (2, 0), (3, 7)]
    c.close()
