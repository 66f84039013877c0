"""ALTER TABLE end to end over PyMySQL: instant, in-place and rebuilding changes, their errors,
and that data plus the new definitions survive a restart (clean and SIGKILL mid-rebuild)."""
import threading
import time

import pymysql
import pytest

from conftest import Server


def err_code(cur, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql)
    return e.value.args[0]


def create_table_text(cur, name):
    cur.execute(f"SHOW CREATE TABLE {name}")
    return cur.fetchone()[1]


def test_alter_and_restart():
    srv = Server().start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("CREATE DATABASE alt")
        cur.execute("USE alt")
        cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(20), KEY kb (b))")
        cur.executemany("INSERT INTO t (a, b) VALUES (%s, %s)", [(i, f"v{i}") for i in range(1, 2501)])
        # instant: new column at the end, no row rewritten (Records: 0)
        cur.execute("ALTER TABLE t ADD COLUMN flag INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT")
        assert cur.rowcount == 0
        cur.execute("ALTER TABLE t ALTER COLUMN flag SET DEFAULT 8, RENAME COLUMN a TO num, ALGORITHM=INSTANT")
        cur.execute("INSERT INTO t (num, b) VALUES (9999, 'new')")
        # online index build
        cur.execute("ALTER TABLE t ADD UNIQUE KEY unum (num), RENAME INDEX kb TO kb2")
        assert err_code(cur, "ALTER TABLE t ADD UNIQUE KEY uflag (flag)") == 1062
        assert err_code(cur, "ALTER TABLE t DROP COLUMN nope") == 1091
        assert err_code(cur, "ALTER TABLE t MODIFY num BIGINT, ALGORITHM=INSTANT") == 1846
        assert err_code(cur, "ALTER TABLE t MODIFY b VARCHAR(2)") == 1265  # strict: nothing changes
        # rebuild: column moved to the front, a column dropped, a type changed
        cur.execute("ALTER TABLE t ADD COLUMN first_col CHAR(3) DEFAULT 'abc' FIRST, MODIFY num BIGINT NOT NULL, DROP COLUMN b")
        assert cur.rowcount == 2501  # rows copied
        cur.execute("ALTER TABLE t RENAME TO t2")
        cur.execute("CREATE TABLE other (x INT)")
        cur.execute("RENAME TABLE t2 TO tmp, other TO t2, tmp TO other")
        before = create_table_text(cur, "other")
        cur.execute("SELECT COUNT(*), SUM(num), MIN(flag), MAX(flag) FROM other")
        stats = cur.fetchone()
        assert stats == (2501, sum(range(1, 2501)) + 9999, 7, 8)
        c.close()
        srv.stop()

        srv.start(port=srv.port)
        c = srv.connect(db="alt")
        cur = c.cursor()
        cur.execute("SHOW TABLES")
        assert sorted(r[0] for r in cur.fetchall()) == ["other", "t2"]
        assert create_table_text(cur, "other") == before
        assert "`first_col` char(3) DEFAULT 'abc'" in before
        assert "UNIQUE KEY `unum` (`num`)" in before
        assert "`b`" not in before
        cur.execute("SELECT COUNT(*), SUM(num), MIN(flag), MAX(flag) FROM other")
        assert cur.fetchone() == stats
        cur.execute("SELECT id, first_col, num, flag FROM other WHERE num = 1234")
        assert cur.fetchone() == (1234, "abc", 1234, 7)
        # the AUTO_INCREMENT counter continues after the rebuild and the restart
        cur.execute("INSERT INTO other (num) VALUES (-1)")
        cur.execute("SELECT LAST_INSERT_ID()")
        assert cur.fetchone()[0] == 2502
        assert err_code(cur, "INSERT INTO other (num) VALUES (1234)") == 1062
        # the greatest primary key, read afresh after the restart, is still a duplicate
        assert err_code(cur, "INSERT INTO other (id, num) VALUES (2502, -7)") == 1062
    finally:
        srv.stop()


def test_kill_during_rebuild_keeps_one_complete_table():
    """SIGKILL while a rebuilding ALTER copies rows: after the restart the table is either the
    old one or the new one, with every row, and a later ALTER works."""
    srv = Server().start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("CREATE DATABASE k")
        cur.execute("USE k")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40))")
        rows = 400000
        for start in range(0, rows, 10000):
            vals = ",".join(f"({i}, 'value-{i}')" for i in range(start, start + 10000))
            cur.execute(f"INSERT INTO t VALUES {vals}")
        errors = []

        def alter():
            try:
                srv.connect(db="k").cursor().execute("ALTER TABLE t ADD c INT DEFAULT 1 FIRST, MODIFY v VARCHAR(60)")
            except Exception as e:  # the connection dies with the server
                errors.append(e)

        th = threading.Thread(target=alter)
        th.start()
        # kill as soon as the ALTER is running (copying 400k rows takes over a second)
        deadline = time.time() + 10
        while time.time() < deadline:
            cur.execute("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'ALTER TABLE t%'")
            if cur.fetchone()[0]:
                break
            time.sleep(0.005)
        time.sleep(0.05)
        srv.kill(9)
        th.join(30)
        assert errors, "the ALTER finished before the kill; the test did not crash it mid-copy"
        srv.start(port=srv.port)
        cur = srv.connect(db="k").cursor()
        cur.execute("SHOW TABLES")
        assert [r[0] for r in cur.fetchall()] == ["t"]
        cur.execute("SELECT COUNT(*) FROM t")
        assert cur.fetchone()[0] == rows
        text = create_table_text(cur, "t")
        if "`c` int" in text:
            assert "varchar(60)" in text
        else:
            assert "varchar(40)" in text
        cur.execute("ALTER TABLE t ADD d INT DEFAULT 2 FIRST")
        cur.execute("SELECT COUNT(*), MIN(d) FROM t")
        assert cur.fetchone() == (rows, 2)
    finally:
        srv.stop()


def test_alter_errors_and_algorithms(db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE e (id INT PRIMARY KEY, a INT, KEY ka (a))")
    cur.execute("INSERT INTO e VALUES (1, NULL), (2, 50)")
    cases = [
        ("ALTER TABLE nope ADD c INT", 1146),
        ("ALTER TABLE e ADD a INT", 1060),
        ("ALTER TABLE e ADD INDEX ka (id)", 1061),
        ("ALTER TABLE e ADD PRIMARY KEY (a)", 1068),
        ("ALTER TABLE e DROP id, DROP a", 1090),
        ("ALTER TABLE e DROP INDEX nope", 1091),
        ("ALTER TABLE e CHANGE nope x INT", 1054),
        ("ALTER TABLE e MODIFY a INT NOT NULL", 1138),
        ("ALTER TABLE e MODIFY a DECIMAL(2,1) DEFAULT 1.5, MODIFY id TINYINT", 1264),
        ("ALTER TABLE e ADD c INT FIRST, ALGORITHM=INSTANT", 1846),
        ("ALTER TABLE e ADD INDEX (id), LOCK=NONE", 1846),
    ]
    for sql, code in cases:
        assert err_code(cur, sql) == code, sql
    cur.execute("ALTER TABLE e ADD c INT, ALGORITHM=INSTANT, LOCK=DEFAULT")
    cur.execute("ALTER TABLE e ADD d INT FIRST, ALGORITHM=COPY")
    cur.execute("ALTER TABLE e ADD INDEX kc (c), ALGORITHM=INPLACE")
    cur.execute("ALTER TABLE e RENAME TO e2, ALGORITHM=INSTANT")
    cur.execute("SELECT * FROM e2 ORDER BY id")
    assert cur.fetchall() == ((None, 1, None, None), (None, 2, 50, None))
