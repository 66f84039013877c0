"""End-to-end SQL behaviour over the wire with PyMySQL (text protocol)."""
import datetime
import decimal
import threading

import pymysql
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, sql)
    return e.value.args[0]


def in_thread(c, sql, result, key):
    """Runs `sql` on `c` in a new thread, started and returned; result[key] becomes "ok" or the
    MySQL error code."""
    def run():
        try:
            q(c, sql)
            result[key] = "ok"
        except pymysql.MySQLError as e:
            result[key] = e.args[0]

    t = threading.Thread(target=run)
    t.start()
    return t


def test_connect_and_version(server):
    c = server.connect()
    (v,) = q(c, "SELECT @@version")[0]
    assert v.startswith("8.4.")
    assert q(c, "SELECT 1 + 1, 'a', NULL") == ((2, "a", None),)
    assert q(c, "SELECT @@autocommit, @@max_allowed_packet")[0][1] > 0


def test_databases(server):
    c = server.connect()
    q(c, "CREATE DATABASE IF NOT EXISTS e2e_dbs")
    assert err(c, "CREATE DATABASE e2e_dbs") == 1007
    names = [r[0] for r in q(c, "SHOW DATABASES")]
    assert "e2e_dbs" in names and "information_schema" in names
    q(c, "USE e2e_dbs")
    assert q(c, "SELECT DATABASE()") == (("e2e_dbs",),)
    q(c, "DROP DATABASE e2e_dbs")
    assert err(c, "DROP DATABASE e2e_dbs") == 1008
    assert err(c, "USE e2e_dbs") == 1049
    q(c, "DROP DATABASE IF EXISTS e2e_dbs")
    assert q(c, "SHOW WARNINGS") == (("Note", 1008, "Can't drop database 'e2e_dbs'; database doesn't exist"),)
    q(c, "CREATE SCHEMA IF NOT EXISTS information_schema")
    assert q(c, "SHOW WARNINGS")[0][:2] == ("Note", 1007)


def test_create_table_types_roundtrip(db):
    c, _ = db
    q(c, """CREATE TABLE t (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
        ti TINYINT, si SMALLINT UNSIGNED, bi BIGINT,
        d DECIMAL(15,7) DEFAULT '0.0000000', f FLOAT, db DOUBLE,
        ch CHAR(10), vc VARCHAR(255), tx TEXT,
        bn BINARY(4), vb VARBINARY(16), bl BLOB,
        dt DATE, tm TIME, dtm DATETIME(6), ts TIMESTAMP NULL, yr YEAR,
        en ENUM('a','b','c'), bo BOOL
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4""")
    q(c, """INSERT INTO t (ti, si, bi, d, f, db, ch, vc, tx, bn, vb, bl, dt, tm, dtm, ts, yr, en, bo)
            VALUES (-128, 65535, -9223372036854775808, 12345678.1234567, 1.5, 2.25, 'abc', 'héllo wörld ✓', 'long text',
                    'ab', x'00ff', x'deadbeef', '2024-02-29', '-12:34:56', '2024-01-02 03:04:05.123456',
                    '2024-01-02 03:04:05', 2024, 'b', TRUE)""")
    row = q(c, "SELECT * FROM t")[0]
    assert row[0] == 1
    assert row[1:4] == (-128, 65535, -9223372036854775808)
    assert row[4] == decimal.Decimal("12345678.1234567")
    assert row[5] == 1.5 and row[6] == 2.25
    assert row[7:10] == ("abc", "héllo wörld ✓", "long text")
    assert row[10] == b"ab\x00\x00" and row[11] == b"\x00\xff" and row[12] == b"\xde\xad\xbe\xef"
    assert row[13] == datetime.date(2024, 2, 29)
    assert row[14] == -datetime.timedelta(hours=12, minutes=34, seconds=56)
    assert row[15] == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    assert row[16] == datetime.datetime(2024, 1, 2, 3, 4, 5)
    assert row[17] == 2024 and row[18] == "b" and row[19] == 1
    assert err(c, "CREATE TABLE t (a INT)") == 1050
    q(c, "CREATE TABLE IF NOT EXISTS t (a INT)")


def test_show_create_table_and_describe(db):
    c, _ = db
    q(c, "CREATE TABLE s (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT '0', c CHAR(120) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k)) ENGINE=InnoDB")
    (_, ddl), = q(c, "SHOW CREATE TABLE s")
    assert ddl.startswith("CREATE TABLE `s` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `k` int NOT NULL DEFAULT '0',")
    assert "PRIMARY KEY (`id`)" in ddl and "KEY `k_1` (`k`)" in ddl and ddl.endswith("COLLATE=utf8mb4_0900_ai_ci")
    desc = q(c, "DESCRIBE s")
    assert desc[0] == ("id", "int", "NO", "PRI", None, "auto_increment")
    assert desc[1] == ("k", "int", "NO", "MUL", "0", "")
    assert [r[0] for r in q(c, "SHOW TABLES")] == ["s"]
    idx = q(c, "SHOW INDEX FROM s")
    assert [(r[2], r[4]) for r in idx] == [("PRIMARY", "id"), ("k_1", "k")]


def test_insert_variants_and_affected_rows(db):
    c, _ = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT DEFAULT 7)")
    cur = c.cursor()
    assert cur.execute("INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')") == 3
    assert err(c, "INSERT INTO t (id, v) VALUES (1, 'dup')") == 1062
    assert cur.execute("INSERT IGNORE INTO t (id, v) VALUES (1, 'x'), (4, 'd')") == 1
    assert q(c, "SHOW WARNINGS")[0][1] == 1062
    assert cur.execute("INSERT INTO t (id, v) VALUES (1, 'z') ON DUPLICATE KEY UPDATE v = VALUES(v)") == 2
    assert cur.execute("INSERT INTO t (id, v) VALUES (1, 'z') ON DUPLICATE KEY UPDATE v = 'z'") == 0
    # a bare column name is the existing row's (as MySQL), VALUES(col) the inserted row's
    assert cur.execute("INSERT INTO t (id, v) VALUES (1, 'y') ON DUPLICATE KEY UPDATE v = CONCAT(v, VALUES(v))") == 2
    assert cur.execute("INSERT INTO t (id, v) VALUES (1, 'z') ON DUPLICATE KEY UPDATE v = SUBSTR(t.v, 1, 1)") == 2
    assert err(c, "INSERT INTO t (id, v) VALUES (1, 'z') ON DUPLICATE KEY UPDATE v = nope") == 1054
    assert cur.execute("REPLACE INTO t (id, v) VALUES (2, 'r')") == 2
    assert cur.execute("REPLACE INTO t (id, v) VALUES (9, 'new')") == 1
    assert q(c, "SELECT id, v, n FROM t ORDER BY id") == ((1, "z", 7), (2, "r", 7), (3, "c", 7), (4, "d", 7), (9, "new", 7))
    assert cur.execute("INSERT INTO t SET id = 10, v = 'set'") == 1
    assert err(c, "INSERT INTO t (id, v) VALUES (1)") == 1136
    assert err(c, "INSERT INTO t (nope) VALUES (1)") == 1054


def test_multi_row_insert_of_literals(db):
    """Rows after the first of a multi-row INSERT of plain literals are built from their tokens
    (sql::literal_rows): every literal spelling stores what the general parser stores, a bad
    row is reported by its number, and rows with expressions still work."""
    c, _ = db
    q(c, "CREATE TABLE lit (id INT PRIMARY KEY, d DECIMAL(10,3), f DOUBLE, s VARCHAR(40))")
    cur = c.cursor()
    sql = (
        "INSERT INTO lit VALUES (1, 1.5, 1e3, 'first'),\n"
        " (-2, -0.125, -2.5E-1, 'it''s'), /* a comment */ (3, - 7, .5, \"double\"),"
        " (4, NULL, NULL, NULL), (5, 0, 0, 'tab\\there \\\\ ü€'), (6, 12345.678, 18446744073709551615, '')"
    )
    assert cur.execute(sql) == 6
    assert q(c, "SELECT id, d, f, s FROM lit ORDER BY id") == (
        (-2, decimal.Decimal("-0.125"), -0.25, "it's"),
        (1, decimal.Decimal("1.500"), 1000.0, "first"),
        (3, decimal.Decimal("-7.000"), 0.5, "double"),
        (4, None, None, None),
        (5, decimal.Decimal("0.000"), 0.0, "tab\there \\ ü€"),
        (6, decimal.Decimal("12345.678"), 18446744073709551615.0, ""),
    )
    # the same rows through the general parser (an expression in the last row) store the same
    q(c, "CREATE TABLE lit2 LIKE lit")
    general = sql.replace("(6, 12345.678", "(6, 12345.678 + 0").replace("INTO lit ", "INTO lit2 ")
    assert cur.execute(general) == 6
    assert q(c, "SELECT * FROM lit ORDER BY id") == q(c, "SELECT * FROM lit2 ORDER BY id")
    # a short row among the literal ones: 1136 with its row number, nothing inserted
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, "INSERT INTO lit VALUES (10, 1, 1, 'a'), (11, 1, 1, 'b'), (12, 1, 1)")
    assert e.value.args[0] == 1136 and "row 3" in e.value.args[1], e.value.args
    assert q(c, "SELECT COUNT(*) FROM lit WHERE id >= 10") == ((0,),)
    assert cur.execute("REPLACE INTO lit (id, s) VALUES (1, 'x'), (20, 'y'), (21, 'z')") == 4


def test_bulk_insert_rows_read_from_the_text(server, db):
    """Bulk INSERTs of 256 bytes or more have their later rows read straight from the text
    (literal_rows::parse_text): what they store equals what the general parser stores, across
    line breaks, unicode, negative and exponent numbers, NULL and double-quoted strings; a
    short row is reported by its number; under ANSI_QUOTES a double-quoted value is a column
    name, as the token path reads it."""
    c, name = db
    q(c, "CREATE TABLE bt (id INT PRIMARY KEY, d DECIMAL(12,3), f DOUBLE, s VARCHAR(60))")
    rows = []
    for i in range(1, 41):
        s = ["'plain'", "'ü€ snow\n☃'", '"dq"', "NULL", "''"][i % 5]
        d = ["-7", "12345.678", "0.5", "- 3", "NULL"][i % 5]
        f = ["1e3", "-2.5E-1", "18446744073709551615", "-12.5e+3", "0"][i % 5]
        rows.append(f"({i}, {d}, {f}, {s})")
    sql = "INSERT INTO bt VALUES " + rows[0] + ",\n" + ",\r\n  ".join(rows[1:])
    assert len(sql) >= 256
    cur = c.cursor()
    assert cur.execute(sql) == 40
    # the same rows through the general parser (an expression in the last row)
    q(c, "CREATE TABLE bt2 LIKE bt")
    general = sql.replace("INTO bt ", "INTO bt2 ").replace("(40, ", "(39 + 1, ")
    assert cur.execute(general) == 40
    assert q(c, "SELECT * FROM bt ORDER BY id") == q(c, "SELECT * FROM bt2 ORDER BY id")
    assert q(c, "SELECT s FROM bt WHERE id IN (1, 2, 3, 4, 5) ORDER BY id") == (
        ("ü€ snow\n☃",), ("dq",), (None,), ("",), ("plain",))
    assert q(c, "SELECT d, f FROM bt WHERE id = 3") == ((decimal.Decimal("-3.000"), -12500.0),)
    # a short row deep in a long statement: 1136 naming it, nothing inserted
    bad = "INSERT INTO bt VALUES " + ", ".join(f"({100 + i}, 1, 1, 'x')" for i in range(30)) + ", (200, 1, 1)"
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, bad)
    assert e.value.args[0] == 1136 and "row 31" in e.value.args[1], e.value.args
    assert q(c, "SELECT COUNT(*) FROM bt WHERE id >= 100") == ((0,),)
    # ANSI_QUOTES: "dq" names a column, so the statement fails as in MySQL (1054)
    q(c, "SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
    long_dq = "INSERT INTO bt VALUES " + ", ".join(f"({300 + i}, 1, 1, 'x')" for i in range(20)) + ', (400, 1, 1, "dq")'
    assert err(c, long_dq) == 1054
    assert q(c, "SELECT COUNT(*) FROM bt WHERE id >= 300") == ((0,),)


def test_auto_increment_and_last_insert_id(db):
    c, _ = db
    q(c, "CREATE TABLE a (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)")
    cur = c.cursor()
    cur.execute("INSERT INTO a (v) VALUES (1)")
    assert cur.lastrowid == 1
    cur.execute("INSERT INTO a (v) VALUES (2), (3)")
    assert cur.lastrowid == 2
    assert q(c, "SELECT LAST_INSERT_ID()") == ((2,),)
    cur.execute("INSERT INTO a (id, v) VALUES (100, 4)")
    cur.execute("INSERT INTO a (v) VALUES (5)")
    assert cur.lastrowid == 101
    cur.execute("INSERT INTO a (id, v) VALUES (NULL, 6)")
    assert cur.lastrowid == 102


def test_growing_primary_keys_still_find_duplicates(server, db):
    """An insert above every primary key written so far skips its duplicate read; check that
    every way a key can already exist is still found (1062) and that nothing is overwritten:
    explicit keys, a row an UPDATE moved up, a key another transaction is inserting, a
    partitioned table, a rebuilt table and time-ordered UUID keys."""
    c, name = db
    q(c, "CREATE TABLE g (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT, KEY kv (v))")
    q(c, "INSERT INTO g (v) VALUES " + ", ".join(f"({i})" for i in range(1, 101)))
    q(c, "INSERT INTO g (id, v) VALUES (1000, -1)")
    for dup in (1000, 50, 1):
        assert err(c, f"INSERT INTO g (id, v) VALUES ({dup}, 0)") == 1062
    q(c, "INSERT INTO g (v) VALUES (101)")
    assert q(c, "SELECT LAST_INSERT_ID()") == ((1001,),)
    # an UPDATE that moves a row above every key
    q(c, "UPDATE g SET id = 5000 WHERE id = 7")
    assert err(c, "INSERT INTO g (id, v) VALUES (5000, 0)") == 1062
    # a second writer of the same new key waits for the first, then gets 1062
    a, b = server.connect(db=name), server.connect(db=name)
    q(a, "BEGIN")
    q(a, "INSERT INTO g (id, v) VALUES (6000, 6000)")
    result = {}
    t = in_thread(b, "INSERT INTO g (id, v) VALUES (6000, 0)", result, "b")
    t.join(0.3)
    assert t.is_alive()  # waiting for a's lock
    q(a, "COMMIT")
    t.join(15)
    assert result == {"b": 1062}
    # REPLACE of a key at the top replaces it
    q(c, "REPLACE INTO g (id, v) VALUES (6000, 6001)")
    assert q(c, "SELECT COUNT(*), MAX(id) FROM g") == ((103, 6000),)
    assert q(c, "SELECT v FROM g WHERE id IN (5000, 6000) ORDER BY id") == ((7,), (6001,))
    assert q(c, "SELECT COUNT(*) FROM g WHERE v = 7") == ((1,),)  # one index entry, no stray
    # the table rebuilt by ALTER reads its greatest key afresh
    q(c, "ALTER TABLE g ADD COLUMN w INT FIRST")
    assert err(c, "INSERT INTO g (id, v) VALUES (6000, 0)") == 1062
    q(c, "INSERT INTO g (v) VALUES (102)")
    assert q(c, "SELECT LAST_INSERT_ID()") == ((6001,),)
    # each partition of a partitioned table keeps its own keys
    q(c, "CREATE TABLE p (id INT AUTO_INCREMENT PRIMARY KEY, v INT) PARTITION BY HASH(id) PARTITIONS 4")
    q(c, "INSERT INTO p (v) VALUES " + ", ".join(f"({i})" for i in range(1, 41)))
    for dup in (40, 37, 2, 3):
        assert err(c, f"INSERT INTO p (id, v) VALUES ({dup}, 0)") == 1062
    q(c, "UPDATE p SET id = 100 WHERE id = 5")
    assert err(c, "INSERT INTO p (id, v) VALUES (100, 0)") == 1062
    q(c, "INSERT INTO p (id, v) VALUES (99, 0), (101, 0)")
    assert q(c, "SELECT COUNT(*), SUM(v) FROM p") == ((42, sum(range(1, 41))),)
    # time-ordered UUIDs grow too
    q(c, "CREATE TABLE u (id BINARY(16) PRIMARY KEY, n INT)")
    for n in range(20):
        q(c, "INSERT INTO u VALUES (UUID_TO_BIN(UUID(), 1), %s)", (n,))
    assert err(c, "INSERT INTO u SELECT id, 99 FROM u WHERE n = 19") == 1062
    assert err(c, "INSERT INTO u SELECT id, 99 FROM u WHERE n = 3") == 1062
    assert q(c, "SELECT COUNT(*), SUM(n) FROM u") == ((20, sum(range(20))),)
    a.close(); b.close()


def test_update_delete_order_limit(db):
    c, _ = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k (k))")
    cur = c.cursor()
    cur.executemany("INSERT INTO t VALUES (%s, %s, %s)", [(i, i % 3, f"c{i}") for i in range(1, 21)])
    assert cur.execute("UPDATE t SET k = k + 10 WHERE id <= 5") == 5
    assert cur.execute("UPDATE t SET c = c WHERE id = 1") == 0
    assert cur.execute("UPDATE t SET c = 'x' ORDER BY id DESC LIMIT 2") == 2
    assert q(c, "SELECT id FROM t WHERE c = 'x' ORDER BY id") == ((19,), (20,))
    assert cur.execute("DELETE FROM t WHERE k = 0") == 5  # 6, 9, 12, 15, 18 (3 became 10)
    assert cur.execute("DELETE FROM t ORDER BY id LIMIT 3") == 3
    assert q(c, "SELECT COUNT(*) FROM t") == ((12,),)
    assert cur.execute("UPDATE t SET k = 1, c = CONCAT(c, '!') WHERE id IN (7, 8, 99)") == 2


def test_select_surface(db):
    c, _ = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, g VARCHAR(5), k INT, KEY gk (g, k))")
    c.cursor().executemany("INSERT INTO t VALUES (%s, %s, %s)", [(i, "ab"[i % 2], i * 10) for i in range(1, 11)])
    assert q(c, "SELECT id FROM t WHERE id BETWEEN 3 AND 5") == ((3,), (4,), (5,))
    assert q(c, "SELECT id FROM t WHERE id IN (2, 4, 42) ORDER BY id DESC") == ((4,), (2,))
    assert q(c, "SELECT g, COUNT(*), SUM(k), MIN(k), MAX(k), AVG(k) FROM t GROUP BY g") == (
        ("a", 5, decimal.Decimal(300), 20, 100, decimal.Decimal("60.0000")),
        ("b", 5, decimal.Decimal(250), 10, 90, decimal.Decimal("50.0000")))
    assert q(c, "SELECT g, COUNT(*) c FROM t GROUP BY g HAVING c > 4 ORDER BY g DESC") == (("b", 5), ("a", 5))
    assert q(c, "SELECT DISTINCT g FROM t ORDER BY g") == (("a",), ("b",))
    assert q(c, "SELECT id FROM t ORDER BY k DESC LIMIT 2 OFFSET 1") == ((9,), (8,))
    assert q(c, "SELECT id FROM t ORDER BY id LIMIT 7, 2") == ((8,), (9,))
    assert q(c, "SELECT id FROM t WHERE g = 'A' AND k >= 80") == ((8,), (10,))
    assert q(c, "SELECT COUNT(*) FROM t WHERE k IS NULL OR id < 3") == ((2,),)
    assert q(c, "SELECT id, k FROM t WHERE id = '3'") == ((3, 30),)
    assert q(c, "SELECT COUNT(*), SUM(k) FROM t WHERE id > 100") == ((0, None),)
    assert q(c, "SELECT id FROM t WHERE g LIKE 'b%' AND id < 4") == ((1,), (3,))


def test_error_codes(db):
    c, name = db
    assert err(c, "SELECT * FROM nope") == 1146
    assert err(c, "SELEC 1") == 1064
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, v TINYINT NOT NULL)")
    assert err(c, "SELECT nope FROM t") == 1054
    assert err(c, "INSERT INTO t VALUES (1, NULL)") == 1048
    assert err(c, "INSERT INTO t VALUES (1, 300)") == 1264
    assert err(c, "INSERT INTO t (id) VALUES (1)") == 1364
    assert err(c, "SET @@nope = 1") == 1193
    assert err(c, "DROP TABLE nope") == 1051
    # the connection is still usable after errors
    assert q(c, "SELECT 1") == ((1,),)


def test_non_strict_mode_warnings(db):
    c, _ = db
    q(c, "SET sql_mode = ''")
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, v TINYINT, s VARCHAR(3))")
    cur = c.cursor()
    cur.execute("INSERT INTO t VALUES (1, 300, 'abcdef')")
    codes = sorted(r[1] for r in q(c, "SHOW WARNINGS"))
    assert codes == [1264, 1265]
    assert q(c, "SELECT @@warning_count") == ((2,),)
    assert q(c, "SELECT v, s FROM t") == ((127, "abc"),)
    assert q(c, "SHOW WARNINGS") == ()


def test_transactions(server, db):
    c, name = db
    q(c, "CREATE TABLE acct (id INT PRIMARY KEY, bal INT)")
    q(c, "INSERT INTO acct VALUES (1, 100), (2, 100)")
    q(c, "BEGIN")
    q(c, "UPDATE acct SET bal = bal - 10 WHERE id = 1")
    q(c, "ROLLBACK")
    assert q(c, "SELECT bal FROM acct WHERE id = 1") == ((100,),)
    q(c, "START TRANSACTION")
    q(c, "UPDATE acct SET bal = bal - 10 WHERE id = 1")
    q(c, "SAVEPOINT sp1")
    q(c, "UPDATE acct SET bal = bal + 10 WHERE id = 2")
    q(c, "ROLLBACK TO SAVEPOINT sp1")
    q(c, "COMMIT")
    assert q(c, "SELECT bal FROM acct ORDER BY id") == ((90,), (100,))
    # a failed statement inside a transaction rolls back only itself
    q(c, "BEGIN")
    q(c, "INSERT INTO acct VALUES (3, 1)")
    assert err(c, "INSERT INTO acct VALUES (4, 1), (1, 1)") == 1062
    q(c, "COMMIT")
    assert q(c, "SELECT id FROM acct ORDER BY id") == ((1,), (2,), (3,))
    # snapshot isolation (REPEATABLE READ): a concurrent commit is not seen until COMMIT
    c2 = server.connect(db=name)
    q(c, "BEGIN")
    assert q(c, "SELECT bal FROM acct WHERE id = 2") == ((100,),)
    q(c2, "UPDATE acct SET bal = 5 WHERE id = 2")
    assert q(c, "SELECT bal FROM acct WHERE id = 2") == ((100,),)
    q(c, "COMMIT")
    assert q(c, "SELECT bal FROM acct WHERE id = 2") == ((5,),)
    # READ COMMITTED sees it per statement
    q(c, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    q(c, "BEGIN")
    assert q(c, "SELECT bal FROM acct WHERE id = 2") == ((5,),)
    q(c2, "UPDATE acct SET bal = 6 WHERE id = 2")
    assert q(c, "SELECT bal FROM acct WHERE id = 2") == ((6,),)
    q(c, "COMMIT")
    assert q(c, "SELECT @@transaction_isolation") == (("READ-COMMITTED",),)
    c2.close()


def test_row_locks_timeout_and_deadlock(server, db):
    c, name = db
    q(c, "CREATE TABLE r (id INT PRIMARY KEY, v INT)")
    q(c, "INSERT INTO r VALUES (1, 0), (2, 0)")
    a = server.connect(db=name)
    b = server.connect(db=name)
    q(a, "SET innodb_lock_wait_timeout = 1")
    q(b, "SET innodb_lock_wait_timeout = 1")
    q(a, "BEGIN")
    q(a, "SELECT * FROM r WHERE id = 1 FOR UPDATE")
    q(b, "BEGIN")
    assert err(b, "UPDATE r SET v = 1 WHERE id = 1") == 1205
    q(b, "ROLLBACK")
    q(a, "ROLLBACK")
    # deadlock: a locks 1, b locks 2, a wants 2 (waits), b wants 1 -> one gets 1213
    q(a, "SET innodb_lock_wait_timeout = 10")
    q(b, "SET innodb_lock_wait_timeout = 10")
    q(a, "BEGIN"); q(a, "UPDATE r SET v = 1 WHERE id = 1")
    q(b, "BEGIN"); q(b, "UPDATE r SET v = 1 WHERE id = 2")
    result = {}
    t = in_thread(a, "UPDATE r SET v = 2 WHERE id = 2", result, "a")
    import time
    time.sleep(0.3)
    try:
        q(b, "UPDATE r SET v = 2 WHERE id = 1")
        result["b"] = "ok"
    except pymysql.MySQLError as e:
        result["b"] = e.args[0]
    t.join(15)
    assert sorted(map(str, result.values())) == ["1213", "ok"], result
    q(a, "ROLLBACK"); q(b, "ROLLBACK")
    a.close(); b.close()


def test_multi_statements(server):
    c = server.connect(client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    cur = c.cursor()
    cur.execute("SELECT 1; SELECT 2, 3; SET @x = 5; SELECT @x")
    assert cur.fetchall() == ((1,),)
    assert cur.nextset() and cur.fetchall() == ((2, 3),)
    assert cur.nextset()
    assert cur.nextset() and cur.fetchall() == ((5,),)
    assert not cur.nextset()


def test_session_variables_and_show(server):
    c = server.connect()
    q(c, "SET NAMES utf8mb4")
    q(c, "SET autocommit = 0, @a = 'x'")
    assert q(c, "SELECT @@autocommit, @a") == ((0, "x"),)
    q(c, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'")
    assert q(c, "SELECT @@sql_mode") == (("STRICT_TRANS_TABLES",),)
    assert err(c, "SET sql_mode = 'NOPE'") == 1231
    v = dict(q(c, "SHOW VARIABLES LIKE 'max_conn%'"))
    assert v["max_connections"] == "151"
    st = dict(q(c, "SHOW GLOBAL STATUS"))
    assert int(st["Threads_connected"]) >= 1
    assert q(c, "SELECT @@GLOBAL.version_comment")[0][0].startswith("Strata")
    assert err(c, "SET GLOBAL version = 'x'") == 1238


def test_set_global_is_seen_by_sessions_already_running(server):
    # Sessions read global values from a copy taken when a statement starts; a SET GLOBAL
    # from another connection must show in their next statement.
    a, b = server.connect(), server.connect()
    assert q(b, "SELECT @@max_connections, @@GLOBAL.max_connections") == ((151, 151),)
    try:
        q(a, "SET GLOBAL max_connections = 321")
        assert q(b, "SELECT @@max_connections, @@GLOBAL.max_connections") == ((321, 321),)
        assert dict(q(b, "SHOW VARIABLES LIKE 'max_connections'")) == {"max_connections": "321"}
        q(a, "SET GLOBAL max_connections = 322")
        assert q(b, "SELECT @@max_connections") == ((322,),)
    finally:
        q(a, "SET GLOBAL max_connections = 151")
    assert q(b, "SELECT @@max_connections") == ((151,),)


def test_information_schema(db):
    c, name = db
    q(c, "CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(3))")
    rows = q(c, "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s", (name,))
    assert rows == (("t1", "InnoDB"),)
    cols = q(c, "SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s ORDER BY ORDINAL_POSITION", (name,))
    assert cols == (("id", "int", "NO"), ("v", "varchar", "YES"))


def test_drop_truncate_and_indexes(db):
    c, _ = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10), k INT)")
    c.cursor().executemany("INSERT INTO t VALUES (%s, %s, %s)", [(i, f"u{i}", i % 5) for i in range(100)])
    q(c, "CREATE UNIQUE INDEX uu ON t (u)")
    assert err(c, "INSERT INTO t VALUES (1000, 'u5', 0)") == 1062
    q(c, "CREATE INDEX kk ON t (k)")
    assert q(c, "SELECT COUNT(*) FROM t WHERE k = 3") == ((20,),)
    q(c, "DROP INDEX kk ON t")
    assert q(c, "SELECT COUNT(*) FROM t WHERE k = 3") == ((20,),)
    q(c, "TRUNCATE TABLE t")
    assert q(c, "SELECT COUNT(*) FROM t") == ((0,),)
    q(c, "DROP TABLE t")
    assert err(c, "SELECT * FROM t") == 1146
    q(c, "CREATE TABLE t (id INT)")
    assert q(c, "SELECT COUNT(*) FROM t") == ((0,),)
    q(c, "INSERT INTO t VALUES (1), (1), (NULL)")
    assert q(c, "SELECT COUNT(*), COUNT(id) FROM t") == ((3, 2),)


def test_unicode_binary_null_roundtrip(db):
    c, _ = db
    q(c, "CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(50), b VARBINARY(50), n INT)")
    vals = [(1, "日本語 😀", bytes(range(0, 40)), None), (2, "", b"", 0), (3, None, None, None)]
    c.cursor().executemany("INSERT INTO u VALUES (%s, %s, %s, %s)", vals)
    assert q(c, "SELECT * FROM u ORDER BY id") == tuple(vals)
    assert q(c, "SELECT id FROM u WHERE s = %s", ("日本語 😀",)) == ((1,),)
    assert q(c, "SELECT id FROM u WHERE b = %s", (bytes(range(0, 40)),)) == ((1,),)
    assert q(c, "SELECT CHAR_LENGTH(s), LENGTH(s) FROM u WHERE id = 1") == ((5, 14),)


def test_joins(db):
    c, _ = db
    q(c, "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))")
    q(c, "CREATE TABLE orders (id INT PRIMARY KEY AUTO_INCREMENT, customer_id INT, total DECIMAL(8,2), KEY cust (customer_id))")
    q(c, "INSERT INTO customers VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')")
    q(c, "INSERT INTO orders (customer_id, total) VALUES (1, 10.50), (1, 4.50), (2, 7.00)")
    assert q(c, "SELECT c.name, o.total FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id") == (
        ("ann", decimal.Decimal("10.50")), ("ann", decimal.Decimal("4.50")), ("bob", decimal.Decimal("7.00")))
    assert q(c, "SELECT c.name, COUNT(o.id), SUM(o.total) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY c.name") == (
        ("ann", 2, decimal.Decimal("15.00")), ("bob", 1, decimal.Decimal("7.00")), ("cy", 0, None))
    assert q(c, "SELECT c.id FROM customers c, orders o WHERE o.customer_id = c.id AND o.total > %s", (5,)) == ((1,), (2,))
    assert err(c, "SELECT id FROM customers JOIN orders ON customer_id = customers.id") == 1052
