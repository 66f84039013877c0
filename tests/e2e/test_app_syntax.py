"""What ORMs and their test suites send (issue 42), over the wire from real clients: NOWAIT and
SKIP LOCKED between two sessions (no waiting for the lock timeout), READ ONLY transactions
(1792), the row alias of INSERT … ON DUPLICATE KEY UPDATE, and functional key parts
(`INDEX ((LOWER(email)))`) read through their index and carried by a mariadb-dump round trip.
The SQL-level results of each are in crates/sql/golden/app_syntax.test and
functional_index.test."""
import subprocess
import time

import pymysql
import pytest


def rows(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def test_nowait_and_skip_locked_do_not_wait(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE jobs (id INT PRIMARY KEY, state VARCHAR(10))")
    c.cursor().executemany("INSERT INTO jobs VALUES (%s, 'new')", [(i,) for i in range(1, 6)])
    c.commit()
    a = server.connect(name)
    b = server.connect(name)
    try:
        a.begin()
        assert rows(a, "SELECT id FROM jobs WHERE id IN (1, 3) FOR UPDATE") == [(1,), (3,)]
        cur = b.cursor()
        cur.execute("SET SESSION innodb_lock_wait_timeout = 20")
        b.begin()
        t0 = time.monotonic()
        with pytest.raises(pymysql.err.OperationalError) as e:
            cur.execute("SELECT * FROM jobs WHERE id = 1 FOR UPDATE NOWAIT")
        assert e.value.args[0] == 3572
        # the queue pattern: take what nobody holds
        free = rows(b, "SELECT id FROM jobs ORDER BY id FOR UPDATE SKIP LOCKED")
        assert free == [(2,), (4,), (5,)]
        assert rows(b, "SELECT id FROM jobs WHERE id = 3 FOR SHARE SKIP LOCKED") == []
        assert time.monotonic() - t0 < 5, "NOWAIT / SKIP LOCKED waited"
        # b now holds 2, 4, 5: a skips those and keeps its own
        assert rows(a, "SELECT id FROM jobs ORDER BY id FOR UPDATE SKIP LOCKED") == [(1,), (3,)]
        b.rollback()
        a.rollback()
        # after both rolled back a plain locking read waits as before (and gets the rows)
        assert len(rows(b, "SELECT id FROM jobs FOR UPDATE NOWAIT")) == 5
        b.rollback()
    finally:
        a.close()
        b.close()


def test_read_only_transactions(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    c.commit()
    cur.execute("START TRANSACTION READ ONLY")
    assert rows(c, "SELECT COUNT(*) FROM t") == [(0,)]
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur.execute("INSERT INTO t VALUES (1)")
    assert e.value.args[0] == 1792
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
    assert e.value.args[0] == 1568
    c.commit()
    cur.execute("INSERT INTO t VALUES (1)")
    c.commit()
    assert rows(c, "SELECT id FROM t") == [(1,)]


def test_insert_row_alias(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT, n INT DEFAULT 1)")
    for v in (5, 7):
        cur.execute(
            "INSERT INTO kv (k, v) VALUES (%s, %s) AS new ON DUPLICATE KEY UPDATE v = new.v, n = n + 1",
            ("a", v),
        )
    c.commit()
    assert rows(c, "SELECT k, v, n FROM kv") == [("a", 7, 2)]


def test_functional_index_through_client_and_dump(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute(
        "CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(80), UNIQUE KEY uemail ((LOWER(email))))"
    )
    cur.executemany(
        "INSERT INTO users VALUES (%s, %s)", [(i, f"User{i}@Example.org") for i in range(1, 301)]
    )
    c.commit()
    assert rows(c, "SELECT id FROM users WHERE LOWER(email) = %s", ("user42@example.org",)) == [(42,)]
    plan = rows(c, "EXPLAIN SELECT id FROM users WHERE LOWER(email) = 'user42@example.org'")
    assert plan[0][6] == "uemail", plan
    with pytest.raises(pymysql.err.IntegrityError) as e:
        cur.execute("INSERT INTO users VALUES (999, 'USER7@example.ORG')")
    assert e.value.args[0] == 1062
    assert [r[0] for r in rows(c, "SELECT * FROM users WHERE id = 1")] == [1]
    create = rows(c, "SHOW CREATE TABLE users")[0][1]
    assert "UNIQUE KEY `uemail` ((lower(`email`)))" in create, create
    dump = subprocess.run(
        ["mariadb-dump", "-h127.0.0.1", f"-P{server.port}", "-uroot", name, "users"],
        capture_output=True, text=True, timeout=120,
    )
    assert dump.returncode == 0, dump.stderr
    cur.execute("DROP TABLE users")
    c.commit()
    server.cli(dump.stdout, db=name)
    assert rows(c, "SHOW CREATE TABLE users")[0][1] == create
    assert rows(c, "SELECT COUNT(*) FROM users WHERE LOWER(email) LIKE 'user1%'") == [(111,)]


def test_lock_tables_blocks_other_sessions(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    cur.execute("INSERT INTO a VALUES (1)")
    c.commit()
    other = server.connect(name)
    try:
        ocur = other.cursor()
        ocur.execute("SET SESSION lock_wait_timeout = 1")
        cur.execute("LOCK TABLES a READ, b WRITE")
        # READ: others read, but wait to write; WRITE: others wait to read too
        assert rows(other, "SELECT id FROM a") == [(1,)]
        for sql in ("INSERT INTO a VALUES (2)", "SELECT * FROM b"):
            t0 = time.monotonic()
            with pytest.raises(pymysql.err.OperationalError) as e:
                ocur.execute(sql)
            assert e.value.args[0] == 1205, sql
            assert time.monotonic() - t0 < 10
        # the holder: its own tables only, READ ones not written
        with pytest.raises(pymysql.err.OperationalError) as e:
            cur.execute("INSERT INTO a VALUES (3)")
        assert e.value.args[0] == 1099
        cur.execute("INSERT INTO b VALUES (1)")
        c.commit()  # a COMMIT keeps the table locks
        with pytest.raises(pymysql.err.OperationalError) as e:
            ocur.execute("SELECT * FROM b")
        assert e.value.args[0] == 1205
        cur.execute("UNLOCK TABLES")
        ocur.execute("INSERT INTO a VALUES (2)")
        other.commit()
        assert rows(other, "SELECT id FROM b") == [(1,)]
    finally:
        other.close()
        cur.execute("UNLOCK TABLES")


def test_flush_tables_with_read_lock(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE g (id INT PRIMARY KEY)")
    c.commit()
    other = server.connect(name)
    try:
        ocur = other.cursor()
        ocur.execute("SET SESSION lock_wait_timeout = 1")
        cur.execute("FLUSH TABLES WITH READ LOCK")
        assert rows(other, "SELECT COUNT(*) FROM g") == [(0,)]
        with pytest.raises(pymysql.err.OperationalError) as e:
            ocur.execute("INSERT INTO g VALUES (1)")
        assert e.value.args[0] == 1205
        with pytest.raises(pymysql.err.OperationalError) as e:
            ocur.execute("CREATE TABLE g2 (id INT)")
        assert e.value.args[0] == 1205
        cur.execute("UNLOCK TABLES")
        ocur.execute("INSERT INTO g VALUES (1)")
        other.commit()
        assert rows(c, "SELECT id FROM g") == [(1,)]
    finally:
        other.close()
        cur.execute("UNLOCK TABLES")
