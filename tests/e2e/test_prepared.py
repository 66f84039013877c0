"""Server-side prepared statements (binary protocol) with mysql-connector-python."""
import datetime
import decimal

import mysql.connector
import pytest


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
