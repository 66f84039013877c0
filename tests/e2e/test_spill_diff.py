"""Operators that spill, checked against MariaDB: ORDER BY, GROUP BY, COUNT(DISTINCT), window
functions, a hash join and a derived table over more intermediate rows than their memory budgets, on the same
data in Strata and in a private mariadbd. Each query's result (its text through the `mariadb`
client, `--quick`) must be byte for byte MariaDB's; Strata's counters must show the spill
(`Sort_merge_passes`, `Created_tmp_disk_tables`, `Created_tmp_files`), its memory must stay
flat, and no temporary file may be left open afterwards.

Sizes: STRATA_SPILL_TEST_MB MiB of rows (default 24) with STRATA_SPILL_BUDGET_MB MiB budgets
(default 1) for `sort_buffer_size`, `join_buffer_size`, `tmp_table_size` and
`max_heap_table_size`; the server's RSS may grow by four budgets and 64 MiB at most. The issue's run is 2 GiB with 64 MiB budgets:
`STRATA_SPILL_TEST_MB=2048 STRATA_SPILL_BUDGET_MB=64 python -m pytest tests/e2e/test_spill_diff.py`
(long: both servers load the table)."""
import hashlib
import os
import subprocess
import time

import pytest

from conftest import Server
from mariadb_server import start_or_skip
from test_streaming import measure, tmp_fds

MB = int(os.environ.get("STRATA_SPILL_TEST_MB", "24"))
BUDGET = int(os.environ.get("STRATA_SPILL_BUDGET_MB", "1")) * 1024 * 1024
ROW = 200  # bytes per row, about
# Each buffering operator holds up to its budget, and a query may run three at once (a GROUP
# BY's groups, the sort of its overflow rows and the sort of its result; a hash join's table
# and its chunk files' buffers): memory is bounded by the budgets, not by the data.
GROWTH_LIMIT_MB = 4 * BUDGET / (1024 * 1024) + 64
PAD = "y" * (ROW - 40)


def rows_for(mb):
    return mb * 1024 * 1024 // ROW


def row(i, n):
    # a: scattered, b: each value twice (the hash join's key), g: groups of three
    return (i, (i * 7919) % 1000003, (i * 104729) % (n // 2), i // 3,
            f"{(i * 7919) % n:012d}{PAD}")


@pytest.fixture(scope="module")
def servers():
    m = start_or_skip()
    s = Server(extra=["--block-cache-size", "32M"]).start()
    n = rows_for(MB)
    start = time.time()
    conns = [s.connect(), m.connect()]
    for c in conns:
        cur = c.cursor()
        cur.execute("CREATE DATABASE sp")
        cur.execute("CREATE TABLE sp.t (id BIGINT PRIMARY KEY, a INT, b INT, g INT, "
                    "pad VARCHAR(255)) CHARACTER SET latin1")
    for first in range(0, n, 2000):
        values = ",".join("(%d,%d,%d,%d,'%s')" % row(i, n) for i in range(first, min(first + 2000, n)))
        for c in conns:
            c.cursor().execute(f"INSERT INTO sp.t VALUES {values}")
    # MariaDB has no hash join by default (join_cache_level=2: block nested loops, quadratic
    # here): an index on the join column gives it index lookups, the same rows
    conns[1].cursor().execute("ALTER TABLE sp.t ADD KEY (b)")
    for c in conns:
        c.close()
    print(f"loaded {n} rows ({MB} MiB) into both servers in {time.time() - start:.1f} s")
    yield s, m, n
    s.stop()
    m.stop()


def digest(args, sql):
    """(lines, sha256) of the client's tab-separated output of `sql`, read as it streams."""
    p = subprocess.Popen(args + ["--quick", "-N", "-B", "-e", sql],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    h, n = hashlib.sha256(), 0
    for line in p.stdout:
        h.update(line)
        n += 1
    err = p.stderr.read().decode(errors="replace")
    assert p.wait(timeout=3600) == 0, err
    return n, h.hexdigest()


def status(cur, name):
    cur.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
    return int(cur.fetchone()[1])


BUDGETS = (f"SET sort_buffer_size = {BUDGET}, join_buffer_size = {BUDGET}, "
           f"tmp_table_size = {BUDGET}, max_heap_table_size = {BUDGET}; ")

# (name, query, the counters that must grow in Strata)
QUERIES = [
    ("order by", "SELECT id, a, pad FROM sp.t ORDER BY a DESC, id",
     ["Sort_merge_passes", "Created_tmp_files"]),
    ("group by", "SELECT g, COUNT(*), SUM(a), MIN(pad), MAX(b) FROM sp.t GROUP BY g ORDER BY g",
     ["Created_tmp_disk_tables"]),
    ("count distinct", "SELECT COUNT(DISTINCT pad), COUNT(DISTINCT b), SUM(DISTINCT a), "
     "AVG(DISTINCT a) FROM sp.t", ["Created_tmp_disk_tables", "Created_tmp_files"]),
    ("grouped count distinct", "SELECT id % 7 AS m, COUNT(DISTINCT a), COUNT(DISTINCT pad) "
     "FROM sp.t GROUP BY m ORDER BY m", ["Created_tmp_disk_tables"]),
    ("hash join", "SELECT COUNT(*), SUM(x.a), SUM(y.a - x.g), MIN(CONCAT(x.pad, y.id)) "
     "FROM sp.t x JOIN sp.t y ON x.b = y.b", ["Created_tmp_files", "Created_tmp_disk_tables"]),
    ("window, many partitions", "SELECT id, ROW_NUMBER() OVER (PARTITION BY b % 1000 ORDER BY a, id), "
     "SUM(a) OVER (PARTITION BY g % 50 ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) "
     "FROM sp.t ORDER BY id", ["Sort_merge_passes", "Created_tmp_files"]),
    ("window, one partition", "SELECT id, RANK() OVER (ORDER BY a DIV 10), LAG(pad, 2) OVER (ORDER BY a, id), "
     "COUNT(*) OVER (ORDER BY a, id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM sp.t ORDER BY id",
     ["Created_tmp_disk_tables", "Created_tmp_files"]),
    ("derived table", "SELECT COUNT(*), SUM(x.a), MAX(x.pad) FROM "
     "(SELECT a, pad FROM sp.t WHERE id % 3 <> 0) x", ["Created_tmp_disk_tables"]),
]


@pytest.mark.parametrize("name,sql,counters", QUERIES, ids=[q[0] for q in QUERIES])
def test_spilled_result_equals_mariadb(servers, name, sql, counters):
    s, m, n = servers
    c = s.connect()
    cur = c.cursor()
    before = {k: status(cur, k) for k in counters}
    strata_args = ["mariadb", "-h127.0.0.1", f"-P{s.port}", "-uroot", "--skip-ssl"]
    got, growth = measure(s.proc.pid, lambda: digest(strata_args, BUDGETS + sql))
    want = digest(m.cli_args(), sql)
    grew = {k: status(cur, k) - v for k, v in before.items()}
    print(f"{name} over {n} rows: {got[0]} result rows, server RSS +{growth:.1f} MiB, {grew}")
    assert got == want, f"{name}: Strata's result differs from MariaDB's"
    assert all(v > 0 for v in grew.values()), f"{name} did not spill: {grew}"
    assert growth < GROWTH_LIMIT_MB
    assert tmp_fds(s.proc.pid, s.datadir) == []
    c.close()


def test_the_join_above_is_a_hash_join(servers):
    s, _, _ = servers
    c = s.connect()
    cur = c.cursor()
    cur.execute("EXPLAIN FORMAT=TREE SELECT COUNT(*) FROM sp.t x JOIN sp.t y ON x.b = y.b")
    assert "hash join" in cur.fetchone()[0]
    c.close()
