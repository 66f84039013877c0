"""The range cache: short primary-key ranges are served from memory once read, and every
snapshot still reads exactly the rows it must (updates, deletes, inserts, rollbacks, TRUNCATE,
DROP, concurrent writers)."""
import random

from conftest import Server, global_status
from transfers import run_transfers


def snapshot_and_writer(server, name, ca, q, want):
    """Opens a snapshot on `ca` that reads `q` (checked against `want`), and a second
    connection to write with; returns it and its cursor."""
    b = server.connect(name)
    ca.execute("BEGIN")
    ca.execute(q)
    assert ca.fetchall() == want
    return b, b.cursor()


def test_ranges_are_served_from_the_cache_and_snapshots_stay_consistent(server, db):
    a, name = db
    ca = a.cursor()
    ca.execute("CREATE TABLE rg (id INT PRIMARY KEY, v INT, s VARCHAR(20))")
    ca.execute("INSERT INTO rg VALUES " + ",".join(f"({i}, {i}, 'r{i}')" for i in range(1, 201)))
    q = "SELECT id, v, s FROM rg WHERE id BETWEEN 20 AND 60"
    want = tuple((i, i, f"r{i}") for i in range(20, 61))
    # the first read of a range is remembered, the second fills the cache
    for _ in range(2):
        ca.execute(q)
        assert ca.fetchall() == want
    fills, hits = global_status(ca, "Strata_range_cache_fills"), global_status(ca, "Strata_range_cache_hits")
    for _ in range(3):
        ca.execute(q)
        assert ca.fetchall() == want
        ca.execute("SELECT SUM(v) FROM rg WHERE id BETWEEN 30 AND 40")
        assert ca.fetchall()[0][0] == sum(range(30, 41))
        ca.execute("SELECT id FROM rg WHERE id BETWEEN 20 AND 60 ORDER BY id DESC LIMIT 3")
        assert ca.fetchall() == ((60,), (59,), (58,))
    assert global_status(ca, "Strata_range_cache_hits") - hits >= 9
    # an empty (inverted) range inside a cached one
    ca.execute("SELECT id FROM rg WHERE id BETWEEN 50 AND 30")
    assert ca.fetchall() == ()
    ca.execute("SELECT id FROM rg WHERE id > 40 AND id < 41")
    assert ca.fetchall() == ()
    assert global_status(ca, "Strata_range_cache_fills") == fills, "a covered range is not filled again"
    assert global_status(ca, "Strata_range_cache_bytes") > 0

    # a REPEATABLE READ snapshot keeps its rows while another session changes the range
    b, cb = snapshot_and_writer(server, name, ca, q, want)
    cb.execute("UPDATE rg SET v = v * 100 WHERE id BETWEEN 25 AND 27")
    cb.execute("DELETE FROM rg WHERE id = 30")
    cb.execute("INSERT INTO rg VALUES (1000, 1, 'outside')")
    cb.execute("UPDATE rg SET id = 201 WHERE id = 31")
    cb.execute("SELECT SUM(v), COUNT(*) FROM rg WHERE id BETWEEN 20 AND 60")
    changed = sum(range(20, 61)) + 99 * (25 + 26 + 27) - 30 - 31
    assert cb.fetchall() == ((changed, 39),)
    hits = global_status(cb, "Strata_range_cache_hits")
    ca.execute(q)
    assert ca.fetchall() == want
    ca.execute("COMMIT")
    ca.execute("SELECT SUM(v), COUNT(*) FROM rg WHERE id BETWEEN 20 AND 60")
    assert ca.fetchall() == ((changed, 39),)
    assert global_status(ca, "Strata_range_cache_hits") > hits, "the new versions are served"
    # a rolled-back change leaves the range as it was
    cb.execute("BEGIN")
    cb.execute("UPDATE rg SET v = -1 WHERE id BETWEEN 20 AND 60")
    cb.execute("INSERT INTO rg VALUES (30, 30, 'x')")
    cb.execute("ROLLBACK")
    ca.execute("SELECT SUM(v), COUNT(*) FROM rg WHERE id BETWEEN 20 AND 60")
    assert ca.fetchall() == ((changed, 39),)
    # deleted and re-inserted rows
    cb.execute("DELETE FROM rg WHERE id BETWEEN 40 AND 49")
    cb.execute("INSERT INTO rg VALUES (45, 4500, 'back')")
    ca.execute("SELECT id, v FROM rg WHERE id BETWEEN 39 AND 50")
    assert ca.fetchall() == ((39, 39), (45, 4500), (50, 50))
    # TRUNCATE, DROP and a new table under the same name: no stale rows
    ca.execute("TRUNCATE TABLE rg")
    ca.execute(q)
    assert ca.fetchall() == ()
    ca.execute("INSERT INTO rg VALUES (21, 1, 'a'), (22, 2, 'b')")
    ca.execute(q)
    assert ca.fetchall() == ((21, 1, "a"), (22, 2, "b"))
    ca.execute(q)
    assert ca.fetchall() == ((21, 1, "a"), (22, 2, "b"))
    ca.execute("DROP TABLE rg")
    ca.execute("CREATE TABLE rg (id INT PRIMARY KEY, v INT, s VARCHAR(20))")
    ca.execute("INSERT INTO rg VALUES (50, 5, 'new')")
    ca.execute(q)
    assert ca.fetchall() == ((50, 5, "new"),)
    b.close()


def test_bulk_writes_into_a_cached_range(server, db):
    """Statements that write more than a few dozen keys (multi-row INSERT, UPDATE of a range)
    are tracked by their span: the cached range gets their rows, and a snapshot taken before
    them keeps the old ones."""
    a, name = db
    ca = a.cursor()
    ca.execute("CREATE TABLE bk (id INT PRIMARY KEY, v INT, KEY (v))")
    ca.execute("INSERT INTO bk VALUES " + ",".join(f"({i}, {i})" for i in range(0, 400, 2)))
    q = "SELECT id, v FROM bk WHERE id BETWEEN 100 AND 199"
    want = tuple((i, i) for i in range(100, 200, 2))
    for _ in range(2):
        ca.execute(q)
        assert ca.fetchall() == want
    assert global_status(ca, "Strata_range_cache_bytes") > 0
    b, cb = snapshot_and_writer(server, name, ca, q, want)
    # 50 new rows in the cached range (odd ids), one statement: 100 keys with the index
    cb.execute("INSERT INTO bk VALUES " + ",".join(f"({i}, {-i})" for i in range(101, 200, 2)))
    cb.execute("UPDATE bk SET v = v + 1000 WHERE id BETWEEN 150 AND 199")
    ca.execute(q)
    assert ca.fetchall() == want, "the snapshot from before the writes"
    ca.execute("COMMIT")
    now = tuple((i, (i if i % 2 == 0 else -i) + (1000 if i >= 150 else 0)) for i in range(100, 200))
    hits = global_status(ca, "Strata_range_cache_hits")
    for _ in range(3):
        ca.execute(q)
        assert ca.fetchall() == now
    assert global_status(ca, "Strata_range_cache_hits") > hits, "served with the new versions"
    ca.execute("SELECT COUNT(*) FROM bk WHERE v < 0")
    assert ca.fetchall() == ((25,),)
    # a bulk write that fails (duplicate key) leaves the range as it was
    try:
        cb.execute("INSERT INTO bk VALUES " + ",".join(f"({i}, 0)" for i in range(300, 400)))
        raise AssertionError("duplicate key not reported")
    except Exception as e:  # noqa: BLE001 — PyMySQL's IntegrityError
        assert e.args[0] == 1062, e
    for _ in range(2):
        ca.execute(q)
        assert ca.fetchall() == now
    b.close()


def test_range_reads_under_concurrent_transfers(server, db):
    """Transfers between the rows of a short table from several connections, while readers sum
    ranges of it: every snapshot sees the total unchanged, a range read twice in one
    transaction returns the same rows, and at the end no transfer is lost."""
    accounts = 24

    def reader(r, total, seed):
        rng = random.Random(seed + r.connection.thread_id())
        r.execute("SELECT SUM(bal) FROM acct WHERE id BETWEEN 1 AND %s", (accounts,))
        assert int(r.fetchall()[0][0]) == total
        lo = rng.randint(1, accounts)
        hi = rng.randint(lo, accounts)
        r.execute("SELECT id, bal FROM acct WHERE id BETWEEN %s AND %s", (lo, hi))
        first = r.fetchall()
        r.execute("SELECT id, bal FROM acct WHERE id BETWEEN %s AND %s ORDER BY id DESC", (lo, hi))
        assert tuple(reversed(r.fetchall())) == first
        r.execute("SELECT SUM(bal) FROM acct WHERE id BETWEEN 1 AND %s", (accounts,))
        assert int(r.fetchall()[0][0]) == total

    a, _ = db
    hits = global_status(a.cursor(), "Strata_range_cache_hits")
    cur = run_transfers(server, db, accounts, 250, reader, (0, 1, 2))
    # the last reads came after the writers stopped: served from memory
    for _ in range(3):
        cur.execute("SELECT SUM(bal) FROM acct WHERE id BETWEEN 1 AND %s", (accounts,))
    assert global_status(cur, "Strata_range_cache_hits") > hits


def test_range_cache_is_off_with_the_row_cache(tmp_path):
    srv = Server(datadir=str(tmp_path / "data"), extra=("--row-cache-size", "0"))
    srv.start()
    try:
        cur = srv.connect().cursor()
        cur.execute("CREATE DATABASE d")
        cur.execute("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO d.t VALUES (1, 1), (2, 2), (3, 3)")
        for _ in range(3):
            cur.execute("SELECT SUM(v) FROM d.t WHERE id BETWEEN 1 AND 3")
            assert cur.fetchall() == ((6,),)
        assert global_status(cur, "Strata_range_cache_hits") == 0
        assert global_status(cur, "Strata_range_cache_fills") == 0
    finally:
        srv.stop()
