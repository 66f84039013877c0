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


def test_write_buffer_size_option():
    """--write-buffer-size sets one memtable (default 8M, shown as rocksdb_write_buffer_size);
    a server with 1 MiB memtables keeps and reads back rows written across many of them, and a
    size outside 1M..4G is refused at start with one clear error."""
    s = Server().start()
    try:
        cur = s.connect().cursor()
        cur.execute("SELECT @@rocksdb_write_buffer_size, @@global.rocksdb_write_buffer_size")
        assert cur.fetchall() == ((8 << 20, 8 << 20),)
    finally:
        s.stop()
    s = Server(extra=["--write-buffer-size", "1M"]).start()
    try:
        cur = s.connect().cursor()
        cur.execute("SELECT @@rocksdb_write_buffer_size")
        assert cur.fetchall() == ((1 << 20,),)
        cur.execute("CREATE DATABASE wb")
        cur.execute("CREATE TABLE wb.t (id INT AUTO_INCREMENT PRIMARY KEY, pad VARCHAR(500), KEY (pad(20)))")
        for i in range(40):  # ~4 MiB with the index: several memtables
            cur.execute("INSERT INTO wb.t (pad) VALUES " + ", ".join(f"(REPEAT('{i % 10}', 500))" for _ in range(200)))
        cur.execute("SELECT COUNT(*), COUNT(DISTINCT pad), MAX(id) FROM wb.t")
        assert cur.fetchall() == ((8000, 10, 8000),)
        # point reads of rows in different memtables, and of keys none holds (each memtable's
        # bloom filter answers those)
        cur.execute("SELECT id, LEFT(pad, 3) FROM wb.t WHERE id IN (0, 1, 3999, 8000, 8001) ORDER BY id")
        assert cur.fetchall() == ((1, "000"), (3999, "999"), (8000, "999"))
    finally:
        s.stop()
    s.start()  # the same data directory, default memtables: everything is still there
    try:
        cur = s.connect().cursor()
        cur.execute("SELECT COUNT(*) FROM wb.t WHERE pad LIKE '7%'")
        assert cur.fetchall() == ((800,),)
    finally:
        s.stop()
    with tempfile.TemporaryDirectory() as d:
        p = run(["serve", "--port", str(free_port()), "--datadir", os.path.join(d, "data"),
                 "--write-buffer-size", "4K"])
    assert p.returncode != 0 and "write_buffer_size" in p.stderr, p.stderr


def test_reports_mysql_8_4_identity(server):
    """Strata reports MySQL 8.4 (clients such as Django 6.1 require it) in the handshake, in
    VERSION() and @@version alike; 8.4's variables replace removed 8.0 ones; the build's identity
    cannot be overridden at start (it was accepted and ignored)."""
    c = server.connect()
    assert c.get_server_info().startswith("8.4.")
    cur = c.cursor()
    cur.execute("SELECT VERSION(), @@version, @@authentication_policy")
    v, var, policy = cur.fetchone()
    assert v == var == c.get_server_info() and v.endswith("-Strata-" + v.split("-Strata-")[1])
    assert policy == "*,,"
    for gone in ["default_authentication_plugin", "have_ssl"]:
        try:
            cur.execute(f"SELECT @@{gone}")
            raise AssertionError(f"{gone} still exists")
        except Exception as e:  # noqa: BLE001 - pymysql raises OperationalError / InternalError
            assert e.args[0] == 1193, e
    # a versioned comment up to 8.4.7 is executed, a later one is not
    cur.execute("SELECT 1 /*!80407 + 1 */ /*!80408 + 100 */")
    assert cur.fetchone() == (2,)
    with tempfile.TemporaryDirectory() as d:
        p = run(["serve", "--port", str(free_port()), "--datadir", os.path.join(d, "data"),
                 "--set", "version=9.9.9"])
    assert p.returncode != 0 and "version" in p.stderr and "read only" in p.stderr, p.stderr
