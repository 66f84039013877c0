"""Fixtures: a real Strata server process on a free port with a fresh data directory."""
import os
import socket
import subprocess
import tempfile
import time

import pymysql
import pytest

BIN = os.environ.get("STRATA_BIN") or os.path.expanduser("~/.cache/strata-target/release/strata")


def global_status(cur, name):
    """The integer value of the global status variable `name` (SHOW GLOBAL STATUS)."""
    cur.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")
    return int(cur.fetchall()[0][1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running strata process."""

    def __init__(self, datadir=None, extra=()):
        self.tmp = tempfile.TemporaryDirectory(prefix="strata-e2e-")
        self.datadir = datadir or os.path.join(self.tmp.name, "data")
        self.socket = os.path.join(self.tmp.name, "strata.sock")
        self.extra = list(extra)
        self.port = None
        self.proc = None
        self.log = os.path.join(self.tmp.name, "server.log")

    def start(self, port=None):
        self.port = port or free_port()
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--port", str(self.port), "--datadir", self.datadir, "--socket", self.socket] + self.extra,
            stdout=logf, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: " + open(self.log).read())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start: " + open(self.log).read())

    def kill(self, sig=9):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def connect(self, db=None, **kw):
        args = dict(host="127.0.0.1", port=self.port, user="root", password="", autocommit=True, charset="utf8mb4")
        args.update(kw)
        if db:
            args["database"] = db
        return pymysql.connect(**args)

    def cli(self, sql, db=None, extra=(), check=True):
        """Runs the mariadb CLI in batch mode; returns (rc, stdout, stderr)."""
        cmd = ["mariadb", "-h127.0.0.1", f"-P{self.port}", "-uroot", "--skip-ssl"] + list(extra)
        if db:
            cmd.append(db)
        p = subprocess.run(cmd, input=sql, capture_output=True, text=True, timeout=120)
        if check and p.returncode != 0:
            raise AssertionError(f"mariadb failed ({p.returncode}): {p.stderr}")
        return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def server():
    s = Server().start()
    yield s
    s.stop()


@pytest.fixture()
def db(server):
    """A fresh database per test; yields (connection, database name)."""
    name = "t_" + os.urandom(4).hex()
    c = server.connect()
    c.cursor().execute(f"CREATE DATABASE {name}")
    c.select_db(name)
    yield c, name
    try:
        c.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
    except Exception:
        pass
    c.close()


# The C client libraries the suite loads (mysqlclient, mysql-connector's C extension) can crash
# in interpreter finalisation after every test has run (seen once: "447 passed", then SIGSEGV,
# exit 139). Leave with pytest's own exit status before finalisation runs; a failing test still
# fails the run.
_EXIT_STATUS = None


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    global _EXIT_STATUS
    _EXIT_STATUS = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if _EXIT_STATUS is not None:
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS)


# Two C client libraries in one process (mysqlclient's libmariadb and the libmysqlclient bundled
# with mysql-connector's C extension) corrupt each other's per-thread state: once the suite had
# used both, Python itself crashed with SIGSEGV when a later test started a thread (and once at
# interpreter exit). Tests marked `own_process` therefore run their body in a forked child, after
# their fixtures were set up here: the C libraries are initialised and used only in the child,
# which leaves with os._exit. A failure or crash of the child fails that test alone.
# (Later, valgrind found mysql-connector's C extension writing past its parameter array when it
# binds a decimal.Decimal; see _CextPreparedCursor in test_drivers_python.py. That heap corruption
# may have caused the crashes above as well; the forks stay, as nothing proves it did.)
def pytest_configure(config):
    config.addinivalue_line("markers", "own_process: run the test body in a forked child process")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if pyfuncitem.get_closest_marker("own_process") is None:
        return None
    import sys
    import traceback
    args = {a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames}
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code, msg = 0, b""
        try:
            pyfuncitem.obj(**args)
        except BaseException as e:
            if isinstance(e, pytest.skip.Exception):
                code, msg = 2, str(e).encode()
            else:
                code, msg = 1, traceback.format_exc().encode()
        os.write(w, msg)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    msg = b"".join(chunks).decode(errors="replace")
    if os.WIFSIGNALED(status):
        pytest.fail(f"the test's process died with signal {os.WTERMSIG(status)}\n{msg}", pytrace=False)
    code = os.WEXITSTATUS(status)
    if code == 2:
        pytest.skip(msg)
    if code != 0:
        pytest.fail(msg, pytrace=False)
    return True
