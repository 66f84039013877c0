"""The mariadb command-line client: golden scripts and batch mode."""
import glob
import os

import pytest

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(GOLDEN, "*.sql"))), ids=os.path.basename)
def test_golden(server, path):
    expected_path = path[:-4] + ".result"
    name = "golden_" + os.path.basename(path)[:-4]
    server.cli(f"DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name};")
    sql = open(path).read()
    # --table: boxed output; -vvv echoes each statement so the .result reads like a transcript
    rc, out, errout = server.cli(sql, db=name, extra=["--table", "-vvv", "--force"], check=False)
    got = out + ("" if not errout else "-- stderr:\n" + errout)
    got = "\n".join(l for l in got.splitlines() if not l.startswith(("Bye", "--------------")) and " sec)" not in l) + "\n"
    if os.environ.get("STRATA_BLESS") == "1":
        open(expected_path, "w").write(got)
    assert os.path.exists(expected_path), f"missing {expected_path}: run with STRATA_BLESS=1 and review it"
    assert got == open(expected_path).read()


def test_batch_mode_and_status(server):
    rc, out, _ = server.cli("", extra=["-e", "SELECT 1 AS one; SELECT @@version_comment"])
    assert out.splitlines()[0] == "one" and out.splitlines()[1] == "1"
    rc, out, _ = server.cli("", extra=["-e", "\\s"])
    assert "Server version" in out and "Strata" in out


def test_unix_socket(server):
    import subprocess
    p = subprocess.run(["mariadb", f"--socket={server.socket}", "-uroot", "-N", "-e", "SELECT CURRENT_USER()"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "root@localhost"
    p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{server.port}", "-uroot", "-N", "-e", "SELECT CURRENT_USER(), USER()"], capture_output=True, text=True, timeout=30)
    assert p.stdout.split() == ["root@localhost", "root@127.0.0.1"], p.stdout


def test_wrong_password_is_1045(server):
    import subprocess
    p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{server.port}", "-uroot", "-pwrong", "-e", "SELECT 1"], capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "1045" in p.stderr
    p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{server.port}", "-unobody", "-e", "SELECT 1"], capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "1045" in p.stderr
