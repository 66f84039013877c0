"""The mysql-test harness (tests/mysqltest/run.py) against a running Strata: Strata's own file
(result recorded against MariaDB) must pass, a file with a wrong result must fail with a
reason, and a few MariaDB main/ files run and get a status with a reason each."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "tests", "mysqltest", "run.py")
SUITE = "/usr/share/mysql/mysql-test"

pytestmark = pytest.mark.skipif(not shutil.which("mariadb-test"),
                                reason="mariadb-test not installed (Debian package mariadb-test)")


def harness(server, *args):
    p = subprocess.run([sys.executable, RUN, "--port", str(server.port), *args],
                       capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


def test_own_file_passes(server):
    rc, out = harness(server, "--suite", os.path.join(ROOT, "tests", "mysqltest"),
                      "--expect-pass", "strata/basics", "--", "strata/basics")
    assert rc == 0, out
    assert "strata/basics" in out and " pass " in out


def test_wrong_result_fails_with_reason(server, tmp_path):
    d = tmp_path / "suite" / "x"
    d.mkdir(parents=True)
    (d / "bad.test").write_text("SELECT 1 + 1 AS two;\n")
    (d / "bad.result").write_text("SELECT 1 + 1 AS two;\ntwo\n3\n")
    md = tmp_path / "out.md"
    rc, out = harness(server, "--suite", str(tmp_path / "suite"), "--md", str(md),
                      "--expect-pass", "x/bad", "--", "x/bad")
    assert rc == 1, out
    assert "x/bad" in out and " fail " in out
    text = md.read_text()
    assert "| x/bad | fail |" in text and "differs" in text


@pytest.mark.skipif(not os.path.isdir(os.path.join(SUITE, "main")),
                    reason="mariadb-test-data not installed")
def test_mariadb_main_subset_reports(server, tmp_path):
    md = tmp_path / "out.md"
    files = ["main/func_op", "main/func_isnull", "main/limit", "main/loaddata"]
    rc, out = harness(server, "--md", str(md), "--", *files)
    lines = md.read_text().splitlines()[2:]
    assert len(lines) == len(files), out
    for line in lines:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] in ("pass", "fail", "skip"), line
        if cells[1] != "pass":
            assert cells[2], f"no reason given: {line}"
