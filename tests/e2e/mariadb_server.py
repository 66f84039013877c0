"""A private mariadbd for differential tests: a fresh data directory on a free port, reached
over its own socket (tests skip when MariaDB is not installed)."""
import os
import shutil
import subprocess
import tempfile
import time

import pymysql
import pytest

from conftest import free_port


class MariaDB:
    """A private mariadbd on a free port with a fresh data directory."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="strata-mdb-")
        self.datadir = os.path.join(self.tmp.name, "data")
        self.sock = os.path.join(self.tmp.name, "mdb.sock")
        self.port = free_port()
        user = os.environ.get("USER") or "root"
        subprocess.run(["mariadb-install-db", f"--datadir={self.datadir}", f"--user={user}",
                        "--auth-root-authentication-method=normal", "--skip-test-db"],
                       check=True, capture_output=True, timeout=120)
        self.log = open(os.path.join(self.tmp.name, "log"), "wb")
        self.proc = subprocess.Popen(
            ["mariadbd", f"--user={user}", f"--datadir={self.datadir}", f"--port={self.port}",
             f"--socket={self.sock}", "--bind-address=127.0.0.1", "--skip-log-bin",
             "--innodb-buffer-pool-size=32M", "--character-set-server=utf8mb4"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                pymysql.connect(unix_socket=self.sock, user="root").close()
                return
            except pymysql.err.OperationalError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.2)
        raise RuntimeError("mariadbd did not start: " + open(self.log.name).read()[-2000:])

    def connect(self, db=None):
        return pymysql.connect(unix_socket=self.sock, user="root", database=db, autocommit=True,
                               charset="utf8mb4")

    def cli_args(self):
        return ["mariadb", f"--socket={self.sock}", "-uroot"]

    def dump_args(self):
        return ["mariadb-dump", f"--socket={self.sock}", "-uroot"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.tmp.cleanup()


def start_or_skip():
    """A started MariaDB, or the test is skipped when the server is not installed."""
    if not shutil.which("mariadbd") or not shutil.which("mariadb-install-db"):
        pytest.skip("MariaDB server not installed")
    return MariaDB()
