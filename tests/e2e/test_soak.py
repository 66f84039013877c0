"""Crash-recovery soak: repeated SIGKILL cycles under a mixed concurrent workload.

Each cycle runs, concurrently,
  - bank transfers between accounts (SELECT ... FOR UPDATE in id order, two UPDATEs and a row in
    a transfer log, one transaction),
  - inserts into a table with secondary indexes (two rows per transaction, one of them a UNIQUE
    key) plus updates that move rows within a secondary index,
  - DDL: CREATE TABLE with an index, INSERT, ALTER TABLE ADD INDEX, DROP TABLE,
then SIGKILLs the server at a random moment, restarts it and checks that
  - every acknowledged commit is present (transfers, inserted row pairs, created and dropped
    tables), no transaction is half applied (each balance equals its opening balance plus the
    logged transfers in and out of it), and the bank total is unchanged,
  - CHECK TABLE reports OK for every table (primary and secondary indexes consistent).

The default run is short (3 cycles). A long soak:
    STRATA_SOAK_CYCLES=100 STRATA_SOAK_SECONDS=10 python -m pytest -q tests/e2e/test_soak.py
"""
import os
import random
import threading
import time

import pymysql

from conftest import Server

CYCLES = int(os.environ.get("STRATA_SOAK_CYCLES", "3"))
SECONDS = float(os.environ.get("STRATA_SOAK_SECONDS", "3"))
ACCOUNTS = 20
OPENING = 1000
RETRYABLE = (1213, 1205)


class Acked:
    """What the server acknowledged (commit returned OK) across all cycles."""

    def __init__(self):
        self.lock = threading.Lock()
        self.transfers = set()
        self.events = set()  # (writer, seq) pairs, both rows committed together
        self.tables_created = set()
        self.tables_dropped = set()
        # a DROP sent but not acknowledged when the server died may or may not have committed
        self.drops_in_flight = set()


def transfer_worker(srv, wid, cycle, acked, stop, rng):
    c = srv.connect(db="soak", autocommit=False)
    cur = c.cursor()
    seq = 0
    try:
        while not stop.is_set():
            seq += 1
            tid = (cycle * 100 + wid) * 1_000_000 + seq
            a, b = rng.sample(range(1, ACCOUNTS + 1), 2)
            amount = rng.randint(1, 50)
            try:
                cur.execute("START TRANSACTION")
                cur.execute("SELECT id, bal FROM bank WHERE id IN (%s, %s) ORDER BY id FOR UPDATE", (a, b))
                bal = dict(cur.fetchall())
                if bal[a] < amount:
                    c.rollback()
                    continue
                cur.execute("UPDATE bank SET bal = bal - %s WHERE id = %s", (amount, a))
                cur.execute("UPDATE bank SET bal = bal + %s WHERE id = %s", (amount, b))
                cur.execute("INSERT INTO transfers VALUES (%s, %s, %s, %s)", (tid, a, b, amount))
                c.commit()
            except pymysql.err.OperationalError as e:
                if e.args[0] in RETRYABLE:
                    c.rollback()
                    continue
                raise
            with acked.lock:
                acked.transfers.add(tid)
    except Exception:  # the server was killed
        pass


def insert_worker(srv, wid, cycle, acked, stop, rng):
    c = srv.connect(db="soak", autocommit=False)
    cur = c.cursor()
    writer = cycle * 100 + wid
    seq = 0
    try:
        while not stop.is_set():
            seq += 1
            base = writer * 10_000_000 + seq * 2
            k = rng.randint(0, 1000)
            cur.execute(
                "INSERT INTO events VALUES (%s, %s, %s, %s, %s), (%s, %s, %s, %s, %s)",
                (base, writer, seq, k, f"u{base}", base + 1, writer, seq, k + 1, f"u{base + 1}"),
            )
            if seq % 5 == 0:
                # move an acknowledged row within KEY(k) and the UNIQUE key
                cur.execute("UPDATE events SET k = k + 7, u = CONCAT(u, 'x') WHERE id = %s", (base - 4,))
            c.commit()
            with acked.lock:
                acked.events.add((writer, seq))
    except Exception:
        pass


def ddl_worker(srv, cycle, acked, stop):
    c = srv.connect(db="soak")
    cur = c.cursor()
    n = 0
    try:
        while not stop.is_set():
            n += 1
            name = f"ddl_{cycle}_{n}"
            cur.execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, v INT, w VARCHAR(20), KEY (v))")
            with acked.lock:
                acked.tables_created.add(name)
            cur.execute(f"INSERT INTO {name} VALUES " + ",".join(f"({i}, {i % 7}, 'w{i}')" for i in range(50)))
            cur.execute(f"ALTER TABLE {name} ADD INDEX vw (v, w)")
            if n % 2 == 0:
                old = f"ddl_{cycle}_{n - 1}"
                with acked.lock:
                    acked.drops_in_flight.add(old)
                cur.execute(f"DROP TABLE {old}")
                with acked.lock:
                    acked.tables_dropped.add(old)
                    acked.drops_in_flight.discard(old)
    except Exception:
        pass


def verify(srv, acked):
    c = srv.connect(db="soak")
    cur = c.cursor()
    cur.execute("SELECT SUM(bal), COUNT(*) FROM bank")
    total, n = cur.fetchone()
    assert (int(total), n) == (ACCOUNTS * OPENING, ACCOUNTS), "bank total changed"
    cur.execute("SELECT id FROM transfers")
    present = {r[0] for r in cur.fetchall()}
    lost = acked.transfers - present
    assert not lost, f"{len(lost)} acknowledged transfers lost, e.g. {sorted(lost)[:5]}"
    # no half-applied transfer: balances agree with the log
    cur.execute(
        "SELECT b.id, b.bal, "
        " COALESCE((SELECT SUM(amount) FROM transfers WHERE dst = b.id), 0)"
        " - COALESCE((SELECT SUM(amount) FROM transfers WHERE src = b.id), 0) FROM bank b")
    for acc, bal, delta in cur.fetchall():
        assert bal == OPENING + int(delta), f"account {acc}: balance {bal} != {OPENING} + {delta}"
    cur.execute("SELECT writer, seq, COUNT(*) FROM events GROUP BY writer, seq")
    pairs = {(w, s): k for w, s, k in cur.fetchall()}
    assert all(k == 2 for k in pairs.values()), "a half-committed event pair is visible"
    lost = acked.events - set(pairs)
    assert not lost, f"{len(lost)} acknowledged event pairs lost, e.g. {sorted(lost)[:5]}"
    # the secondary indexes answer the same as the primary
    cur.execute("SELECT COUNT(*) FROM events")
    total_rows = cur.fetchone()[0]
    cur.execute("SELECT COUNT(*) FROM events FORCE INDEX (k) WHERE k >= 0")
    assert cur.fetchone()[0] == total_rows
    cur.execute("SHOW TABLES")
    tables = {r[0] for r in cur.fetchall()}
    missing = (acked.tables_created - acked.tables_dropped - acked.drops_in_flight) - tables
    assert not missing, f"acknowledged CREATE TABLE lost: {missing}"
    back = acked.tables_dropped & tables
    assert not back, f"acknowledged DROP TABLE undone: {back}"
    for t in sorted(tables):
        cur.execute(f"CHECK TABLE {t}")
        rows = cur.fetchall()
        assert rows == ((f"soak.{t}", "check", "status", "OK"),), rows
    c.close()


def test_soak_sigkill_cycles():
    srv = Server().start()
    c = srv.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE soak")
    cur.execute("CREATE TABLE soak.bank (id INT PRIMARY KEY, bal INT NOT NULL)")
    cur.execute("INSERT INTO soak.bank VALUES " + ",".join(f"({i}, {OPENING})" for i in range(1, ACCOUNTS + 1)))
    cur.execute("CREATE TABLE soak.transfers (id BIGINT PRIMARY KEY, src INT, dst INT, amount INT, KEY (src), KEY (dst))")
    cur.execute(
        "CREATE TABLE soak.events (id BIGINT PRIMARY KEY, writer INT, seq INT, k INT, u VARCHAR(40),"
        " KEY ws (writer, seq), KEY k (k), UNIQUE KEY u (u))")
    c.close()
    acked = Acked()
    rng = random.Random(int(os.environ.get("STRATA_SOAK_SEED", "0")) or None)
    for cycle in range(1, CYCLES + 1):
        stop = threading.Event()
        threads = [threading.Thread(target=transfer_worker, args=(srv, w, cycle, acked, stop, random.Random(rng.random())))
                   for w in range(3)]
        threads += [threading.Thread(target=insert_worker, args=(srv, 10 + w, cycle, acked, stop, random.Random(rng.random())))
                    for w in range(2)]
        threads.append(threading.Thread(target=ddl_worker, args=(srv, cycle, acked, stop)))
        before = (len(acked.transfers), len(acked.events))
        for t in threads:
            t.start()
        time.sleep(SECONDS * rng.uniform(0.5, 1.0))
        srv.kill(9)
        stop.set()
        for t in threads:
            t.join(30)
        assert len(acked.transfers) > before[0] and len(acked.events) > before[1], "no progress in this cycle"
        srv.start(port=srv.port)
        verify(srv, acked)
    print(f"soak: {CYCLES} cycles, {len(acked.transfers)} transfers, {len(acked.events)} event pairs, "
          f"{len(acked.tables_created)} tables created, {len(acked.tables_dropped)} dropped, all verified")
    srv.stop()
