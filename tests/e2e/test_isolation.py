"""Transaction isolation over the wire, with several PyMySQL connections: no lost updates with
SELECT ... FOR UPDATE under concurrent increments, stable snapshots in REPEATABLE READ, fresh
reads in READ COMMITTED, and deadlock detection (1213, the victim rolled back, the other
transaction proceeds)."""
import threading

import pymysql
import pytest


def conn(server, name, **kw):
    return server.connect(db=name, **kw)


def test_no_lost_updates_with_select_for_update(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)")
    c.cursor().execute("INSERT INTO counter VALUES (1, 0)")
    workers, per_worker = 6, 40
    errors = []

    def work():
        w = conn(server, name, autocommit=False)
        cur = w.cursor()
        try:
            for _ in range(per_worker):
                cur.execute("START TRANSACTION")
                cur.execute("SELECT n FROM counter WHERE id = 1 FOR UPDATE")
                (n,) = cur.fetchone()
                cur.execute("UPDATE counter SET n = %s WHERE id = 1", (n + 1,))
                w.commit()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            w.close()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    cur = c.cursor()
    cur.execute("SELECT n FROM counter WHERE id = 1")
    assert cur.fetchone()[0] == workers * per_worker


def test_concurrent_atomic_increments(server, db):
    """UPDATE ... SET n = n + 1 is a locking read-modify-write: no increment is lost."""
    c, name = db
    c.cursor().execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)")
    c.cursor().execute("INSERT INTO counter VALUES (1, 0)")
    errors = []

    def work():
        w = conn(server, name, autocommit=True)
        try:
            for _ in range(50):
                w.cursor().execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        finally:
            w.close()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    cur = c.cursor()
    cur.execute("SELECT n FROM counter")
    assert cur.fetchone()[0] == 200


def test_repeatable_read_snapshot_is_stable(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE acc (id INT PRIMARY KEY, bal INT, KEY (bal))")
    c.cursor().execute("INSERT INTO acc VALUES (1, 100), (2, 200)")
    reader = conn(server, name, autocommit=False)
    writer = conn(server, name, autocommit=True)
    r = reader.cursor()
    r.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    r.execute("START TRANSACTION")
    r.execute("SELECT id, bal FROM acc ORDER BY id")
    first = r.fetchall()
    assert first == ((1, 100), (2, 200))
    w = writer.cursor()
    w.execute("UPDATE acc SET bal = bal + 50 WHERE id = 1")
    w.execute("INSERT INTO acc VALUES (3, 300)")
    w.execute("DELETE FROM acc WHERE id = 2")
    # the same reads, by primary key, by secondary index and aggregated, see the old snapshot
    r.execute("SELECT id, bal FROM acc ORDER BY id")
    assert r.fetchall() == first
    r.execute("SELECT id FROM acc WHERE bal >= 100 ORDER BY bal")
    assert r.fetchall() == ((1,), (2,))
    r.execute("SELECT SUM(bal), COUNT(*) FROM acc")
    assert tuple(int(x) for x in r.fetchone()) == (300, 2)
    # a locking read sees the latest committed version (MySQL's "current read")
    r.execute("SELECT bal FROM acc WHERE id = 1 FOR UPDATE")
    assert r.fetchone()[0] == 150
    reader.commit()
    r.execute("SELECT id, bal FROM acc ORDER BY id")
    assert r.fetchall() == ((1, 150), (3, 300))
    reader.close()
    writer.close()


def test_read_committed_sees_new_commits(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE acc (id INT PRIMARY KEY, bal INT)")
    c.cursor().execute("INSERT INTO acc VALUES (1, 100)")
    reader = conn(server, name, autocommit=False)
    writer = conn(server, name, autocommit=False)
    r = reader.cursor()
    r.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    r.execute("START TRANSACTION")
    r.execute("SELECT bal FROM acc WHERE id = 1")
    assert r.fetchone()[0] == 100
    w = writer.cursor()
    w.execute("UPDATE acc SET bal = 111 WHERE id = 1")
    w.execute("INSERT INTO acc VALUES (2, 5)")
    # uncommitted changes are invisible ...
    r.execute("SELECT bal FROM acc WHERE id = 1")
    assert r.fetchone()[0] == 100
    r.execute("SELECT COUNT(*) FROM acc")
    assert r.fetchone()[0] == 1
    writer.commit()
    # ... committed ones are seen by the next statement of the same transaction
    r.execute("SELECT bal FROM acc WHERE id = 1")
    assert r.fetchone()[0] == 111
    r.execute("SELECT COUNT(*) FROM acc")
    assert r.fetchone()[0] == 2
    reader.commit()
    reader.close()
    writer.close()


def test_deadlock_detected_victim_rolled_back(server, db):
    c, name = db
    c.cursor().execute("CREATE TABLE d (id INT PRIMARY KEY, v INT)")
    c.cursor().execute("INSERT INTO d VALUES (1, 0), (2, 0)")
    a = conn(server, name, autocommit=False)
    b = conn(server, name, autocommit=False)
    ca, cb = a.cursor(), b.cursor()
    ca.execute("SET SESSION innodb_lock_wait_timeout = 20")
    cb.execute("SET SESSION innodb_lock_wait_timeout = 20")
    ca.execute("START TRANSACTION")
    cb.execute("START TRANSACTION")
    ca.execute("UPDATE d SET v = 10 WHERE id = 1")
    cb.execute("UPDATE d SET v = 20 WHERE id = 2")
    # a also inserts a row, which must vanish if a is the victim
    ca.execute("INSERT INTO d VALUES (3, 3)")
    result = {}

    def a_waits():
        try:
            ca.execute("UPDATE d SET v = 11 WHERE id = 2")  # blocks on b
            result["a"] = "ok"
        except pymysql.err.OperationalError as e:
            result["a"] = e.args[0]

    t = threading.Thread(target=a_waits)
    t.start()
    # let a block on the row lock first (if it doesn't, b blocks and a closes the cycle instead)
    t.join(0.3)
    mon = server.connect()
    try:
        cb.execute("UPDATE d SET v = 21 WHERE id = 1")  # closes the cycle
        result["b"] = "ok"
    except pymysql.err.OperationalError as e:
        result["b"] = e.args[0]
    t.join(30)
    assert not t.is_alive()
    assert sorted(result.values(), key=str) == sorted([1213, "ok"], key=str), result
    victim, survivor = (a, b) if result["a"] == 1213 else (b, a)
    vcur = victim.cursor()
    # the victim's whole transaction was rolled back: it is no longer in a transaction and
    # its earlier writes are gone; the survivor commits
    survivor.commit()
    check = server.connect(db=name)
    k = check.cursor()
    k.execute("SELECT id, v FROM d ORDER BY id")
    rows = k.fetchall()
    if victim is a:
        assert rows == ((1, 21), (2, 20))
    else:
        assert rows == ((1, 10), (2, 11), (3, 3))
    # the victim's connection is usable and its locks were released
    vcur.execute("UPDATE d SET v = 99 WHERE id IN (1, 2)")
    victim.commit()
    k.execute("SELECT v FROM d WHERE id IN (1, 2)")
    assert [r[0] for r in k.fetchall()] == [99, 99]
    for x in (a, b, mon, check):
        x.close()
