"""Server-side cursors through a real client: MariaDB Connector/C (the `mariadb` Python package)
with `cursor_type=CURSOR.READ_ONLY` sends COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY and then
COM_STMT_FETCH for `prefetch_size` rows at a time.

The server materialises the result into an unnamed temporary file in its tmpdir (the data
directory) at EXECUTE and sends rows from it on each fetch, so its memory does not grow with
the result. The table is STRATA_CURSOR_TEST_MB MiB of rows (default 64); the server runs with
an 8 MiB block cache so that the cache (bounded by its own setting, and filled by any scan)
does not hide the memory of the result itself."""
import hashlib
import os
import time

import pymysql.cursors
import pytest

from conftest import Server

mariadb = pytest.importorskip("mariadb")
from mariadb.constants import CURSOR  # noqa: E402

MB = int(os.environ.get("STRATA_CURSOR_TEST_MB", "64"))
ROW = 1000  # bytes of padding per row
GROWTH_LIMIT_MB = 24
SMALL = 1000  # rows of cursors.small


def rss_kb(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def measure(pid, run):
    """Runs `run()` and returns (its result, peak RSS growth in MiB over the RSS before it)."""
    time.sleep(0.5)
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
    before = rss_kb(pid, "VmRSS")
    out = run()
    return out, (rss_kb(pid, "VmHWM") - before) / 1024


def tmp_fds(s):
    """The server's open temporary files: unnamed files in its data directory."""
    out = []
    for fd in os.listdir(f"/proc/{s.proc.pid}/fd"):
        try:
            target = os.readlink(f"/proc/{s.proc.pid}/fd/{fd}")
        except OSError:
            continue
        base = os.path.basename(target)
        if (os.path.dirname(target) == os.path.realpath(s.datadir) and "(deleted)" in target
                and (base.startswith("#") or base.startswith(".tmp"))):
            out.append(target)
    return out


@pytest.fixture(scope="module")
def srv():
    s = Server(extra=["--block-cache-size", "8M"]).start()
    c = s.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE cursors")
    cur.execute("CREATE TABLE cursors.big (id BIGINT PRIMARY KEY, k INT, pad VARCHAR(1000))")
    rows = MB * 1024 * 1024 // (ROW + 12)
    pad = "x" * (ROW - 10)
    for first in range(0, rows, 1000):
        values = ",".join(f"({i},{i % 97},'{i:010d}{pad}')" for i in range(first, min(first + 1000, rows)))
        cur.execute(f"INSERT INTO cursors.big VALUES {values}")
    cur.execute("CREATE TABLE cursors.small (id INT PRIMARY KEY, name VARCHAR(20), d DATE, x DOUBLE)")
    cur.execute("INSERT INTO cursors.small VALUES " + ",".join(
        f"({i},'n{i}',{'NULL' if i % 7 == 0 else repr(f'2024-01-{i % 28 + 1:02d}')},{i / 4})"
        for i in range(SMALL)))
    c.close()
    yield s, rows
    s.stop()


def connect(s):
    return mariadb.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)


def cursor(conn, prefetch):
    """A server-side cursor fetching `prefetch` rows at a time. The connector's cursors are
    buffered by default: it would then fetch every row at once (mysql_stmt_store_result)."""
    return conn.cursor(cursor_type=CURSOR.READ_ONLY, prefetch_size=prefetch, buffered=False)


def test_cursor_rows_equal_a_plain_select_in_flat_memory(srv):
    s, rows = srv
    sql = "SELECT id, k, pad FROM cursors.big WHERE id >= %s"

    def digest(it):
        h, n, last = hashlib.sha256(), 0, None
        for r in it:
            h.update(repr(tuple(r)).encode())
            n, last = n + 1, r
        return h.hexdigest(), n, last

    def through_cursor():
        conn = connect(s)
        cur = cursor(conn, 500)
        cur.execute(sql.replace("%s", "?"), (0,))
        # the result is materialised at EXECUTE: the server holds it in one temporary file
        opened = tmp_fds(s)
        out = digest(cur)
        cur.close()
        conn.close()
        return out, opened

    ((got, n, last), opened), growth = measure(s.proc.pid, through_cursor)
    print(f"cursor over {rows} rows ({MB} MiB): server RSS +{growth:.1f} MiB")
    assert len(opened) == 1, opened
    assert n == rows and last[0] == rows - 1 and len(last[2]) == ROW
    assert growth < GROWTH_LIMIT_MB
    time.sleep(0.2)
    assert tmp_fds(s) == [], "the cursor's file is closed with the statement"
    plain = s.connect(cursorclass=pymysql.cursors.SSCursor)
    pc = plain.cursor()
    pc.execute(sql, (0,))
    assert digest(pc) == (got, n, last)
    plain.close()


SMALL_SQL = "SELECT id, name, d, x FROM cursors.small WHERE id >= ? AND id < ? ORDER BY id"


def small_rows(s, lo, hi):
    """The rows of SMALL_SQL read without a cursor."""
    c = connect(s)
    cur = c.cursor()
    cur.execute(SMALL_SQL, (lo, hi))
    out = cur.fetchall()
    c.close()
    return out


def test_two_cursors_on_one_connection_interleaved(srv):
    s, _ = srv
    conn = connect(s)
    a, b = cursor(conn, 3), cursor(conn, 7)
    a.execute(SMALL_SQL, (0, 500))
    b.execute(SMALL_SQL, (500, 1000))
    assert len(tmp_fds(s)) == 2
    got_a, got_b = [], []
    while True:
        ra, rb = a.fetchmany(5), b.fetchone()
        got_a += ra
        if rb is not None:
            got_b.append(rb)
        if not ra and rb is None:
            break
    assert len(tmp_fds(s)) == 0, "both cursors read to their end are closed"
    assert got_a == small_rows(s, 0, 500)
    assert got_b == small_rows(s, 500, 1000)
    assert got_a[7][2] is None and got_a[8][1] == "n8"
    # a statement re-executed with other parameters starts a new cursor; an empty result too
    a.execute(SMALL_SQL, (10, 13))
    assert a.fetchall() == small_rows(s, 10, 13)
    a.execute(SMALL_SQL, (5000, 6000))
    assert a.fetchall() == []
    a.close()
    b.close()
    conn.close()


def test_closing_a_cursor_midway_then_other_statements(srv):
    s, rows = srv
    conn = connect(s)
    cur = cursor(conn, 10)
    cur.execute("SELECT id, pad FROM cursors.big WHERE id >= ?", (0,))
    first = [cur.fetchone()[0] for _ in range(25)]
    assert first == list(range(25))
    assert len(tmp_fds(s)) == 1
    cur.close()  # COM_STMT_CLOSE: the cursor and its file go
    time.sleep(0.2)
    assert tmp_fds(s) == []
    # the connection goes on: plain statements, a text query, another cursor
    other = conn.cursor()
    other.execute("SELECT COUNT(*) FROM cursors.big")
    assert other.fetchone()[0] == rows
    other.execute("INSERT INTO cursors.small VALUES (?, ?, NULL, 0)", (SMALL, "late"))
    again = cursor(conn, 4)
    again.execute("SELECT name FROM cursors.small WHERE id >= ? ORDER BY id", (SMALL - 2,))
    assert [r[0] for r in again] == [f"n{SMALL - 2}", f"n{SMALL - 1}", "late"]
    other.execute("DELETE FROM cursors.small WHERE id = ?", (SMALL,))
    again.close()
    other.close()
    conn.close()
    # a connection that ends with a cursor open: its file closes with it
    conn = connect(s)
    cur = cursor(conn, 10)
    cur.execute("SELECT id FROM cursors.big WHERE id >= ?", (0,))
    cur.fetchone()
    assert len(tmp_fds(s)) == 1
    conn.close()
    deadline = time.time() + 10
    while tmp_fds(s) and time.time() < deadline:
        time.sleep(0.05)
    assert tmp_fds(s) == []
