"""Metadata locks over the wire: DDL waits for open transactions that used the table, a
copying ALTER keeps writers out (so no change is lost) while readers go on, lock_wait_timeout
(1205), KILL QUERY of a waiting DDL (1317), deadlock between a DDL and a transaction (1213),
and the processlist state of a waiting statement."""
import threading
import time

import pymysql
import pytest


def wait_for_state(server, state, timeout=10):
    """Waits until some connection shows `state` in the processlist."""
    c = server.connect()
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            cur = c.cursor()
            cur.execute("SHOW PROCESSLIST")
            rows = cur.fetchall()
            hit = [r for r in rows if r[6] == state]
            if hit:
                return hit
            time.sleep(0.05)
        raise AssertionError(f"no connection in state {state!r}: {rows}")
    finally:
        c.close()


def run_in_thread(fn):
    out = {}

    def body():
        try:
            out["result"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=body)
    t.start()
    return t, out


def test_ddl_times_out_behind_open_transaction(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT PRIMARY KEY)")
    c.cursor().execute("INSERT INTO t VALUES (1)")
    reader = server.connect(name)
    reader.cursor().execute("BEGIN")
    reader.cursor().execute("SELECT * FROM t")
    ddl = server.connect(name)
    ddl.cursor().execute("SET SESSION lock_wait_timeout = 1")
    for stmt in ("ALTER TABLE t ADD COLUMN b INT", "DROP TABLE t", "TRUNCATE TABLE t",
                 "RENAME TABLE t TO t2", "CREATE INDEX ia ON t (a)"):
        with pytest.raises(pymysql.err.OperationalError) as e:
            ddl.cursor().execute(stmt)
        assert e.value.args[0] == 1205, stmt
    # the open transaction still sees its table, and DDL goes through once it ends
    cur = reader.cursor()
    cur.execute("SELECT a FROM t")
    assert cur.fetchall() == ((1,),)
    reader.commit()
    ddl.cursor().execute("ALTER TABLE t ADD COLUMN b INT")
    cur = ddl.cursor()
    cur.execute("SELECT * FROM t")
    assert cur.fetchall() == ((1, None),)
    reader.close()
    ddl.close()


def test_waiting_drop_shows_state_and_proceeds_after_commit(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT PRIMARY KEY)")
    reader = server.connect(name, autocommit=False)
    reader.cursor().execute("SELECT * FROM t")  # autocommit=0: the transaction stays open
    ddl = server.connect(name)
    t, out = run_in_thread(lambda: ddl.cursor().execute("DROP TABLE t"))
    hit = wait_for_state(server, "Waiting for table metadata lock")
    assert hit[0][7] == "DROP TABLE t"
    assert t.is_alive()
    reader.commit()
    t.join(10)
    assert not t.is_alive() and "error" not in out, out
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        c.cursor().execute("SELECT * FROM t")
    assert e.value.args[0] == 1146
    reader.close()
    ddl.close()


def test_kill_query_ends_metadata_lock_wait(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT PRIMARY KEY)")
    holder = server.connect(name)
    holder.cursor().execute("BEGIN")
    holder.cursor().execute("SELECT * FROM t")
    ddl = server.connect(name)
    cur = ddl.cursor()
    cur.execute("SELECT CONNECTION_ID()")
    ddl_id = cur.fetchone()[0]
    t, out = run_in_thread(lambda: ddl.cursor().execute("ALTER TABLE t ADD COLUMN b INT"))
    wait_for_state(server, "Waiting for table metadata lock")
    started = time.time()
    c.cursor().execute(f"KILL QUERY {ddl_id}")
    t.join(10)
    assert not t.is_alive()
    assert out["error"].args[0] == 1317
    assert time.time() - started < 5
    # the killed ALTER left the table as it was, and both connections still work
    cur = holder.cursor()
    cur.execute("SHOW COLUMNS FROM t")
    assert [r[0] for r in cur.fetchall()] == ["a"]
    holder.commit()
    ddl.ping()
    ddl.cursor().execute("ALTER TABLE t ADD COLUMN b INT")
    holder.close()
    ddl.close()


def test_copying_alter_keeps_writers_out_and_loses_nothing(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT, KEY kv (v))")
    cur = c.cursor()
    cur.executemany("INSERT INTO t (v) VALUES (%s)", [(i,) for i in range(3000)])
    stop = threading.Event()
    acked = []
    errors = []

    def writer():
        w = server.connect(name)
        i = 0
        while not stop.is_set():
            try:
                w.cursor().execute("INSERT INTO t (v) VALUES (%s)", (100000 + i,))
                acked.append(100000 + i)
            except pymysql.err.MySQLError as e:
                errors.append(e)
            i += 1
        w.close()

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for th in threads:
        th.start()
    time.sleep(0.2)
    alter = server.connect(name)
    # a type change rebuilds the table by copying its rows
    alter.cursor().execute("ALTER TABLE t MODIFY v BIGINT")
    alter.cursor().execute("ALTER TABLE t ADD INDEX kv2 (v, id)")
    time.sleep(0.2)
    stop.set()
    for th in threads:
        th.join()
    assert not errors, errors
    assert acked, "writers made no progress"
    cur = c.cursor()
    cur.execute("SELECT COUNT(*) FROM t")
    assert cur.fetchone()[0] == 3000 + len(acked)
    cur.execute("SELECT COUNT(*) FROM t WHERE v >= 100000")
    assert cur.fetchone()[0] == len(acked)
    cur.execute("SELECT COUNT(*) FROM t FORCE INDEX (kv2) WHERE v >= 100000")
    assert cur.fetchone()[0] == len(acked)
    cur.execute("SELECT COUNT(*) FROM t FORCE INDEX (kv) WHERE v >= 100000")
    assert cur.fetchone()[0] == len(acked)
    alter.close()


def test_reader_allowed_writer_blocked_during_copy_and_deadlock(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE t (a INT PRIMARY KEY, b INT)")
    c.cursor().execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    # the transaction holds a shared lock, so the ALTER copies (readers allowed) and then
    # waits to publish
    txn = server.connect(name)
    txn.cursor().execute("BEGIN")
    txn.cursor().execute("SELECT * FROM t")
    alter = server.connect(name)
    t, out = run_in_thread(lambda: alter.cursor().execute("ALTER TABLE t MODIFY b BIGINT"))
    wait_for_state(server, "Waiting for table metadata lock")
    other = server.connect(name)
    other.cursor().execute("SET SESSION lock_wait_timeout = 1")
    with pytest.raises(pymysql.err.OperationalError) as e:
        other.cursor().execute("INSERT INTO t VALUES (3, 3)")
    assert e.value.args[0] == 1205
    # the transaction's own write closes the cycle (it waits for the ALTER, which waits for
    # it): it is chosen as the deadlock victim and rolled back; the ALTER completes
    with pytest.raises(pymysql.err.OperationalError) as e:
        txn.cursor().execute("INSERT INTO t VALUES (4, 4)")
    assert e.value.args[0] == 1213
    t.join(10)
    assert not t.is_alive() and "error" not in out, out
    cur = other.cursor()
    cur.execute("SELECT a, b FROM t ORDER BY a")
    assert cur.fetchall() == ((1, 1), (2, 2))
    cur.execute("SHOW CREATE TABLE t")
    assert "`b` bigint" in cur.fetchone()[1]
    for x in (txn, alter, other):
        x.close()


def test_partition_ddl_waits_and_times_out_cleanly(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE pt (a INT PRIMARY KEY) PARTITION BY RANGE (a) "
                "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (100))")
    cur.executemany("INSERT INTO pt VALUES (%s)", [(i,) for i in range(100)])
    holder = server.connect(name)
    holder.cursor().execute("BEGIN")
    holder.cursor().execute("SELECT COUNT(*) FROM pt")
    ddl = server.connect(name)
    ddl.cursor().execute("SET SESSION lock_wait_timeout = 1")
    for stmt in ("ALTER TABLE pt REORGANIZE PARTITION p1 INTO (PARTITION p1 VALUES LESS THAN (50), "
                 "PARTITION p2 VALUES LESS THAN (100))",
                 "ALTER TABLE pt DROP PARTITION p0",
                 "ALTER TABLE pt TRUNCATE PARTITION p1"):
        with pytest.raises(pymysql.err.OperationalError) as e:
            ddl.cursor().execute(stmt)
        assert e.value.args[0] == 1205, stmt
    holder.commit()
    cur.execute("SELECT PARTITION_NAME, TABLE_ROWS FROM information_schema.PARTITIONS "
                "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'pt' ORDER BY PARTITION_ORDINAL_POSITION", (name,))
    assert [r[0] for r in cur.fetchall()] == ["p0", "p1"]
    cur.execute("SELECT COUNT(*) FROM pt")
    assert cur.fetchone()[0] == 100
    ddl.cursor().execute("ALTER TABLE pt REORGANIZE PARTITION p1 INTO (PARTITION p1 VALUES LESS THAN (50), "
                         "PARTITION p2 VALUES LESS THAN (100))")
    cur.execute("SELECT COUNT(*) FROM pt PARTITION (p2)")
    assert cur.fetchone()[0] == 50
    holder.close()
    ddl.close()
