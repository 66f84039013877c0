"""The row cache: hot rows are served from it, and every snapshot still reads what it must."""
import pymysql
import pytest

from conftest import Server, global_status
from transfers import run_transfers


def test_row_cache_hits_and_snapshot_consistency(server, db):
    a, name = db
    ca = a.cursor()
    ca.execute("SELECT @@strata_row_cache_size")
    assert ca.fetchall()[0][0] == 64 << 20
    ca.execute("CREATE TABLE rc (id INT PRIMARY KEY, v INT, s VARCHAR(20))")
    ca.execute("INSERT INTO rc VALUES " + ",".join(f"({i}, {i}, 'r{i}')" for i in range(1, 201)))
    hits = global_status(ca, "Strata_row_cache_hits")
    for _ in range(5):
        for i in range(1, 51):
            ca.execute("SELECT v, s FROM rc WHERE id = %s", (i,))
            assert ca.fetchall() == ((i, f"r{i}"),)
    assert global_status(ca, "Strata_row_cache_hits") - hits >= 4 * 50
    assert global_status(ca, "Strata_row_cache_bytes") > 0

    b = server.connect(name)
    cb = b.cursor()
    # a REPEATABLE READ snapshot keeps its value after another session's commit
    ca.execute("BEGIN")
    ca.execute("SELECT v FROM rc WHERE id = 7")
    assert ca.fetchall() == ((7,),)
    cb.execute("UPDATE rc SET v = 700 WHERE id = 7")
    cb.execute("SELECT v FROM rc WHERE id = 7")
    assert cb.fetchall() == ((700,),)
    ca.execute("SELECT v FROM rc WHERE id = 7")
    assert ca.fetchall() == ((7,),)
    ca.execute("COMMIT")
    ca.execute("SELECT v FROM rc WHERE id = 7")
    assert ca.fetchall() == ((700,),)
    # deleted and re-inserted rows
    cb.execute("DELETE FROM rc WHERE id = 8")
    ca.execute("SELECT v FROM rc WHERE id = 8")
    assert ca.fetchall() == ()
    cb.execute("INSERT INTO rc VALUES (8, 800, 'new')")
    ca.execute("SELECT v, s FROM rc WHERE id = 8")
    assert ca.fetchall() == ((800, "new"),)
    # a rolled-back write leaves the cached row as it was
    cb.execute("BEGIN")
    cb.execute("UPDATE rc SET v = -1 WHERE id = 9")
    cb.execute("ROLLBACK")
    ca.execute("SELECT v FROM rc WHERE id = 9")
    assert ca.fetchall() == ((9,),)
    # DROP / TRUNCATE and a new table under the same name: no stale rows
    ca.execute("TRUNCATE TABLE rc")
    ca.execute("SELECT v FROM rc WHERE id = 1")
    assert ca.fetchall() == ()
    ca.execute("INSERT INTO rc VALUES (1, 11, 'x')")
    ca.execute("SELECT v FROM rc WHERE id = 1")
    assert ca.fetchall() == ((11,),)
    ca.execute("DROP TABLE rc")
    ca.execute("CREATE TABLE rc (id INT PRIMARY KEY, v INT, s VARCHAR(20))")
    ca.execute("INSERT INTO rc VALUES (1, 12, 'y')")
    ca.execute("SELECT v, s FROM rc WHERE id = 1")
    assert ca.fetchall() == ((12, "y"),)
    b.close()


def test_writes_refresh_cached_rows(server, db):
    """An UPDATE reads the row it changes (a locking read) through the row cache, and the
    write puts the new version back into the cache when the old one was there: a row updated
    over and over stays cached. A row never read is not added by a write."""
    a, name = db
    cur = a.cursor()
    cur.execute("CREATE TABLE wt (id INT PRIMARY KEY, n INT)")
    cur.execute("INSERT INTO wt VALUES (1, 0), (2, 0)")
    cur.execute("SELECT n FROM wt WHERE id = 1")
    assert cur.fetchall() == ((0,),)
    hits = global_status(cur, "Strata_row_cache_hits")
    for _ in range(10):
        cur.execute("UPDATE wt SET n = n + 1 WHERE id = 1")
    assert global_status(cur, "Strata_row_cache_hits") - hits >= 10
    cur.execute("SELECT n FROM wt WHERE id = 1")
    assert cur.fetchall() == ((10,),)
    hits, misses = global_status(cur, "Strata_row_cache_hits"), global_status(cur, "Strata_row_cache_misses")
    cur.execute("UPDATE wt SET n = 5 WHERE id = 2")
    cur.execute("UPDATE wt SET n = n + 1 WHERE id = 2")
    # the first UPDATE's read cached row 2, its write refreshed it, the second UPDATE hit it
    assert global_status(cur, "Strata_row_cache_misses") - misses == 1
    cur.execute("SELECT n FROM wt WHERE id = 2")
    assert cur.fetchall() == ((6,),)
    # a row that was never read is not added by its write
    cur.execute("INSERT INTO wt VALUES (3, 7)")
    misses = global_status(cur, "Strata_row_cache_misses")
    cur.execute("SELECT n FROM wt WHERE id = 3")
    assert cur.fetchall() == ((7,),)
    assert global_status(cur, "Strata_row_cache_misses") - misses == 1
    # a deleted cached row is gone, a re-inserted one is read again
    cur.execute("DELETE FROM wt WHERE id = 1")
    cur.execute("SELECT n FROM wt WHERE id = 1")
    assert cur.fetchall() == ()
    cur.execute("INSERT INTO wt VALUES (1, 42)")
    cur.execute("SELECT n FROM wt WHERE id = 1")
    assert cur.fetchall() == ((42,),)


def test_row_cache_under_concurrent_transfers(server, db):
    """Transfers between a few hot accounts from several connections, while readers check
    that every snapshot (point reads through the cache, a scan, locking reads) sees the total
    unchanged; at the end no increment is lost."""
    accounts = 8

    def reader(r, total, locking):
        got = 0
        for i in range(1, accounts + 1):
            r.execute("SELECT bal FROM acct WHERE id = %s" + (" FOR UPDATE" if locking else ""), (i,))
            got += r.fetchall()[0][0]
        r.execute("SELECT SUM(bal) FROM acct")
        scan = int(r.fetchall()[0][0])
        if locking:
            # locking reads see the latest commits; with every row locked, the sum holds
            assert got == total, got
        else:
            assert (got, scan) == (total, total), (got, scan)

    run_transfers(server, db, accounts, 300, reader, (False, False, True), read_first=True)


def test_row_cache_can_be_turned_off(tmp_path):
    srv = Server(datadir=str(tmp_path / "data"), extra=("--row-cache-size", "0"))
    srv.start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("SELECT @@strata_row_cache_size")
        assert cur.fetchall()[0][0] == 0
        cur.execute("CREATE DATABASE d")
        cur.execute("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO d.t VALUES (1, 1)")
        for _ in range(3):
            cur.execute("SELECT v FROM d.t WHERE id = 1")
            assert cur.fetchall() == ((1,),)
        assert global_status(cur, "Strata_row_cache_hits") == 0
    finally:
        srv.stop()


def hundred_rows(srv):
    """Creates d.t (id, v) with rows 1..100 (v = id); returns a cursor."""
    cur = srv.connect().cursor()
    cur.execute("CREATE DATABASE d")
    cur.execute("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO d.t VALUES " + ",".join(f"({i}, {i})" for i in range(1, 101)))
    return cur


def test_block_cache_counters_count_blocks_read_from_files(tmp_path):
    # Without the row cache every read goes to RocksDB; after a restart the rows are in SST
    # files (the recovered log is flushed), so the first read of a row brings its data block
    # into the block cache and later reads hit it. Without the binary log: its records in the
    # dictionary spread the dictionary over more blocks, whose first reads would count too.
    srv = Server(datadir=str(tmp_path / "data"), extra=("--row-cache-size", "0", "--skip-log-bin"))
    srv.start()
    try:
        hundred_rows(srv)
    finally:
        srv.stop()
    srv.start()
    try:
        cur = srv.connect().cursor()
        names = ("hits", "misses", "data_hits", "data_misses", "data_adds",
                 "index_misses", "filter_misses")
        before = {n: global_status(cur, f"Strata_block_cache_{n}") for n in names}
        cur.execute("SELECT v FROM d.t WHERE id = 42")
        assert cur.fetchall() == ((42,),)
        mid = {n: global_status(cur, f"Strata_block_cache_{n}") for n in names}
        assert mid["data_adds"] - before["data_adds"] >= 1
        assert mid["data_misses"] - before["data_misses"] >= 1
        for _ in range(5):
            cur.execute("SELECT v FROM d.t WHERE id = 42")
            assert cur.fetchall() == ((42,),)
        after = {n: global_status(cur, f"Strata_block_cache_{n}") for n in names}
        assert after["data_hits"] - mid["data_hits"] >= 5
        assert after["data_adds"] == mid["data_adds"]
        assert after["hits"] >= after["data_hits"]
    finally:
        srv.stop()


def test_force_flush_memtable_now_writes_the_rows_to_sst_files(tmp_path):
    # SET GLOBAL strata_force_flush_memtable_now = ON (MyRocks' rocksdb_force_flush_memtable_now):
    # rows only in the memtable are read without touching a file; after the flush they are in
    # a new SST file, so reading one brings a data block in from that file.
    datadir = tmp_path / "data"
    srv = Server(datadir=str(datadir), extra=("--row-cache-size", "0"))
    srv.start()
    try:
        cur = hundred_rows(srv)
        ssts = lambda: sorted(p.name for p in (datadir / "rocksdb").glob("*.sst"))
        before = ssts()
        adds = global_status(cur, "Strata_block_cache_data_adds")
        cur.execute("SELECT v FROM d.t WHERE id = 7")
        assert cur.fetchall() == ((7,),)
        assert global_status(cur, "Strata_block_cache_data_adds") == adds

        with pytest.raises(pymysql.err.OperationalError) as e:
            cur.execute("SET strata_force_flush_memtable_now = ON")
        assert e.value.args[0] == 1229
        cur.execute("SET GLOBAL strata_force_flush_memtable_now = ON")
        cur.execute("SELECT @@global.strata_force_flush_memtable_now")
        assert cur.fetchall() == ((0,),)
        assert set(ssts()) - set(before), "the flush wrote no SST file"

        cur.execute("SELECT v FROM d.t WHERE id = 8")
        assert cur.fetchall() == ((8,),)
        assert global_status(cur, "Strata_block_cache_data_adds") > adds
        cur.execute("SELECT COUNT(*), SUM(v) FROM d.t")
        assert cur.fetchall() == ((100, 5050),)
    finally:
        srv.stop()
