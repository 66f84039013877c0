"""TLS over the wire: certificates generated at initialisation, PyMySQL / mysql-connector / the
mariadb CLI over TLS with the CA verified, Ssl_% status, REQUIRE SSL / X509 accounts,
require_secure_transport, --ssl-cert/--ssl-key/--ssl-ca, --skip-ssl, and many TLS
connections through the thread pool."""
import os
import shutil
import ssl
import stat
import subprocess
import threading

import mysql.connector
import pymysql
import pytest

from conftest import Server


def err(fn):
    try:
        fn()
    except (pymysql.err.MySQLError, mysql.connector.Error) as e:
        return e.args[0] if isinstance(e, pymysql.err.MySQLError) else e.errno
    raise AssertionError("no error raised")


def status(conn, name):
    cur = conn.cursor()
    cur.execute("SHOW STATUS LIKE %s", (name,))
    rows = cur.fetchall()
    return rows[0][1] if rows else None


def var(conn, name):
    cur = conn.cursor()
    cur.execute("SHOW VARIABLES LIKE %s", (name,))
    rows = cur.fetchall()
    return rows[0][1] if rows else None


def tls_connect(srv, user="root", password="", cert=False, **kw):
    # PyMySQL: the ssl_* arguments replace an `ssl` dict, so use only them
    d = srv.datadir
    ssl_args = {"ssl_ca": os.path.join(d, "ca.pem")}
    if cert:
        ssl_args.update(ssl_cert=os.path.join(d, "client-cert.pem"), ssl_key=os.path.join(d, "client-key.pem"))
    return srv.connect(user=user, password=password, ssl_verify_cert=True, ssl_verify_identity=True,
                       **ssl_args, **kw)


@pytest.fixture()
def srv():
    s = Server().start()
    yield s
    s.stop()


def test_generated_certificates_and_status(srv):
    for f in ["ca.pem", "server-cert.pem", "server-key.pem", "client-cert.pem", "client-key.pem"]:
        assert os.path.exists(os.path.join(srv.datadir, f)), f
    mode = os.stat(os.path.join(srv.datadir, "server-key.pem")).st_mode
    assert mode & (stat.S_IRWXG | stat.S_IRWXO) == 0, "server key readable by others"
    plain = srv.connect()
    assert var(plain, "tls_version") == "TLSv1.2,TLSv1.3"
    assert var(plain, "ssl_ca").endswith("ca.pem")
    assert var(plain, "ssl_cert").endswith("server-cert.pem")
    assert status(plain, "Ssl_cipher") == ""
    assert status(plain, "Ssl_version") == ""
    before = int(status(plain, "Ssl_finished_accepts"))
    # the CA verifies the server certificate, including its name (127.0.0.1)
    c = tls_connect(srv)
    assert status(c, "Ssl_version") in ("TLSv1.2", "TLSv1.3")
    assert status(c, "Ssl_cipher"), "no cipher reported"
    assert int(status(c, "Ssl_finished_accepts")) == before + 1
    assert int(status(c, "Ssl_accepts")) >= before + 1
    not_after = status(c, "Ssl_server_not_after")
    not_before = status(c, "Ssl_server_not_before")
    assert not_after.endswith(" GMT") and int(not_after[-8:-4]) - int(not_before[-8:-4]) == 10
    # real work over TLS: a large result and binary data
    cur = c.cursor()
    cur.execute("CREATE DATABASE t")
    cur.execute("CREATE TABLE t.b (id INT PRIMARY KEY, v LONGBLOB)")
    blob = os.urandom(3 << 19).hex().encode()  # 3 MiB (text-protocol literal: keep it valid UTF-8)
    cur.execute("INSERT INTO t.b VALUES (1, %s)", (blob,))
    cur.execute("SELECT v FROM t.b WHERE id = 1")
    assert cur.fetchone()[0] == blob
    cur.execute("SELECT REPEAT('x', 1000) FROM t.b, (SELECT 1 UNION SELECT 2 UNION SELECT 3) d")
    assert len(cur.fetchall()) == 3
    # an untrusted CA is refused by the client, not a server problem
    other = ssl.create_default_context()
    with pytest.raises(pymysql.err.OperationalError):
        srv.connect(ssl=other)
    assert srv.connect().open


@pytest.mark.own_process
def test_password_accounts_over_tls_and_clients(srv):
    root = srv.connect()
    cur = root.cursor()
    cur.execute("CREATE USER sha IDENTIFIED BY 'pw1'")
    cur.execute("CREATE USER nat IDENTIFIED WITH mysql_native_password BY 'pw2'")
    # caching_sha2 full authentication sends the password in clear: allowed only because the
    # transport is TLS (the RSA exchange is not needed)
    c = tls_connect(srv, "sha", "pw1")
    assert status(c, "Ssl_version")
    assert err(lambda: tls_connect(srv, "sha", "wrong")) == 1045
    assert status(tls_connect(srv, "nat", "pw2"), "Ssl_cipher")
    # mysql-connector (C extension and pure) negotiate TLS by default when offered
    for pure in (False, True):
        m = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="sha", password="pw1",
                                    use_pure=pure, ssl_ca=os.path.join(srv.datadir, "ca.pem"))
        mc = m.cursor()
        mc.execute("SHOW STATUS LIKE 'Ssl_version'")
        assert mc.fetchall()[0][1] in ("TLSv1.2", "TLSv1.3"), f"use_pure={pure}"
        mc.execute("SELECT %s", ("ünïcødé 🎉",))
        assert mc.fetchall()[0][0] == "ünïcødé 🎉"
        m.close()
    # the mariadb CLI with the CA verified; \s reports the cipher
    p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{srv.port}", "-usha", "-ppw1", "--ssl",
                        f"--ssl-ca={srv.datadir}/ca.pem", "--ssl-verify-server-cert", "-e",
                        "SHOW STATUS LIKE 'Ssl_version'; \\s"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "TLSv1" in p.stdout and "Cipher in use is" in p.stdout, p.stdout


def test_require_ssl_and_x509(srv):
    root = srv.connect()
    cur = root.cursor()
    cur.execute("CREATE USER s IDENTIFIED BY 'pw' REQUIRE SSL")
    cur.execute("CREATE USER x IDENTIFIED BY 'pw' REQUIRE X509")
    cur.execute("SELECT user, ssl_type FROM mysql.user WHERE user IN ('s', 'x') ORDER BY user")
    assert cur.fetchall() == (("s", "ANY"), ("x", "X509"))
    assert err(lambda: srv.connect(user="s", password="pw")) == 1045
    assert status(tls_connect(srv, "s", "pw"), "Ssl_version")
    # X509: TLS alone is not enough, a client certificate signed by the CA is
    assert err(lambda: srv.connect(user="x", password="pw")) == 1045
    assert err(lambda: tls_connect(srv, "x", "pw")) == 1045
    assert status(tls_connect(srv, "x", "pw", cert=True), "Ssl_version")
    # a client certificate from another CA is refused in the TLS handshake
    other = os.path.join(srv.tmp.name, "other")
    os.makedirs(other)
    o = Server(datadir=other)
    o.start()
    o.stop()
    with pytest.raises(pymysql.err.OperationalError):
        srv.connect(user="x", password="pw", ssl_ca=os.path.join(srv.datadir, "ca.pem"),
                    ssl_cert=os.path.join(other, "client-cert.pem"), ssl_key=os.path.join(other, "client-key.pem"))
    # REQUIRE NONE lifts it; the requirement survives a restart
    cur.execute("ALTER USER s REQUIRE NONE")
    assert srv.connect(user="s", password="pw").open
    srv.stop()
    srv.start(port=srv.port)
    assert err(lambda: srv.connect(user="x", password="pw")) == 1045
    assert status(tls_connect(srv, "x", "pw", cert=True), "Ssl_version")
    c = srv.connect()
    assert err(lambda: c.cursor().execute("CREATE USER y REQUIRE SUBJECT '/CN=y'")) == 1235


def test_require_secure_transport(srv):
    root = srv.connect()
    root.cursor().execute("SET GLOBAL require_secure_transport = ON")
    assert err(lambda: srv.connect()) == 3159
    # TLS and the unix socket are secure transports
    c = tls_connect(srv)
    assert srv.connect(host=None, unix_socket=srv.socket).open
    c.cursor().execute("SET GLOBAL require_secure_transport = OFF")
    assert srv.connect().open


def test_given_certificates_and_skip_ssl(tmp_path):
    gen = Server(datadir=str(tmp_path / "gen")).start()
    gen.stop()
    certs = tmp_path / "certs"
    certs.mkdir()
    for f in ["ca.pem", "server-cert.pem", "server-key.pem", "client-cert.pem", "client-key.pem"]:
        shutil.copy(tmp_path / "gen" / f, certs / f)
    s = Server(extra=["--ssl-cert", str(certs / "server-cert.pem"), "--ssl-key",
                      str(certs / "server-key.pem"), "--ssl-ca", str(certs / "ca.pem")]).start()
    try:
        assert not os.path.exists(os.path.join(s.datadir, "server-cert.pem")), "generated despite --ssl-cert"
        c = s.connect(ssl_ca=str(certs / "ca.pem"), ssl_verify_cert=True)
        assert status(c, "Ssl_version")
        assert var(c, "ssl_cert") == str(certs / "server-cert.pem")
    finally:
        s.stop()
    off = Server(extra=["--skip-ssl"]).start()
    try:
        c = off.connect()
        assert var(c, "tls_version") == ""
        # a client that insists on TLS gets a refusal, the server stays up
        p = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{off.port}", "-uroot", "--ssl",
                            f"--ssl-ca={certs}/ca.pem", "--ssl-verify-server-cert", "-e", "SELECT 1"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode != 0 and "SSL" in p.stderr, (p.stdout, p.stderr)
        assert off.connect().open
    finally:
        off.stop()
    bad = Server(extra=["--ssl-cert", str(certs / "nope.pem"), "--ssl-key", str(certs / "server-key.pem")])
    with pytest.raises(RuntimeError, match="nope.pem"):
        bad.start()


def test_many_tls_connections_through_the_thread_pool():
    s = Server(extra=["--thread-pool-size", "2"]).start()
    try:
        s.connect().cursor().execute("CREATE DATABASE p")
        s.connect().cursor().execute("CREATE TABLE p.t (id INT PRIMARY KEY, w INT)")
        errors = []

        def worker(w):
            try:
                c = tls_connect(s, autocommit=False)
                cur = c.cursor()
                for i in range(30):
                    cur.execute("INSERT INTO p.t VALUES (%s, %s)", (w * 1000 + i, w))
                    if i % 10 == 9:
                        c.commit()
                cur.execute("SELECT COUNT(*) FROM p.t WHERE w = %s", (w,))
                assert cur.fetchone()[0] == 30
                c.close()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors[:3]
        cur = s.connect().cursor()
        cur.execute("SELECT COUNT(*) FROM p.t")
        assert cur.fetchone()[0] == 40 * 30
    finally:
        s.stop()


def _packet(sock):
    hdr = b""
    while len(hdr) < 4:
        chunk = sock.recv(4 - len(hdr))
        assert chunk, "connection closed"
        hdr += chunk
    n = int.from_bytes(hdr[:3], "little")
    body = b""
    while len(body) < n:
        chunk = sock.recv(n - len(body))
        assert chunk, "connection closed"
        body += chunk
    return body


@pytest.mark.parametrize("handling", ["pool-of-threads", "one-thread-per-connection"])
def test_pipelined_commands_over_tls(handling):
    """Two commands in one TLS write: the second is decrypted together with the first and sits
    above the socket, so the server must run it without waiting for the socket to be readable."""
    import socket
    s = Server(extra=["--thread-handling", handling]).start()
    try:
        raw = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        _packet(raw)  # greeting
        caps = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000 | 0x800  # LONG_PASSWORD, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, PLUGIN_AUTH, SSL
        head = caps.to_bytes(4, "little") + (1 << 24).to_bytes(4, "little") + bytes([45]) + bytes(23)
        raw.sendall(len(head).to_bytes(3, "little") + b"\x01" + head)
        ctx = ssl.create_default_context(cafile=os.path.join(s.datadir, "ca.pem"))
        tls = ctx.wrap_socket(raw, server_hostname="localhost")
        resp = head + b"root\x00" + b"\x00" + b"caching_sha2_password\x00"
        tls.sendall(len(resp).to_bytes(3, "little") + b"\x02" + resp)
        ok = _packet(tls)
        assert ok[0] == 0, ok
        q1, q2 = b"\x03SELECT 'first'", b"\x03SELECT 'second'"
        tls.sendall(len(q1).to_bytes(3, "little") + b"\x00" + q1 + len(q2).to_bytes(3, "little") + b"\x00" + q2)
        seen = [_packet(tls) for _ in range(10)]  # 2 × (count, column, EOF, row, EOF)
        assert seen[3] == b"\x05first" and seen[8] == b"\x06second", seen
        tls.close()
    finally:
        s.stop()
