"""sysbench OLTP workloads against a real server (server-side prepared statements)."""
import re
import subprocess

import pytest

COMMON = ["--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-password=",
          "--tables=2", "--table-size=2000", "--mysql-ignore-errors=none"]


def sb(server, test, cmd, extra=()):
    args = ["sysbench", test] + COMMON + [f"--mysql-port={server.port}", "--mysql-db=sbtest"] + list(extra) + [cmd]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"sysbench {test} {cmd} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.fixture(scope="module")
def sbdb(server):
    server.cli("DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest;")
    yield
    server.cli("DROP DATABASE IF EXISTS sbtest;")


def errors_of(out):
    m = re.search(r"ignored errors:\s+(\d+)", out)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("test", ["oltp_read_write", "oltp_point_select", "oltp_insert", "oltp_update_index", "oltp_delete"])
def test_oltp(server, sbdb, test):
    sb(server, test, "prepare")
    out = sb(server, test, "run", ["--threads=4", "--time=10" if test == "oltp_read_write" else "--time=3"])
    assert errors_of(out) == 0, out
    m = re.search(r"transactions:\s+(\d+)", out)
    assert m and int(m.group(1)) > 0, out
    sb(server, test, "cleanup")


def test_bulk_insert(server, sbdb):
    sb(server, "bulk_insert", "prepare", ["--threads=2"])
    out = sb(server, "bulk_insert", "run", ["--threads=2", "--time=3"])
    assert errors_of(out) in (0, None), out
    sb(server, "bulk_insert", "cleanup", ["--threads=2"])
