"""strata-bench `run` against a real Strata server with tiny parameters: the report is written,
has a table per workload with numbers, and its charts are PNG files."""
import os
import re
import shutil
import subprocess

import pytest

BENCH = os.environ.get("STRATA_BENCH_BIN") or os.path.expanduser("~/.cache/strata-target/release/strata-bench")

TINY = [
    "--cache-mb", "1",
    "--rows", "3000", "--iibench-clients", "3", "--iibench-batch", "1,50", "--iibench-intervals", "10",
    "--uuid-rows", "6000", "--uuid-batch", "2000", "--uuid-rows-per-insert", "500",
    "--cache-rows", "3000", "--hot-sets", "10,100,1000", "--lookups", "500", "--load-clients", "2",
    "--drop-tables", "30", "--drop-fill-rows", "2000", "--drop-partition-rows", "3000",
    "--tables", "60", "--tables-per-db", "25",
    "--mvcc-rows", "500", "--mvcc-clients", "3", "--mvcc-seconds", "1",
    "--sysbench-tests", "oltp_point_select,oltp_update_index", "--sysbench-threads", "1,2",
    "--sysbench-time", "1", "--sysbench-tables", "1", "--sysbench-table-size", "500",
]


def bench(server, out, workloads):
    args = [BENCH, "run", *workloads, "--port", str(server.port), "--server-pid", str(server.proc.pid),
            "--datadir", server.datadir, "--out", str(out), "--note", "e2e test"] + TINY
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"strata-bench failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    path = p.stdout.strip().splitlines()[-1]
    assert os.path.isfile(path), p.stdout
    return path, open(path).read()


def figure(md, name):
    """The value cell of a figure row in a one-server table, as a float."""
    m = re.search(r"^\| " + re.escape(name) + r" \|[^|]*\|[^|]*\| ([-0-9.,]+) \|$", md, re.M)
    assert m, f"no figure {name!r} in:\n{md}"
    return float(m.group(1).replace(",", ""))


def test_bench_run_workloads(server, tmp_path):
    if not os.path.exists(BENCH):
        pytest.fail(f"strata-bench binary not found at {BENCH} (set STRATA_BENCH_BIN)")
    path, md = bench(server, tmp_path, ["iibench,uuid,cache", "droptable", "manytables", "mvcc"])
    assert md.startswith("# strata-bench run: iibench, uuid, cache, droptable, manytables, mvcc on Strata")
    assert "> **Note:** e2e test" in md
    assert "failed" not in md
    for title in ["## iibench: purchases_index (PK + 3 secondary indexes), 1 row per INSERT",
                  "## iibench: purchases_noindex (PK only), 50 rows per INSERT",
                  "## uuid: random UUID() primary key", "## uuid: UUID_TO_BIN(UUID(),1)",
                  "## uuid: BIGINT AUTO_INCREMENT", "## cache:", "## droptable:", "## manytables:",
                  "## mvcc:"]:
        assert title in md, title
    assert figure(md, "rows loaded") == 3000
    assert figure(md, "average insert rate") > 0
    # sizes at rest: the bench flushed Strata's memtables before measuring
    assert "after `SET GLOBAL strata_force_flush_memtable_now = ON` wrote the memtables" in md
    assert figure(md, "size right after the load") > 0
    assert figure(md, "size on disk") > 0
    assert figure(md, "lookups/s, hot set 100") > 0
    # the server's own read counter: a warmed 10-row set is read from memory only, and the
    # estimate of rows held lies between that set and the largest one
    assert figure(md, "storage reads per lookup, hot set 10") == 0
    assert 10 <= figure(md, "hot rows served from memory (best over the hot sets)") <= 1000
    assert figure(md, "drops/s") > 0
    assert figure(md, "DROP PARTITION of a partition holding 3000 rows") >= 0
    assert figure(md, "tables created") == 60
    assert figure(md, "RSS at the end") > 1
    assert figure(md, "tps without the scan") > 0
    assert figure(md, "scans completed") >= 1
    charts = re.findall(r"!\[[^]]*\]\(([^)]+\.png)\)", md)
    assert len(charts) >= 10, charts
    for c in charts:
        data = open(os.path.join(os.path.dirname(path), c), "rb").read()
        assert data[:4] == b"\x89PNG", c
    index = open(os.path.join(tmp_path, "README.md")).read()
    assert os.path.basename(path) in index
    # Everything the workloads created was dropped again.
    _, out, _ = server.cli("SHOW DATABASES")
    assert "bench_" not in out


def test_bench_run_sysbench(server, tmp_path):
    if shutil.which("sysbench") is None:
        if os.environ.get("STRATA_REQUIRE_CLIENTS"):
            pytest.fail("sysbench is not installed")
        pytest.skip("sysbench is not installed")
    _, md = bench(server, tmp_path, ["sysbench"])
    assert figure(md, "oltp_point_select, 2 thr: tps") > 0
    assert figure(md, "oltp_update_index, 1 thr: p95") > 0
    # --server-pid given: the server's CPU per transaction is measured
    assert figure(md, "oltp_point_select, 2 thr: server CPU per txn") > 0


def test_bench_run_connections(server, tmp_path):
    """The connections workload at tiny thread counts and a short storm: tps per thread count,
    the share of the server's own peak, and the storm's rate, latency and (no) timeouts."""
    if shutil.which("sysbench") is None:
        if os.environ.get("STRATA_REQUIRE_CLIENTS"):
            pytest.fail("sysbench is not installed")
        pytest.skip("sysbench is not installed")
    args = [BENCH, "run", "connections", "--port", str(server.port), "--out", str(tmp_path),
            "--conn-threads", "2,4", "--conn-time", "1", "--conn-tables", "1",
            "--conn-table-size", "200", "--storm-rate", "100", "--storm-seconds", "1",
            "--storm-clients", "8"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"strata-bench failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    md = open(p.stdout.strip().splitlines()[-1]).read()
    assert "## connections: sysbench at many concurrent connections" in md
    assert "## connections: connect/disconnect storm at 100 connects/s" in md
    assert "failed:" not in md and "threads failed" not in md
    for test in ["oltp_point_select", "oltp_read_write"]:
        tps = [figure(md, f"{test}, {t} thr: tps") for t in (2, 4)]
        shares = [figure(md, f"{test}, {t} thr: % of own peak") for t in (2, 4)]
        assert min(tps) > 0
        assert figure(md, f"{test}: peak tps") == pytest.approx(max(tps), rel=0.01)
        assert max(shares) == 100 and 0 < min(shares) <= 100
    assert figure(md, "connects scheduled") == 100
    assert figure(md, "connects/s achieved") > 0
    assert figure(md, "connect latency p99") > 0
    assert figure(md, "connect timeouts") == 0
    assert figure(md, "connect errors") == 0
    charts = re.findall(r"!\[[^]]*\]\(([^)]+\.png)\)", md)
    assert len(charts) == 5, charts
    _, out, _ = server.cli("SHOW DATABASES")
    assert "sbconn" not in out


def test_bench_compare_rounds(tmp_path):
    """`compare --rounds 2` with Strata alone: two fresh instances, figures as medians, the
    procedure and the rounds named in the report."""
    if shutil.which("sysbench") is None:
        if os.environ.get("STRATA_REQUIRE_CLIENTS"):
            pytest.fail("sysbench is not installed")
        pytest.skip("sysbench is not installed")
    strata = os.environ.get("STRATA_BIN") or os.path.expanduser("~/.cache/strata-target/release/strata")
    args = [BENCH, "compare", "sysbench", "--engines", "strata", "--strata-bin", strata, "--rounds", "2",
            "--no-install", "--out", str(tmp_path), "--note", "e2e test", "--cache-mb", "16",
            "--sysbench-tests", "oltp_point_select", "--sysbench-threads", "1",
            "--sysbench-time", "1", "--sysbench-tables", "1", "--sysbench-table-size", "300"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, f"strata-bench failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    assert p.stderr.count("(round 1 of 2)") == 1 and p.stderr.count("(round 2 of 2)") == 1, p.stderr
    md = open(p.stdout.strip().splitlines()[-1]).read()
    assert "every figure is the median of 2 rounds" in md
    assert "each section runs 2 rounds" in md
    assert figure(md, "oltp_point_select, 1 thr: tps") > 0
