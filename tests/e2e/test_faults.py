"""Storage faults over the wire: the disk under the data directory fills up. Writes fail with a
clear MySQL error (1021), reads and new connections keep working, nothing acknowledged is lost,
and the server takes writes again by itself once space is freed. The data directory lives on a
private tmpfs (needs root to mount).

(A read-only file system is not tested: a tmpfs with files open for writing cannot be remounted
read-only.)"""
import os
import subprocess
import tempfile
import time

import pymysql
import pytest

from conftest import Server

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")

ROW = "r" * 1400


@pytest.fixture()
def tmpfs():
    d = tempfile.mkdtemp(prefix="strata-fault-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", d], check=True)
    yield d
    subprocess.run(["umount", "-l", d], check=False)
    os.rmdir(d)


def errno(fn):
    try:
        fn()
    except pymysql.err.MySQLError as e:
        return e.args[0], e.args[1]
    raise AssertionError("no error raised")


def verify(srv, acked):
    c = srv.connect(db="f")
    cur = c.cursor()
    cur.execute("SELECT id FROM t")
    present = {r[0] for r in cur.fetchall()}
    lost = acked - present
    assert not lost, f"{len(lost)} acknowledged rows lost"
    cur.execute("SELECT COUNT(*) FROM t FORCE INDEX (k)")
    assert cur.fetchone()[0] == len(present)
    cur.execute("CHECK TABLE t")
    assert cur.fetchall()[0][3] == "OK"


def fill_until_error(cur, acked, start):
    i = start
    while True:
        ids = list(range(i, i + 100))
        try:
            cur.execute("INSERT INTO t VALUES " + ",".join(f"({n}, {n % 97}, '{ROW}')" for n in ids))
        except pymysql.err.MySQLError as e:
            return e.args[0], e.args[1], i
        acked.update(ids)
        i += 100
        assert i < 10_000_000, "the disk never filled up"


def test_disk_full_refuses_writes_keeps_reads_and_recovers(tmpfs):
    filler = os.path.join(tmpfs, "filler")
    with open(filler, "wb") as f:
        f.write(b"\0" * (100 << 20))
    srv = Server(datadir=os.path.join(tmpfs, "data"), extra=["--block-cache-size", "16M"]).start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("CREATE DATABASE f")
        cur.execute("CREATE TABLE f.t (id INT PRIMARY KEY, k INT, v VARCHAR(2000), KEY (k))")
        cur.execute("USE f")
        acked = set()
        code, msg, nxt = fill_until_error(cur, acked, 0)
        assert code == 1021 and "Disk full" in msg, (code, msg)
        # reads, new connections and further writes (refused the same way) — the server stays up
        cur.execute("SELECT COUNT(*) FROM t")
        assert cur.fetchone()[0] == len(acked)
        other = srv.connect(db="f")
        oc = other.cursor()
        oc.execute("SELECT MAX(id) FROM t WHERE k = 5")
        assert oc.fetchone()[0] is not None
        assert errno(lambda: oc.execute("INSERT INTO t VALUES (-1, 1, 'x')"))[0] == 1021
        assert errno(lambda: oc.execute("CREATE TABLE t2 (a INT)"))[0] == 1021
        # space returns: writes resume without a restart
        os.remove(filler)
        deadline = time.time() + 90
        while True:
            try:
                oc.execute("INSERT INTO t VALUES (-1, 1, 'after')")
                acked.add(-1)
                break
            except pymysql.err.MySQLError as e:
                assert e.args[0] == 1021, e
                assert time.time() < deadline, "writes did not resume after space was freed"
                time.sleep(1)
        cur.execute("INSERT INTO t VALUES " + ",".join(f"({n}, 1, 'x')" for n in range(nxt, nxt + 50)))
        acked.update(range(nxt, nxt + 50))
        verify(srv, acked)
        # and everything acknowledged survives a crash
        srv.kill(9)
        srv.start(port=srv.port)
        verify(srv, acked)
    finally:
        srv.stop()
