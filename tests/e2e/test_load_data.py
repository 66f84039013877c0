"""LOAD DATA [LOCAL] INFILE over the wire: the mariadb CLI (--local-infile=1) and PyMySQL
(local_infile=True) streaming client files, server-side files under secure_file_priv, the
FIELDS/LINES options, column lists with @variables and SET, warnings for bad rows, strict-mode
errors, duplicate handling and the "Records: … Deleted: … Skipped: … Warnings: …" info."""
import hashlib
import os
import subprocess
import tempfile

import pymysql
import pytest


@pytest.fixture(autouse=True)
def local_infile_on(server):
    c = server.connect()
    c.cursor().execute("SET GLOBAL local_infile = ON")
    yield
    c.cursor().execute("SET GLOBAL local_infile = ON")
    c.close()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def cli_local(server, db, sql, check=True):
    """mariadb CLI with LOCAL INFILE enabled and verbose output (prints the OK info line)."""
    return server.cli(sql, db=db, extra=["--local-infile=1", "-vvv"], check=check)


def rows(c, sql):
    cur = c.cursor()
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def info(c):
    """The OK packet's info string (PyMySQL keeps its length prefix in `message`, as it does
    with MySQL)."""
    m = c._result.message
    return m[1:].decode() if m and m[0] == len(m) - 1 else m.decode()


def warnings(c):
    return [(r[0], r[1], r[2]) for r in rows(c, "SHOW WARNINGS")]


def test_cli_local_default_format(server, db, tmp_path):
    c, name = db
    c.cursor().execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(8), n INT)")
    f = write(tmp_path / "t.tsv", b"1\tplain\tab\t10\n2\ttab\\there\t\\0x\t\\N\n3\tuni \xc3\xa9\xe2\x82\xac\t\\N\t30\n")
    _, out, _ = cli_local(server, name, f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t;")
    assert "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0" in out
    assert rows(c, "SELECT id, s, b, n FROM t ORDER BY id") == [
        (1, "plain", b"ab", 10),
        (2, "tab\there", b"\x00x", None),
        (3, "uni é€", None, 30),
    ]


def test_pymysql_csv_enclosed_ignore_lines_vars_and_set(server, db, tmp_path):
    c, name = db
    c.cursor().execute(
        "CREATE TABLE p (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2),"
        " qty INT, total DECIMAL(10,2), note VARCHAR(40) DEFAULT 'none')")
    f = write(tmp_path / "p.csv",
              b'name,price,qty,skipme\r\n'
              b'"Widget, large",1.50,4,x\r\n'
              b'"say ""hi""",2.00,3,y\r\n'
              b'"multi\r\nline",0.25,8,z\r\n')
    lc = server.connect(db=name, local_infile=True)
    cur = lc.cursor()
    n = cur.execute(
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE p CHARACTER SET utf8mb4"
        " FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'"
        " LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES"
        " (name, @price, @qty, @dummy) SET price = @price, qty = @qty, total = @price * @qty")
    assert n == 3
    assert info(lc) == "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0"
    assert rows(c, "SELECT id, name, price, qty, total, note FROM p ORDER BY id") == [
        (1, "Widget, large", pytest.approx(1.5), 4, pytest.approx(6.0), "none"),
        (2, 'say "hi"', pytest.approx(2.0), 3, pytest.approx(6.0), "none"),
        (3, "multi\r\nline", pytest.approx(0.25), 8, pytest.approx(2.0), "none"),
    ]
    # the variables keep the last row's values, as in MySQL
    assert rows(lc, "SELECT @qty, @dummy") == [("8", "z")]
    lc.close()


def test_terminators_and_line_prefix(server, db, tmp_path):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT, b VARCHAR(10))")
    f = write(tmp_path / "t.txt", b"junk>>1||x;;noise\n>>2||y;;>>3||z|w;;")
    _, out, _ = cli_local(
        server, name,
        f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t FIELDS TERMINATED BY '||'"
        " LINES STARTING BY '>>' TERMINATED BY ';;';")
    assert "Records: 3  Deleted: 0  Skipped: 0  Warnings: 0" in out
    assert rows(c, "SELECT a, b FROM t ORDER BY a") == [(1, "x"), (2, "y"), (3, "z|w")]


def bad_rows_file(dirname):
    return write(os.path.join(dirname, "bad.txt"),
                 b"1\tabc\t2020-01-01\n"      # fine
                 b"2\n"                        # too few fields
                 b"3\tx\t2020-01-01\textra\n"  # too many fields
                 b"bad\tq\t2020-01-02\n"       # not a number
                 b"\\N\tnul\t\\N\n"            # NULL into NOT NULL
                 b"\n")                        # empty line


def test_bad_rows_non_strict_warnings(server, db, tmp_path):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE a (id INT NOT NULL, s VARCHAR(20), d DATE)")
    cur.execute("SET sql_mode = ''")
    f = bad_rows_file(tmp_path)
    lc = server.connect(db=name, local_infile=True)
    lc.cursor().execute("SET sql_mode = ''")
    lc.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE a")
    assert info(lc) == "Records: 6  Deleted: 0  Skipped: 0  Warnings: 8"
    got = warnings(lc)
    # the same conditions, in the same order, as MySQL/MariaDB report them
    assert [(g[1], g[2].rsplit(" ", 1)[-1] if "at row" in g[2] else g[2].split()[1]) for g in got] == [
        (1261, "2"), (1261, "2"), (1262, "3"), (1366, "4"), (1263, "5"),
        (1366, "6"), (1261, "6"), (1261, "6"),
    ]
    assert all(g[0] == "Warning" for g in got)
    assert "Column set to default value; NULL supplied to NOT NULL column 'id' at row 5" in [g[2] for g in got]
    assert "Row 2 doesn't contain data for all columns" in [g[2] for g in got]
    assert "Row 3 was truncated; it contained more data than there were input columns" in [g[2] for g in got]
    assert rows(c, "SELECT id, s, d FROM a") == [
        (1, "abc", __import__("datetime").date(2020, 1, 1)),
        (2, None, None),
        (3, "x", __import__("datetime").date(2020, 1, 1)),
        (0, "q", __import__("datetime").date(2020, 1, 2)),
        (0, "nul", None),
        (0, None, None),
    ]
    lc.close()


def test_strict_server_file_errors_and_rollback(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE a (id INT NOT NULL, s VARCHAR(20), d DATE)")
    files = os.path.join(server.datadir, "files")
    bad_rows_file(files)
    cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'bad.txt' INTO TABLE a")
    assert e.value.args[0] == 1261
    assert e.value.args[1] == "Row 2 doesn't contain data for all columns"
    # one statement: nothing of it stays
    assert rows(c, "SELECT COUNT(*) FROM a") == [(0,)]
    # IGNORE turns the errors into warnings
    cur.execute(f"LOAD DATA INFILE '{files}/bad.txt' IGNORE INTO TABLE a")
    assert [w[1] for w in warnings(c)] == [1261, 1261, 1262, 1366, 1263, 1366, 1261, 1261]
    assert rows(c, "SELECT COUNT(*) FROM a") == [(6,)]


def test_secure_file_priv_and_missing_files(server, db, tmp_path):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute("SELECT @@secure_file_priv")
    priv = cur.fetchone()[0]
    assert os.path.realpath(priv) == os.path.realpath(os.path.join(server.datadir, "files"))
    outside = write(tmp_path / "x.txt", b"1\n")
    for path in (str(outside), "../x.txt", f"{priv}/../x.txt"):
        with pytest.raises(pymysql.err.MySQLError) as e:
            cur.execute(f"LOAD DATA INFILE '{path}' INTO TABLE t")
        assert e.value.args[0] == 1290, path
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'nope.txt' INTO TABLE t")
    assert e.value.args[0] == 29 and "not found" in e.value.args[1]
    # a symlink inside the directory pointing outside it is refused too
    link = os.path.join(priv, "link.txt")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(outside, link)
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'link.txt' INTO TABLE t")
    assert e.value.args[0] == 1290


def test_file_privilege_and_local_switches(server, db, tmp_path):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (a INT)")
    write(os.path.join(server.datadir, "files", "one.txt"), b"1\n2\n")
    user = "ld_" + name[2:]
    cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    try:
        cur.execute(f"GRANT SELECT, INSERT ON {name}.* TO '{user}'@'%'")
        uc = server.connect(db=name, user=user, password="pw", local_infile=True)
        with pytest.raises(pymysql.err.MySQLError) as e:
            uc.cursor().execute("LOAD DATA INFILE 'one.txt' INTO TABLE t")
        assert e.value.args[0] == 1227
        # LOCAL needs no FILE privilege
        f = write(tmp_path / "l.txt", b"5\n")
        uc.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
        assert rows(c, "SELECT a FROM t") == [(5,)]
        # REPLACE also needs DELETE
        with pytest.raises(pymysql.err.MySQLError) as e:
            uc.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' REPLACE INTO TABLE t")
        assert e.value.args[0] == 1142
        uc.close()
        cur.execute(f"GRANT FILE ON *.* TO '{user}'@'%'")
        uc = server.connect(db=name, user=user, password="pw")
        uc.cursor().execute("LOAD DATA INFILE 'one.txt' INTO TABLE t")
        uc.close()
    finally:
        cur.execute(f"DROP USER '{user}'@'%'")
    # a client that did not enable local files, and the server switch
    nc = server.connect(db=name)
    with pytest.raises(pymysql.err.MySQLError) as e:
        nc.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert e.value.args[0] == 3948
    nc.close()
    cur.execute("SET GLOBAL local_infile = OFF")
    lc = server.connect(db=name, local_infile=True)
    with pytest.raises(pymysql.err.MySQLError) as e:
        lc.cursor().execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t")
    assert e.value.args[0] == 3948
    assert rows(lc, "SELECT COUNT(*) FROM t") == [(3,)]
    lc.close()


def test_duplicates_error_ignore_replace(server, db, tmp_path):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(20))")
    cur.execute("INSERT INTO u VALUES (1, 'old')")
    files = os.path.join(server.datadir, "files")
    write(os.path.join(files, "u.csv"), b'1,"new, quoted"\n2,"say ""hi"""\n1,dup\n')
    opts = "FIELDS TERMINATED BY ',' ENCLOSED BY '\"'"
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute(f"LOAD DATA INFILE 'u.csv' INTO TABLE u {opts}")
    assert e.value.args[0] == 1062
    assert rows(c, "SELECT * FROM u ORDER BY id") == [(1, "old")]
    n = cur.execute(f"LOAD DATA INFILE 'u.csv' IGNORE INTO TABLE u {opts}")
    assert n == 1 and info(c) == "Records: 3  Deleted: 0  Skipped: 2  Warnings: 2"
    assert [w[1] for w in warnings(c)] == [1062, 1062]
    n = cur.execute(f"LOAD DATA INFILE 'u.csv' REPLACE INTO TABLE u {opts}")
    assert info(c) == "Records: 3  Deleted: 3  Skipped: 0  Warnings: 0"
    assert n == 6
    assert rows(c, "SELECT * FROM u ORDER BY id") == [(1, "dup"), (2, 'say "hi"')]
    # LOCAL without REPLACE behaves as IGNORE
    lc = server.connect(db=name, local_infile=True)
    lc.cursor().execute(f"LOAD DATA LOCAL INFILE '{files}/u.csv' INTO TABLE u {opts}")
    assert info(lc) == "Records: 3  Deleted: 0  Skipped: 3  Warnings: 3"
    lc.close()


def test_error_mid_transfer_keeps_connection(server, db, tmp_path):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT, b INT)")
    f = write(tmp_path / "big.txt", b"".join(b"%d\t%d\n" % (i, i) for i in range(50000)))
    lc = server.connect(db=name, local_infile=True)
    cur = lc.cursor()
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE t (a, @x) SET b = (SELECT 1 UNION SELECT 2)")
    assert e.value.args[0] == 1242
    # the client's whole transfer was consumed: the connection still answers
    assert rows(lc, "SELECT 1") == [(1,)]
    assert rows(lc, "SELECT COUNT(*) FROM t") == [(0,)]
    lc.close()


def test_unsupported_and_syntax(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (a INT)")
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'x' INTO TABLE t FIELDS ENCLOSED BY 'ab'")
    assert e.value.args[0] == 1083
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'x' INTO t")
    assert e.value.args[0] == 1064
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'x' INTO TABLE nope")
    assert e.value.args[0] == 1146
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("LOAD DATA INFILE 'x' INTO TABLE t (nope)")
    assert e.value.args[0] == 1054


def test_large_local_file_streams(server, db, tmp_path):
    """A 300k-row file through LOCAL INFILE with the mariadb CLI: every row arrives, in one
    statement (the count is exact and the checksum matches)."""
    c, name = db
    c.cursor().execute("CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(64), n BIGINT)")
    n = 300_000
    path = tmp_path / "big.tsv"
    h = hashlib.sha256()
    with open(path, "wb") as f:
        for i in range(n):
            v = hashlib.md5(str(i).encode()).hexdigest()
            f.write(b"%d\t%s\t%d\n" % (i, v.encode(), i * 7))
    _, out, _ = cli_local(server, name, f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE big;")
    assert f"Records: {n}  Deleted: 0  Skipped: 0  Warnings: 0" in out
    assert rows(c, "SELECT COUNT(*), SUM(n), MIN(id), MAX(id) FROM big") == [(n, 7 * n * (n - 1) // 2, 0, n - 1)]
    assert rows(c, "SELECT v FROM big WHERE id = 12345") == [(hashlib.md5(b"12345").hexdigest(),)]
