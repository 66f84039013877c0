"""DECIMAL up to 65 digits / scale 30 over the wire: PyMySQL (text protocol) and mysql-connector
prepared cursors (binary protocol): store and read back, exact SUM, ordering by a DECIMAL(65,30)
index, MySQL's division precision, overflow errors."""
import decimal

import mysql.connector
import pymysql
import pytest

decimal.getcontext().prec = 200

MAX = decimal.Decimal("9" * 35 + "." + "9" * 30)
VALUES = [
    MAX,
    -MAX,
    decimal.Decimal("12345678901234567890123456789012345.123456789012345678901234567890"),
    decimal.Decimal("-12345678901234567890123456789012345.5"),
    decimal.Decimal("0.000000000000000000000000000001"),
    decimal.Decimal("-0.000000000000000000000000000001"),
    decimal.Decimal("0"),
    decimal.Decimal("1.5"),
    decimal.Decimal("-1.25"),
]


def connect_binary(server, db):
    return mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                   database=db, use_pure=True, autocommit=True, ssl_disabled=True)


def q30(d):
    return d.quantize(decimal.Decimal(1).scaleb(-30))


def test_text_protocol_65_digits(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE w (k DECIMAL(65,30) PRIMARY KEY, v DECIMAL(40,10), n INT)")
    for i, v in enumerate(VALUES):
        big = decimal.Decimal(i) * decimal.Decimal("123456789012345678901234567890.0123456789")
        cur.execute("INSERT INTO w VALUES (%s, %s, %s)", (v, big, i))
    # read back exactly, in index order (ascending and descending)
    cur.execute("SELECT k FROM w ORDER BY k")
    got = [r[0] for r in cur.fetchall()]
    assert got == sorted(q30(v) for v in VALUES)
    assert all(isinstance(g, decimal.Decimal) for g in got)
    assert str(got[-1]) == str(MAX)
    cur.execute("SELECT k FROM w WHERE k > 0 ORDER BY k DESC")
    assert [r[0] for r in cur.fetchall()] == sorted((q30(v) for v in VALUES if v > 0), reverse=True)
    cur.execute("SELECT k FROM w WHERE k BETWEEN %s AND %s ORDER BY k", (-1, 1))
    assert [r[0] for r in cur.fetchall()] == sorted(q30(v) for v in VALUES if -1 <= v <= 1)
    # exact SUM over 65-digit values (no rounding through doubles)
    cur.execute("SELECT SUM(k), SUM(v), COUNT(*) FROM w")
    s_k, s_v, n = cur.fetchone()
    assert s_k == q30(sum(VALUES))
    cur.execute("SELECT v FROM w")
    assert s_v == sum(r[0] for r in cur.fetchall())
    assert n == len(VALUES)
    # point lookup through the key codec
    cur.execute("SELECT n FROM w WHERE k = %s", (VALUES[2],))
    assert cur.fetchone()[0] == 2


def test_binary_protocol_65_digits(server, db):
    _, name = db
    c = connect_binary(server, name)
    cur = c.cursor(prepared=True)
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY, d DECIMAL(65,30))")
    for i, v in enumerate(VALUES):
        cur.execute("INSERT INTO b VALUES (?, ?)", (i, v))
    cur.execute("SELECT d FROM b WHERE id = ?", (0,))
    assert decimal.Decimal(str(cur.fetchall()[0][0])) == MAX
    cur.execute("SELECT d FROM b ORDER BY d")
    got = [decimal.Decimal(str(r[0])) for r in cur.fetchall()]
    assert got == sorted(VALUES)
    cur.execute("SELECT SUM(d), AVG(d) FROM b WHERE d > ?", (decimal.Decimal("0.5"),))
    s, avg = cur.fetchall()[0]
    pos = [v for v in VALUES if v > decimal.Decimal("0.5")]
    assert decimal.Decimal(str(s)) == sum(pos)
    # AVG shows scale + 4 digits, capped at 30
    assert decimal.Decimal(str(avg)) == (sum(pos) / len(pos)).quantize(decimal.Decimal("1e-30"), rounding=decimal.ROUND_DOWN)
    cur.execute("SELECT d + 1, d * 2 FROM b WHERE d = ?", (VALUES[3],))
    got = cur.fetchall()[0]
    assert decimal.Decimal(str(got[0])) == VALUES[3] + 1
    assert decimal.Decimal(str(got[1])) == VALUES[3] * 2
    c.close()


def test_division_precision(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("SELECT 1/3*3, 1/3, 10/4, 2/3, ROUND(1/3, 8)")
    assert [str(x) for x in cur.fetchone()] == ["1.0000", "0.3333", "2.5000", "0.6667", "0.33333333"]
    cur.execute("SET div_precision_increment = 10")
    cur.execute("SELECT 1/3, 1.5/7")
    assert [str(x) for x in cur.fetchone()] == ["0.3333333333", "0.21428571429"]
    cur.execute("SET div_precision_increment = 0")
    cur.execute("SELECT 10/4, 2/3")
    assert [str(x) for x in cur.fetchone()] == ["2", "0"]


def test_overflow_and_cast_errors(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE o (d DECIMAL(65,30))")
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("INSERT INTO o VALUES (1e36)")
    assert e.value.args[0] == 1264
    cur.execute("SET sql_mode = ''")
    cur.execute("INSERT INTO o VALUES (1e36)")
    cur.execute("SHOW WARNINGS")
    assert cur.fetchall()[0][1] == 1264
    cur.execute("SELECT d FROM o")
    assert cur.fetchone()[0] == MAX
    cur.execute("SET sql_mode = DEFAULT")
    # 81 integer digits is the most an intermediate result holds
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("SELECT " + "9" * 65 + " * " + "9" * 65)
    assert e.value.args[0] == 1690
    for sql, code in [("SELECT CAST(1 AS DECIMAL(66,2))", 1426),
                      ("SELECT CAST(1 AS DECIMAL(40,31))", 1425),
                      ("SELECT CAST(1 AS DECIMAL(2,3))", 1427),
                      ("CREATE TABLE bad (d DECIMAL(66,2))", 1426),
                      ("CREATE TABLE bad (d DECIMAL(5,6))", 1427)]:
        with pytest.raises(pymysql.err.MySQLError) as e:
            cur.execute(sql)
        assert e.value.args[0] == code, sql
    cur.execute("SELECT CAST(1000 AS DECIMAL(3,1)), CAST('1e40' AS DECIMAL(65,2))")
    a, b = cur.fetchone()
    assert str(a) == "99.9" and b == decimal.Decimal("1e40")


def test_string_number_comparison_warning(server, db):
    """'10abc' = 10 is true with warning 1292; in a strict-mode UPDATE/DELETE it is an error."""
    c, _ = db
    cur = c.cursor()
    cur.execute("SELECT '10abc' = 10, 'x' < 1, '10' = 10")
    assert cur.fetchone() == (1, 1, 1)
    cur.execute("SHOW WARNINGS")
    assert [(r[1], r[2]) for r in cur.fetchall()] == [
        (1292, "Truncated incorrect DOUBLE value: '10abc'"),
        (1292, "Truncated incorrect DOUBLE value: 'x'"),
    ]
    cur.execute("CREATE TABLE s (v VARCHAR(10))")
    cur.execute("INSERT INTO s VALUES ('abc'), ('1')")
    cur.execute("SELECT v FROM s WHERE v = 0")
    assert cur.fetchall() == (("abc",),)
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("UPDATE s SET v = 'x' WHERE v = 0")
    assert e.value.args[0] == 1292
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("DELETE FROM s WHERE v = 1")
    assert e.value.args[0] == 1292
    cur.execute("SELECT v FROM s ORDER BY v")
    assert cur.fetchall() == (("1",), ("abc",))
    cur.execute("SET sql_mode = ''")
    cur.execute("UPDATE s SET v = 'x' WHERE v = 0")
    assert cur.rowcount == 1
    cur.execute("SHOW WARNINGS")
    assert cur.fetchall()[0][1] == 1292
    cur.execute("SET sql_mode = DEFAULT")
