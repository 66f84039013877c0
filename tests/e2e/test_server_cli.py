"""The strata binary's command line: defaults file, port in use, bad data directory, admin tools."""
import os
import socket
import subprocess
import tempfile

from conftest import BIN, Server, free_port


def run(args, timeout=30):
    return subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout)


def test_help_lists_mysql_option_names():
    p = run(["serve", "--help"])
    assert p.returncode == 0
    for opt in ["--port", "--bind-address", "--datadir", "--socket", "--max-connections", "--defaults-file"]:
        assert opt in p.stdout


def test_port_in_use_is_one_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with tempfile.TemporaryDirectory() as d:
            p = run(["serve", "--port", str(port), "--datadir", os.path.join(d, "data")])
    assert p.returncode != 0
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    assert len(errors) == 1 and "address already in use" in errors[0], p.stderr


def test_unusable_datadir_is_one_clear_error():
    with tempfile.NamedTemporaryFile() as f:
        p = run(["serve", "--port", str(free_port()), "--datadir", f.name])
    assert p.returncode != 0
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    assert len(errors) == 1 and "data directory" in errors[0], p.stderr


def test_second_server_on_same_datadir_is_refused():
    s = Server().start()
    try:
        p = run(["serve", "--port", str(free_port()), "--datadir", s.datadir])
        assert p.returncode != 0 and "data directory" in p.stderr, p.stderr
    finally:
        s.stop()


def test_defaults_file_sections():
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        cnf = os.path.join(d, "my.cnf")
        with open(cnf, "w") as f:
            f.write(f"[client]\nport=1\n[mysqld]\nport={port}\nmax-connections=7\n[strata]\nwait_timeout=99\n")
        s = Server(extra=["--defaults-file", cnf])
        # the command-line --port of the fixture wins over the file, as in MySQL
        s.start()
        try:
            c = s.connect()
            cur = c.cursor()
            cur.execute("SELECT @@max_connections, @@wait_timeout")
            assert cur.fetchall() == ((7, 99),)
        finally:
            s.stop()


def test_first_start_creates_datadir_and_warns():
    s = Server().start()
    try:
        log = open(s.log).read()
        assert "EMPTY password" in log
        assert os.path.isdir(s.datadir)
    finally:
        s.stop()


def test_mysqladmin(server):
    base = ["mariadb-admin", "-h127.0.0.1", f"-P{server.port}", "-uroot"]
    p = subprocess.run(base + ["ping"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "alive" in p.stdout
    p = subprocess.run(base + ["status"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "Uptime:" in p.stdout and "Threads:" in p.stdout
    p = subprocess.run(base + ["processlist"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "Id" in p.stdout


def test_too_many_connections():
    s = Server(extra=["--max-connections", "2"]).start()
    try:
        a = s.connect()
        b = s.connect()
        import pymysql
        # root is the administrator: it gets the one extra connection (as SUPER does in MySQL)
        admin = s.connect()
        try:
            s.connect()
            assert False, "fourth connection should be refused"
        except pymysql.MySQLError as e:
            assert e.args[0] == 1040
        a.close()
        b.close()
        admin.close()
    finally:
        s.stop()
