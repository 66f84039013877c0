"""Python MySQL drivers end to end against a real Strata: PyMySQL, mysql-connector-python (pure
Python and C extension, text and server-side prepared cursors) and mysqlclient (MySQLdb).

Every driver runs the same checks: connect, DDL, DML with parameters of every common type (integer
extremes incl. unsigned, DECIMAL, FLOAT/DOUBLE, temporal types, unicode incl. 4-byte emoji,
arbitrary bytes, NULL, BOOL, JSON), executemany, transactions (commit and rollback, seen from a
second connection), MySQL error codes surfaced as the driver's exception classes, and
NULL/unicode/binary round trips through parameters.
"""
import datetime
import decimal
import json
import os

import pytest

REQUIRE = os.environ.get("STRATA_REQUIRE_CLIENTS") == "1"


def _import(name):
    """Imports a driver; a missing driver skips its tests unless STRATA_REQUIRE_CLIENTS=1 (./x test
    installs all of them from tests/e2e/requirements.txt)."""
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        if REQUIRE:
            raise
        pytest.skip(f"{name} not installed")


# mysqlclient and mysql-connector's C extension run in the test's own process (see conftest)
pytestmark = pytest.mark.own_process

class Driver:
    """How one driver connects and which exception classes it raises."""

    def __init__(self, name):
        self.name = name
        self.opened = []

    def close_all(self):
        for c in self.opened:
            try:
                c.close()
            except Exception:
                pass

    def module(self):
        return _import({"pymysql": "pymysql", "mysqlclient": "MySQLdb"}.get(self.name, "mysql.connector"))

    def connect(self, server, db, autocommit=True):
        c = self._connect(server, db, autocommit)
        self.opened.append(c)
        return c

    def _connect(self, server, db, autocommit):
        m = self.module()
        base = dict(host="127.0.0.1", port=server.port, user="root", password="")
        if self.name == "pymysql":
            return m.connect(database=db, charset="utf8mb4", autocommit=autocommit, **base)
        if self.name == "mysqlclient":
            c = m.connect(database=db, charset="utf8mb4", **base)
            c.autocommit(autocommit)
            return c
        pure = self.name.startswith("connector-pure")
        if not pure:
            from mysql.connector import HAVE_CEXT
            if not HAVE_CEXT:
                pytest.fail("mysql-connector-python C extension is not available")
        c = m.connect(database=db, use_pure=pure, autocommit=autocommit, ssl_disabled=True,
                      charset="utf8mb4", collation="utf8mb4_0900_ai_ci", **base)
        if not pure:
            from mysql.connector.connection_cext import CMySQLConnection
            assert isinstance(c, CMySQLConnection)
        return c

    def rows(self):
        """ROWS as this driver can send them. mysql-connector's C extension binds every Python
        int as a signed LONGLONG in prepared statements, so values above 2^63-1 cannot be sent
        (MySQL and MariaDB refuse the wrapped value the same way); it gets the signed maximum."""
        if self.name != "connector-cext-prepared":
            return ROWS
        # it also binds every float as a 4-byte FLOAT, so DOUBLE gets values exact in binary32
        r1, r2 = list(ROWS[0]), list(ROWS[1])
        r1[5], r1[8], r2[8] = 9223372036854775807, -2.25, 16777216.0
        # and it sends a timedelta as a zero TIME with garbage microseconds (MariaDB misreads it too)
        r2[11] = "838:59:59"
        return [tuple(r1), tuple(r2)] + ROWS[2:]

    def raises(self, cls):
        """pytest.raises for a server error. mysql-connector's C extension raises InterfaceError
        without errno for every prepared-statement execution error (client code; the same with
        MySQL and MariaDB), so there only the message is checked."""
        if self.name == "connector-cext-prepared":
            return pytest.raises(self.module().InterfaceError)
        return pytest.raises(cls)

    def check(self, e, errno, text=""):
        if self.name == "connector-cext-prepared":
            assert text in str(e)
            return
        assert self.errno(e) == errno, e
        assert text in str(e)

    def cursor(self, conn):
        if self.name == "connector-cext-prepared":
            return _CextPreparedCursor(conn.cursor(prepared=True))
        if self.name.endswith("-prepared"):
            return conn.cursor(prepared=True)
        return conn.cursor()

    def errors(self):
        """(base error, IntegrityError, ProgrammingError) of the driver."""
        m = self.module()
        return m.Error, m.IntegrityError, m.ProgrammingError

    def errno(self, e):
        return e.errno if self.name.startswith("connector") else e.args[0]


DRIVERS = ["pymysql", "connector-pure", "connector-pure-prepared", "connector-cext",
           "connector-cext-prepared", "mysqlclient"]


@pytest.fixture(params=DRIVERS)
def drv(request, db):
    """The driver under test; connections it opened are closed before the test's database is
    dropped (an assertion failure must not leave a transaction holding metadata locks)."""
    d = Driver(request.param)
    yield d
    d.close_all()


def norm(v):
    """Driver-neutral form of a fetched value: bytearray -> bytes."""
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def text(v):
    """A text column's value; some cursors hand back bytes for TEXT/JSON."""
    v = norm(v)
    return v.decode("utf-8") if isinstance(v, bytes) else v


class _CextPreparedCursor:
    """mysql-connector's C extension (9.1) binds a decimal.Decimal parameter at position i by
    writing the type into binding 2*i instead of i (`mbind[i]` on a pointer already at binding i,
    in MySQLPrepStmt_execute). When 2*i is past the last parameter that write lands outside the
    array and corrupts the client's heap: valgrind shows the invalid 4-byte write, and CI saw the
    test process abort ("corrupted size vs. prev_size") with the server unaffected. The
    binding's own type stays right by luck (zeroed memory is MYSQL_TYPE_DECIMAL). So such a
    Decimal is sent as its text, which the server converts the same way; a Decimal at a
    position where the stray write stays inside the array (and is overwritten by the later
    binding's own type) is still sent as a DECIMAL parameter."""

    def __init__(self, cur):
        self._cur = cur

    @staticmethod
    def _safe(args):
        if args is None:
            return args
        n = len(args)
        return tuple(str(v) if isinstance(v, decimal.Decimal) and 2 * i >= n else v
                     for i, v in enumerate(args))

    def execute(self, sql, args=None):
        return self._cur.execute(sql, self._safe(args))

    def executemany(self, sql, seq):
        return self._cur.executemany(sql, [self._safe(a) for a in seq])

    def __getattr__(self, name):
        return getattr(self._cur, name)


ALL_BYTES = bytes(range(256))
EMOJI = "héllo wörld 日本語 😀🎉 \U0001F9D1\u200D\U0001F680"
# (id, tiny, i, u, big, ubig, dec, f, d, dt, dtm, tm, ts, s, t, blob, vb, flag, j)
# A negative TIME goes as text and is checked with TIME_TO_SEC: the drivers themselves encode or
# decode negative timedeltas wrongly (mysqlclient sends '-35 2:0:0', mysql-connector's binary
# protocol sends days and hours separately with one sign; both misread on MySQL as well).
ROWS = [
    (1, -128, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
     decimal.Decimal("-12345678901234.567890"), 1.5, -2.25e-300,
     datetime.date(1000, 1, 1), datetime.datetime(2024, 2, 29, 23, 59, 59, 999999),
     "-838:59:59", datetime.datetime(2038, 1, 19, 3, 14, 7),
     EMOJI, EMOJI * 100, ALL_BYTES, b"\x00\xff\x00'\"\\\n\r\x1a", True, {"k": "😀", "n": [1, 2.5, None]}),
    (2, 127, 2147483647, 0, 9223372036854775807, 0,
     decimal.Decimal("99999999999999.999999"), -3.0e38, 1.7976931348623157e308,
     datetime.date(9999, 12, 31), datetime.datetime(1970, 1, 1, 0, 0, 0, 1),
     datetime.timedelta(hours=838, minutes=59, seconds=59), datetime.datetime(1970, 1, 1, 0, 0, 1),
     "", "", b"", b"", False, []),
    (3,) + (None,) * 18,
]
COLS = "id, tiny, i, u, big, ubig, dec_, f, d, dt, dtm, tm, ts, s, t, bl, vb, flag, j"
DDL = """CREATE TABLE alltypes (
    id INT PRIMARY KEY, tiny TINYINT, i INT, u INT UNSIGNED, big BIGINT, ubig BIGINT UNSIGNED,
    dec_ DECIMAL(20,6), f FLOAT, d DOUBLE, dt DATE, dtm DATETIME(6), tm TIME, ts TIMESTAMP NULL,
    s VARCHAR(100), t TEXT, bl BLOB, vb VARBINARY(64), flag BOOL, j JSON)"""


def params(row):
    """A row as driver parameters: JSON is sent as its text."""
    return row[:-1] + ((None if row[-1] is None else json.dumps(row[-1], ensure_ascii=False)),)


def check_row(got, want):
    got = [norm(v) for v in got]
    assert got[:6] == list(want[:6])
    if want[6] is None:
        assert got[6:] == [None] * 13
        return
    assert decimal.Decimal(got[6]) == want[6]
    assert got[7] == pytest.approx(want[7], rel=1e-6)  # FLOAT is single precision
    assert got[8] == want[8]
    assert got[9:11] == list(want[9:11]) and got[12] == want[12]
    if not isinstance(want[11], str):
        assert got[11] == want[11]
    elif not want[11].startswith("-"):
        assert got[11] == datetime.timedelta(hours=838, minutes=59, seconds=59)
    assert text(got[13]) == want[13] and text(got[14]) == want[14]
    assert got[15] == want[15] and got[16] == want[16]
    assert got[17] == int(want[17])
    assert json.loads(text(got[18])) == want[18]


def test_connect_ddl_and_typed_params(server, db, drv):
    _, name = db
    c = drv.connect(server, name)
    cur = drv.cursor(c)
    cur.execute("SELECT VERSION(), DATABASE(), @@character_set_client")
    version, dbname, cs = (text(v) for v in cur.fetchall()[0])
    assert version.startswith("8.") and dbname == name and cs == "utf8mb4"
    cur.execute(DDL)
    ph = ", ".join(["%s"] * 19)
    rows = drv.rows()
    for row in rows:
        cur.execute(f"INSERT INTO alltypes ({COLS}) VALUES ({ph})", params(row))
        assert cur.rowcount == 1
    cur.execute(f"SELECT {COLS} FROM alltypes ORDER BY id")
    got = cur.fetchall()
    cur2 = c.cursor()
    cur2.execute("SELECT TIME_TO_SEC(tm) FROM alltypes ORDER BY id")
    assert [r[0] if r[0] is None else int(r[0]) for r in cur2.fetchall()] == [-3020399, 3020399, None]
    assert len(got) == 3
    for g, w in zip(got, rows):
        check_row(g, w)
    # every type as a WHERE parameter finds its row
    for col, idx in [("tiny", 1), ("i", 2), ("u", 3), ("big", 4), ("ubig", 5), ("dec_", 6), ("d", 8),
                     ("dt", 9), ("dtm", 10), ("tm", 11), ("ts", 12), ("s", 13), ("bl", 15), ("vb", 16)]:
        cur.execute(f"SELECT id FROM alltypes WHERE {col} = %s ORDER BY id", (rows[0][idx],))
        assert [r[0] for r in cur.fetchall()] == [1], col
    cur.execute("SELECT id FROM alltypes WHERE flag = %s", (False,))
    assert [r[0] for r in cur.fetchall()] == [2]
    cur.execute("SELECT id FROM alltypes WHERE j->>'$.k' = %s", ("😀",))
    assert [r[0] for r in cur.fetchall()] == [1]
    cur.execute("SELECT id FROM alltypes WHERE s IS NULL AND bl IS NULL")
    assert [r[0] for r in cur.fetchall()] == [3]
    # UPDATE / DELETE with parameters and affected-row counts
    cur.execute("UPDATE alltypes SET big = big + %s WHERE id IN (%s, %s)", (-1, 2, 3))
    assert cur.rowcount == 1  # NULL + -1 stays NULL but the row is still matched; MySQL counts changed rows
    cur.execute("SELECT big FROM alltypes WHERE id = 2")
    assert cur.fetchall()[0][0] == 9223372036854775806
    cur.execute("DELETE FROM alltypes WHERE id = %s", (3,))
    assert cur.rowcount == 1
    # executemany
    cur.executemany("INSERT INTO alltypes (id, s, vb) VALUES (%s, %s, %s)",
                    [(10 + k, EMOJI[: k + 1], bytes([k, 0, 255])) for k in range(20)])
    cur.execute("SELECT COUNT(*), SUM(id) FROM alltypes WHERE id >= 10")
    cnt, total = cur.fetchall()[0]
    assert int(cnt) == 20 and int(total) == sum(range(10, 30))
    cur.execute("SELECT vb FROM alltypes WHERE id = %s", (15,))
    assert norm(cur.fetchall()[0][0]) == bytes([5, 0, 255])
    # out-of-range unsigned is refused in strict mode, not wrapped
    Error, _, _ = drv.errors()
    with drv.raises(Error) as e:
        cur.execute("INSERT INTO alltypes (id, u) VALUES (%s, %s)", (99, -1))
    drv.check(e.value, 1264, "Out of range value for column 'u'")
    cur.execute("DROP TABLE alltypes")
    c.close()


def test_param_echo_null_unicode_binary(server, db, drv):
    """Values that never touch a table: parameters come back with the same value and type."""
    _, name = db
    c = drv.connect(server, name)
    cur = drv.cursor(c)
    umax = drv.rows()[0][5]
    cur.execute("SELECT %s, %s, %s, %s, %s, %s", (None, EMOJI, ALL_BYTES, -9223372036854775808,
                                                  decimal.Decimal("-0.000001"), umax))
    n, s, b, big, dec, ubig = (norm(v) for v in cur.fetchall()[0])
    # a bare `?` in the select list is a string column in the prepared-statement metadata, so
    # prepared cursors get numbers as text
    assert n is None and text(s) == EMOJI and int(text(big)) == -9223372036854775808
    # mysql-connector's C extension reads a binary string column of a prepared result as ''
    # (the same with MariaDB); the table round trip below checks binary data there
    assert b == ALL_BYTES or drv.name == "connector-cext-prepared"
    assert decimal.Decimal(text(dec) if isinstance(dec, (bytes, str)) else dec) == decimal.Decimal("-0.000001")
    assert int(text(ubig)) == umax
    cur.execute("SELECT CHAR_LENGTH(%s), LENGTH(%s), HEX(%s)", ("😀", "😀", b"\x00\xff"))
    assert [int(v) if not isinstance(v, (bytes, bytearray, str)) else text(v) for v in cur.fetchall()[0]] == [1, 4, "00FF"]
    cur.execute("CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(50), b VARBINARY(300), n INT)")
    vals = [(1, "日本語 😀", ALL_BYTES, None), (2, "", b"", 0), (3, None, None, None), (4, "\x00a'b\"c\\", b"\x00", -1)]
    cur.executemany("INSERT INTO u VALUES (%s, %s, %s, %s)", vals)
    cur.execute("SELECT id, s, b, n FROM u ORDER BY id")
    got = [tuple(text(v) if i == 1 else norm(v) for i, v in enumerate(r)) for r in cur.fetchall()]
    if drv.name == "connector-cext-prepared":
        # its result reader stops a string at the first NUL; HEX() shows what is stored
        assert got[3][1] == ""
        got[3] = vals[3]
        cur.execute("SELECT HEX(s) FROM u WHERE id = 4")
        assert text(cur.fetchall()[0][0]) == "\x00a'b\"c\\".encode().hex().upper()
    assert got == vals
    cur.execute("SELECT id FROM u WHERE s = %s AND b = %s", ("日本語 😀", ALL_BYTES))
    assert cur.fetchall()[0][0] == 1
    c.close()


def test_transactions_commit_rollback(server, db, drv):
    _, name = db
    c = drv.connect(server, name, autocommit=False)
    other = drv.connect(server, name)
    cur, ocur = drv.cursor(c), drv.cursor(other)
    ocur.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal DECIMAL(10,2))")
    cur.execute("INSERT INTO acct VALUES (%s, %s)", (1, decimal.Decimal("100.50")))
    ocur.execute("SELECT COUNT(*) FROM acct")
    assert ocur.fetchall()[0][0] == 0  # not visible before commit
    c.rollback()
    cur.execute("SELECT COUNT(*) FROM acct")
    assert cur.fetchall()[0][0] == 0
    c.commit()
    cur.execute("INSERT INTO acct VALUES (%s, %s), (%s, %s)", (1, decimal.Decimal("100.50"), 2, decimal.Decimal("-7.25")))
    c.commit()
    ocur.execute("SELECT id, bal FROM acct ORDER BY id")
    assert [(r[0], decimal.Decimal(r[1])) for r in ocur.fetchall()] == [
        (1, decimal.Decimal("100.50")), (2, decimal.Decimal("-7.25"))]
    cur.execute("UPDATE acct SET bal = bal - %s WHERE id = %s", (decimal.Decimal("0.50"), 1))
    cur.execute("DELETE FROM acct WHERE id = %s", (2,))
    c.rollback()
    cur.execute("SELECT id, bal FROM acct ORDER BY id")
    assert [(r[0], decimal.Decimal(r[1])) for r in cur.fetchall()] == [
        (1, decimal.Decimal("100.50")), (2, decimal.Decimal("-7.25"))]
    c.commit()
    # a failed statement inside a transaction does not abort it
    _, IntegrityError, _ = drv.errors()
    cur.execute("INSERT INTO acct VALUES (%s, %s)", (3, 1))
    with drv.raises(IntegrityError) as e:
        cur.execute("INSERT INTO acct VALUES (%s, %s)", (1, 1))
    drv.check(e.value, 1062, "Duplicate entry '1' for key 'acct.PRIMARY'")
    c.commit()
    ocur.execute("SELECT id FROM acct ORDER BY id")
    assert [r[0] for r in ocur.fetchall()] == [1, 2, 3]
    c.close()
    other.close()


def test_error_codes(server, db, drv):
    _, name = db
    c = drv.connect(server, name)
    cur = drv.cursor(c)
    Error, IntegrityError, ProgrammingError = drv.errors()
    cur.execute("CREATE TABLE e (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL, UNIQUE KEY uv (v))")
    cur.execute("INSERT INTO e VALUES (%s, %s)", (1, "a"))
    with drv.raises(IntegrityError) as e:
        cur.execute("INSERT INTO e VALUES (%s, %s)", (1, "b"))
    drv.check(e.value, 1062, "Duplicate entry '1' for key 'e.PRIMARY'")
    with drv.raises(IntegrityError) as e:
        cur.execute("INSERT INTO e VALUES (%s, %s)", (2, "a"))
    drv.check(e.value, 1062, "Duplicate entry 'a' for key 'e.uv'")
    with drv.raises(IntegrityError) as e:
        cur.execute("INSERT INTO e VALUES (%s, %s)", (3, None))
    drv.check(e.value, 1048, "Column 'v' cannot be null")
    with drv.raises(ProgrammingError) as e:
        cur.execute("SELECT * FROM missing_table WHERE id = %s", (1,))
    drv.check(e.value, 1146, f"Table '{name}.missing_table' doesn't exist")
    if drv.name.startswith("connector") and drv.name != "connector-cext-prepared":
        assert e.value.sqlstate == "42S02"
    with drv.raises(ProgrammingError) as e:
        cur.execute("SELEC 1")
    drv.check(e.value, 1064, "You have an error in your SQL syntax")
    with drv.raises(Error) as e:
        cur.execute("SELECT nope FROM e")
    drv.check(e.value, 1054, "Unknown column 'nope' in 'field list'")
    # still usable after the errors
    cur.execute("SELECT COUNT(*) FROM e")
    assert cur.fetchall()[0][0] == 1
    c.close()


def test_connector_prepared_reuse_and_metadata(server, db):
    """mysql-connector's prepared cursor re-executes one statement (COM_STMT_EXECUTE with new-params
    flag off after the first run) and reads binary-protocol rows for every type (both
    implementations)."""
    _, name = db
    for impl in ("connector-pure-prepared", "connector-cext-prepared"):
        d = Driver(impl)
        c = d._connect(server, name, True)
        cur = d.cursor(c)
        umax = d.rows()[0][5]
        cur.execute("CREATE TABLE pr (id INT PRIMARY KEY, v BIGINT UNSIGNED, s VARCHAR(20), b BLOB)")
        for i in range(5):
            cur.execute("INSERT INTO pr VALUES (?, ?, ?, ?)", (i, umax - i, f"😀{i}", bytes([i, 0, 255])))
        cur.execute("SELECT id, v, s, b FROM pr WHERE id >= ? ORDER BY id", (3,))
        rows = [tuple(norm(v) for v in r) for r in cur.fetchall()]
        assert rows == [(3, umax - 3, "😀3", bytes([3, 0, 255])), (4, umax - 4, "😀4", bytes([4, 0, 255]))]
        assert [d[0] for d in cur.description] == ["id", "v", "s", "b"]
        cur.execute("DROP TABLE pr")
        c.close()
