"""Results streamed to the client: `SELECT * FROM big` through `mariadb --quick`, `mariadb-dump`,
an unbuffered PyMySQL cursor and mysql-connector's prepared cursor (binary protocol) are sent as
the table is read, so the server's memory does not
grow with the table (the whole result used to be built before the first row went out).

The table is STRATA_STREAM_TEST_MB MiB of rows (default 256; the issue's figure is 1536:
`STRATA_STREAM_TEST_MB=1536 python -m pytest tests/e2e/test_streaming.py`). The server's peak
RSS is reset (/proc/PID/clear_refs) before each read and compared with its RSS before it. The
server runs with a 32 MiB block cache: the cache is bounded by its own setting (256 MiB by
default) and a scan fills it whatever the result path, so a small one keeps it from hiding the
memory of the result itself."""
import os
import subprocess
import time

import pymysql
import pymysql.cursors
import pytest

from conftest import Server

MB = int(os.environ.get("STRATA_STREAM_TEST_MB", "256"))
ROW = 1000  # bytes of padding per row
GROWTH_LIMIT_MB = 200


def rss_kb(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def reset_peak(pid):
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


@pytest.fixture(scope="module")
def big():
    s = Server(extra=["--block-cache-size", "32M"]).start()
    c = s.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE stream")
    cur.execute("CREATE TABLE stream.big (id BIGINT PRIMARY KEY, k INT, pad VARCHAR(1000))")
    rows = MB * 1024 * 1024 // (ROW + 12)
    batch = 1000
    pad = "x" * (ROW - 10)
    start = time.time()
    for first in range(0, rows, batch):
        n = min(batch, rows - first)
        values = ",".join(f"({i},{i % 97},'{i:010d}{pad}')" for i in range(first, first + n))
        cur.execute(f"INSERT INTO stream.big VALUES {values}")
    print(f"loaded {rows} rows ({MB} MiB) in {time.time() - start:.1f} s")
    c.close()
    yield s, rows
    s.stop()


def measure(pid, run):
    """Runs `run()` and returns (its result, peak RSS growth in MiB over the RSS before it)."""
    time.sleep(0.5)
    reset_peak(pid)
    before = rss_kb(pid, "VmRSS")
    out = run()
    growth = (rss_kb(pid, "VmHWM") - before) / 1024
    return out, growth


def test_mariadb_quick_select_star(big):
    s, rows = big

    def run():
        p = subprocess.Popen(["mariadb", "-h127.0.0.1", f"-P{s.port}", "-uroot", "--skip-ssl", "--quick",
                              "-N", "-B", "-e", "SELECT * FROM stream.big"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines = 0
        last = b""
        for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
            lines += chunk.count(b"\n")
            last = chunk
        assert p.wait(timeout=600) == 0, p.stderr.read()
        return lines, last

    (lines, last), growth = measure(s.proc.pid, run)
    print(f"mariadb --quick: {lines} rows, server RSS +{growth:.1f} MiB")
    assert lines == rows
    assert last.split(b"\n")[-2].startswith(f"{rows - 1}\t".encode())
    assert growth < GROWTH_LIMIT_MB


def test_mariadb_dump(big):
    s, rows = big

    def run():
        p = subprocess.Popen(["mariadb-dump", "-h127.0.0.1", f"-P{s.port}", "-uroot", "--skip-ssl",
                              "stream", "big"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        size = 0
        for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
            size += len(chunk)
        assert p.wait(timeout=600) == 0, p.stderr.read()
        return size

    size, growth = measure(s.proc.pid, run)
    print(f"mariadb-dump: {size / 2**20:.0f} MiB of dump, server RSS +{growth:.1f} MiB")
    assert size > rows * ROW
    assert growth < GROWTH_LIMIT_MB


def test_binary_protocol(big):
    """COM_STMT_EXECUTE (mysql-connector's prepared cursor) streams in the binary protocol."""
    import mysql.connector
    s, rows = big

    def run():
        c = mysql.connector.connect(host="127.0.0.1", port=s.port, user="root", password="", use_pure=True)
        cur = c.cursor(prepared=True)
        cur.execute("SELECT id, k, pad FROM stream.big WHERE id >= ?", (0,))
        n, last = 0, None
        for r in cur:
            n += 1
            last = r
        c.close()
        return n, last

    (n, last), growth = measure(s.proc.pid, run)
    print(f"binary protocol: {n} rows, server RSS +{growth:.1f} MiB")
    assert n == rows
    assert last[0] == rows - 1 and last[1] == (rows - 1) % 97
    assert len(last[2]) == ROW
    assert growth < GROWTH_LIMIT_MB


def test_unbuffered_cursor_and_early_close(big):
    s, rows = big

    def run():
        c = s.connect(cursorclass=pymysql.cursors.SSCursor)
        cur = c.cursor()
        cur.execute("SELECT id, k FROM stream.big WHERE k = 3")
        got = [r[0] for r in cur]
        c.close()
        return got

    got, growth = measure(s.proc.pid, run)
    assert got == [i for i in range(rows) if i % 97 == 3]
    assert growth < GROWTH_LIMIT_MB
    # a client that goes away in the middle of a streamed result: the statement ends with a
    # write error, the server and the other connections stay up
    p = subprocess.run(f"mariadb -h127.0.0.1 -P{s.port} -uroot --skip-ssl --quick -N -B "
                       f"-e 'SELECT * FROM stream.big' | head -c 100000 | wc -c",
                       shell=True, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "100000"
    c2 = s.connect()
    cur2 = c2.cursor()
    cur2.execute("SELECT COUNT(*) FROM stream.big")
    assert cur2.fetchone()[0] == rows
    # an error after rows went out ends the result with an error packet (3141: row 5's
    # argument is not JSON); the connection stays usable
    with pytest.raises(pymysql.MySQLError) as e:
        cur2.execute("SELECT id, JSON_EXTRACT(IF(id = 5, 'x', '{}'), '$') FROM stream.big WHERE id < 10")
        cur2.fetchall()
    assert e.value.args[0] == 3141
    cur2.execute("SELECT 1")
    assert cur2.fetchone() == (1,)
    c2.close()


def tmp_fds(pid, datadir):
    """The server's open temporary files (unnamed files in the data directory)."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        # O_TMPFILE files read as "DIR/#INODE (deleted)"; tempfile's fallback is a named
        # ".tmpXXXXXX" unlinked at once (RocksDB's own deleted-but-open files are neither)
        base = os.path.basename(target)
        if (os.path.dirname(target) == os.path.realpath(datadir) and "(deleted)" in target
                and (base.startswith("#") or base.startswith(".tmp"))):
            out.append(target)
    return out


def status(cur, name):
    cur.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
    return int(cur.fetchone()[1])


def test_order_by_spills_to_temporary_files(big):
    """ORDER BY on an unindexed column over the whole table, with an 8 MiB sort buffer: the
    sort writes runs to unnamed files in the data directory and merges them, the rows stream
    out in order, memory stays flat, and no file is left open afterwards (nor after KILL
    QUERY in the middle of a sort)."""
    s, rows = big
    c = s.connect()
    cur = c.cursor()
    cur.execute("SET GLOBAL sort_buffer_size = 8388608")
    passes0, files0 = status(cur, "Sort_merge_passes"), status(cur, "Created_tmp_files")

    def run():
        p = subprocess.Popen(["mariadb", "-h127.0.0.1", f"-P{s.port}", "-uroot", "--skip-ssl", "--quick",
                              "-N", "-B", "-e", "SELECT id, k FROM stream.big ORDER BY k DESC, id"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        prev, n, ok = None, 0, True
        for line in p.stdout:
            i, k = map(int, line.split())
            if prev is not None and not (k < prev[1] or (k == prev[1] and i > prev[0])):
                ok = False
            prev, n = (i, k), n + 1
        assert p.wait(timeout=600) == 0, p.stderr.read()
        return n, ok, prev

    (n, ordered, last), growth = measure(s.proc.pid, run)
    print(f"ORDER BY over {rows} rows: server RSS +{growth:.1f} MiB, "
          f"{status(cur, 'Created_tmp_files') - files0} files, "
          f"{status(cur, 'Sort_merge_passes') - passes0} merge passes")
    assert n == rows and ordered
    assert last[1] == 0
    assert growth < GROWTH_LIMIT_MB
    assert status(cur, "Sort_merge_passes") > passes0
    assert status(cur, "Created_tmp_files") > files0
    assert tmp_fds(s.proc.pid, s.datadir) == []
    # KILL QUERY while the sort writes its runs: the statement ends with 1317, its files close
    victim = s.connect()
    vid = victim.thread_id()
    import threading
    err = []

    def sort():
        try:
            vc = victim.cursor()
            vc.execute("SELECT pad FROM stream.big ORDER BY k, id DESC")
            vc.fetchall()
        except pymysql.MySQLError as e:
            err.append(e.args[0])

    t = threading.Thread(target=sort)
    t.start()
    deadline = time.time() + 30
    while time.time() < deadline and not tmp_fds(s.proc.pid, s.datadir):
        time.sleep(0.05)
    assert tmp_fds(s.proc.pid, s.datadir), "the sort wrote no run"
    cur.execute(f"KILL QUERY {vid}")
    t.join(timeout=120)
    assert err and err[0] == 1317, err
    time.sleep(0.2)
    assert tmp_fds(s.proc.pid, s.datadir) == []
    cur.execute("SET GLOBAL sort_buffer_size = DEFAULT")
    c.close()


def test_group_by_streams_and_spills(big):
    """GROUP BY reads the table as it streams (the groups are held, not the rows); past the
    in-memory temporary table's size the rows of new groups go to a sort by group key on disk
    (Created_tmp_disk_tables), and the result equals the in-memory one."""
    s, rows = big
    c = s.connect()
    cur = c.cursor()

    def run(sql):
        def go():
            p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{s.port}", "-uroot", "--skip-ssl", "--quick",
                                "-N", "-B", "-e", sql], capture_output=True, timeout=600)
            assert p.returncode == 0, p.stderr
            return p.stdout.decode().splitlines()
        return measure(s.proc.pid, go)

    lines, growth = run("SELECT k, COUNT(*), SUM(id) FROM stream.big GROUP BY k")
    print(f"GROUP BY k (97 groups): server RSS +{growth:.1f} MiB")
    got = {int(l.split()[0]): int(l.split()[1]) for l in lines}
    assert got == {k: len(range(k, rows, 97)) for k in range(97)}
    assert growth < GROWTH_LIMIT_MB
    cur.execute("SET GLOBAL tmp_table_size = 4194304")
    disk0 = status(cur, "Created_tmp_disk_tables")
    lines, growth = run("SELECT id DIV 2 AS g, COUNT(*), MAX(k) FROM stream.big GROUP BY g ORDER BY g DESC")
    print(f"GROUP BY id DIV 2 ({len(lines)} groups, 4 MiB table): server RSS +{growth:.1f} MiB, "
          f"{status(cur, 'Created_tmp_disk_tables') - disk0} disk tables")
    assert len(lines) == (rows + 1) // 2
    first = lines[0].split()
    assert int(first[0]) == (rows - 1) // 2
    assert [int(l.split()[0]) for l in lines[:3]] == [(rows - 1) // 2 - i for i in range(3)]
    assert all(int(l.split()[1]) in (1, 2) for l in lines)
    assert status(cur, "Created_tmp_disk_tables") > disk0
    assert growth < GROWTH_LIMIT_MB
    assert tmp_fds(s.proc.pid, s.datadir) == []
    cur.execute("SET GLOBAL tmp_table_size = DEFAULT")
    c.close()
