"""Bad input and resource limits over the wire. Every case checks that the server keeps
serving other connections.

- malformed, truncated, oversized (> max_allowed_packet: 1153, connection closed) and
  out-of-order (1156, connection closed) packets on raw sockets, and random packets;
- invalid UTF-8 in identifiers (1300) and string literals;
- deep nesting: expressions (1436), nested subqueries (1473), long operator chains;
- huge IN lists and multi-row INSERTs;
- max_execution_time (session variable and the MAX_EXECUTION_TIME hint: 3024);
- sorts, joins, GROUP BY and DISTINCT over their memory budget (max_session_mem_used: 1290).
"""
import random
import socket
import struct

import pymysql
import pytest

from conftest import Server


# ------------------------------------------------------------------------------ raw packets

def send(sock, payload, seq=0):
    sock.sendall(struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload)


def recv(sock):
    """One packet as (seq, payload), or None when the server closed the connection."""
    def exactly(n):
        buf = b""
        while len(buf) < n:
            try:
                x = sock.recv(n - len(buf))
            except ConnectionResetError:
                return None
            if not x:
                return None
            buf += x
        return buf
    h = exactly(4)
    if h is None:
        return None
    n = h[0] | h[1] << 8 | h[2] << 16
    p = exactly(n)
    return None if p is None else (h[3], p)


def err_code(pkt):
    assert pkt is not None, "connection closed instead of an error packet"
    _, p = pkt
    assert p[:1] == b"\xff", f"expected an error packet, got {p[:40]!r}"
    return struct.unpack("<H", p[1:3])[0]


def alive(server):
    c = server.connect()
    cur = c.cursor()
    cur.execute("SELECT 1 + 1")
    assert cur.fetchone() == (2,)
    c.close()


def raw_session(server):
    """An authenticated connection whose socket the test drives directly."""
    c = server.connect(read_timeout=20)
    return c, c._sock


def ping(sock):
    send(sock, b"\x0e")
    r = recv(sock)
    return r is not None and r[1][:1] == b"\x00"


def test_garbage_and_truncated_handshake(server):
    # garbage instead of a handshake response
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    assert recv(s)[1][:1] == b"\x0a"  # protocol 10 greeting
    send(s, bytes(range(256)) * 3, seq=1)
    r = recv(s)
    assert r is None or r[1][:1] == b"\xff"
    s.close()
    # a header announcing more bytes than are sent, then close
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    recv(s)
    s.sendall(b"\xe8\x03\x00\x01" + b"abc")
    s.close()
    # a few bytes of a header only
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    recv(s)
    s.sendall(b"\x05")
    s.close()
    alive(server)


@pytest.mark.parametrize("payload,codes", [
    (b"\xee", {1047}),                                # unknown command: error, connection stays
    (b"\x17\x99\x00\x00\x00\x00\x01\x00\x00\x00", {1243}),  # execute of an unknown statement
    (b"", {1835, 1047}),                              # empty packet
    (b"\x17\x01\x00", {1835, 1243}),                  # truncated COM_STMT_EXECUTE
    (b"\x18\x01", {1835}),                            # truncated COM_STMT_SEND_LONG_DATA
    (b"\x1b\x00", {1835}),                            # truncated COM_SET_OPTION
    (b"\x11\xff", {1835}),                            # truncated COM_CHANGE_USER
    (b"\x1a\x01", {1835}),                            # truncated COM_STMT_RESET
])
def test_malformed_commands(server, payload, codes):
    c, s = raw_session(server)
    send(s, payload)
    assert err_code(recv(s)) in codes
    # the connection either goes on or is closed; the server keeps serving
    try:
        ping(s)
    except OSError:
        pass
    alive(server)


def test_malformed_prepared_execute_after_prepare(server, db):
    _, name = db
    c, s = raw_session(server)
    send(s, b"\x16SELECT ?, ?")  # COM_STMT_PREPARE
    _, ok = recv(s)
    assert ok[:1] == b"\x00"
    stmt_id = ok[1:5]
    ncols, nparams = struct.unpack("<HH", ok[5:9])
    # the parameter and column definitions, each list followed by an EOF packet
    for n in (nparams, ncols):
        for _ in range(n):
            recv(s)
        if n:
            assert recv(s)[1][:1] == b"\xfe"
    # flags, iteration count, NULL bitmap, new-params-bound, but types truncated
    send(s, b"\x17" + stmt_id + b"\x00\x01\x00\x00\x00\x00\x01\xfd")
    assert err_code(recv(s)) == 1835
    alive(server)


def test_random_packets(server):
    rng = random.Random(8)
    for i in range(120):
        c, s = raw_session(server)
        cmd = rng.choice([0x02, 0x03, 0x04, 0x05, 0x0a, 0x0d, 0x11, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, rng.randrange(256)])
        if cmd in (0x01, 0x0e, 0x0a):  # quit / ping / processlist: nothing interesting
            cmd = 0x17
        payload = bytes([cmd]) + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 64)))
        send(s, payload)
        # COM_STMT_SEND_LONG_DATA / COM_STMT_CLOSE have no answer
        s.settimeout(0.2 if cmd in (0x18, 0x19) else 2)
        try:
            recv(s)
        except (socket.timeout, OSError):
            pass
        c._sock = None
        s.close()
        if i % 25 == 0:
            alive(server)
    alive(server)


def test_oversized_packet_1153_and_close():
    srv = Server(extra=["--max-allowed-packet", "1M"]).start()
    try:
        c, s = raw_session(srv)
        send(s, b"\x03SELECT '" + b"x" * (2 << 20) + b"'")
        assert err_code(recv(s)) == 1153
        assert recv(s) is None  # the server closed the connection, as MySQL does
        # a packet just under the limit works
        c2 = srv.connect()
        cur = c2.cursor()
        cur.execute("SELECT LENGTH(%s)", ("y" * 1_000_000,))
        assert cur.fetchone() == (1_000_000,)
        # PyMySQL sees the error or the lost connection
        with pytest.raises(pymysql.err.OperationalError) as e:
            cur.execute("SELECT LENGTH(%s)", ("y" * (3 << 20),))
        assert e.value.args[0] in (1153, 2006, 2013)
        alive(srv)
    finally:
        srv.stop()


def test_packets_out_of_order_1156(server):
    c, s = raw_session(server)
    send(s, b"\x03SELECT 1", seq=3)
    assert err_code(recv(s)) == 1156
    assert recv(s) is None
    alive(server)


# ------------------------------------------------------------------------------ invalid UTF-8

def test_invalid_utf8(server, db):
    _, name = db
    c, s = raw_session(server)
    send(s, b"\x02" + name.encode())  # COM_INIT_DB
    assert recv(s)[1][:1] == b"\x00"
    # in identifiers: MySQL's 1300, nothing created
    send(s, b"\x03CREATE TABLE `t\xff\xfe` (a INT)")
    r = recv(s)
    assert err_code(r) == 1300
    assert b"Invalid utf8mb4 character string: 'FF'" in r[1]
    send(s, b"\x03SELECT 1 AS a\xc3")
    assert err_code(recv(s)) == 1300
    assert ping(s)
    # in string literals the invalid bytes are kept (as a hex literal); the statement runs
    send(s, b"\x03SELECT LENGTH('a\xffb') > 0")
    r = recv(s)
    assert r[1][:1] == b"\x01"  # a one-column result set
    c.close()
    k = server.connect(db=name)
    cur = k.cursor()
    cur.execute("SHOW TABLES")
    assert cur.fetchall() == ()
    # invalid UTF-8 in COM_INIT_DB: unknown database
    c, s = raw_session(server)
    send(s, b"\x02\xff\xfe")
    assert err_code(recv(s)) == 1049
    assert ping(s)
    alive(server)


# ------------------------------------------------------------------------------ deep nesting

def expect_error(conn, sql, codes):
    with pytest.raises(pymysql.err.MySQLError) as e:
        cur = conn.cursor()
        cur.execute(sql)
        cur.fetchall()
    assert e.value.args[0] in codes, e.value.args
    return e.value.args


def test_deep_nesting(server, db):
    c, _ = db
    args = expect_error(c, "SELECT " + "(" * 10000 + "1" + ")" * 10000, {1436})
    assert "Thread stack overrun" in args[1]
    expect_error(c, "SELECT " + "(SELECT " * 1000 + "1" + ")" * 1000, {1473})
    expect_error(c, "SELECT " + "(SELECT " * 64 + "1" + ")" * 64, {1473})
    expect_error(c, "SELECT " + " + ".join(["1"] * 100_000), {1436})
    expect_error(c, "SELECT " + "-" * 10_000 + "1", {1436})
    expect_error(c, "SELECT " + "CONCAT('a', " * 5000 + "'b'" + ")" * 5000, {1436})
    alive(server)
    cur = c.cursor()
    # within the limits
    cur.execute("SELECT " + "(SELECT " * 63 + "1" + ")" * 63)
    assert cur.fetchone() == (1,)
    cur.execute("SELECT " + "(" * 200 + "1" + ")" * 200)
    assert cur.fetchone() == (1,)
    cur.execute("SELECT " + " + ".join(["1"] * 1500))
    assert cur.fetchone() == (1500,)
    cur.execute("CREATE TABLE t (a INT PRIMARY KEY, b INT)")
    cur.execute("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
    cur.execute("SELECT COUNT(*) FROM t WHERE " + " OR ".join(f"a = {i}" for i in range(900)))
    assert cur.fetchone() == (3,)


def test_huge_in_list_and_multirow_insert(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(20), KEY (v))")
    n = 100_000
    cur.execute("INSERT INTO big VALUES " + ",".join(f"({i}, 'v{i % 1000}')" for i in range(n)))
    assert cur.rowcount == n
    cur.execute("SELECT COUNT(*) FROM big")
    assert cur.fetchone() == (n,)
    in_list = ",".join(str(i * 2) for i in range(n))
    cur.execute(f"SELECT COUNT(*) FROM big WHERE id IN ({in_list})")
    assert cur.fetchone() == (n // 2,)
    cur.execute(f"SELECT COUNT(*) FROM big WHERE id NOT IN ({in_list})")
    assert cur.fetchone() == (n // 2,)
    strs = ",".join(f"'v{i}'" for i in range(0, n, 10))
    cur.execute(f"SELECT COUNT(*) FROM big WHERE v IN ({strs})")
    assert cur.fetchone() == (100 * 100,)
    alive(server)


# ------------------------------------------------------------------------------ time limits

@pytest.fixture()
def cube(db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE n (x INT PRIMARY KEY)")
    cur.execute("INSERT INTO n VALUES " + ",".join(f"({i})" for i in range(300)))
    return c, name


SLOW = "SELECT COUNT(*) FROM n a, n b, n c WHERE a.x + b.x + c.x = -1"


def test_max_execution_time_session_variable(server, cube):
    c, name = cube
    cur = c.cursor()
    cur.execute("SET SESSION max_execution_time = 200")
    args = expect_error(c, SLOW, {3024})
    assert args[1] == "Query execution was interrupted, maximum statement execution time exceeded"
    expect_error(c, "SELECT BENCHMARK(1000000000, 1 + 1)", {3024})
    alive(server)
    # the session goes on; quick statements run; writes are not limited (as in MySQL)
    cur.execute("SELECT COUNT(*) FROM n")
    assert cur.fetchone() == (300,)
    cur.execute("UPDATE n SET x = x + 1000 WHERE x < 10")
    assert cur.rowcount == 10
    cur.execute("SET SESSION max_execution_time = 0")
    cur.execute("SELECT COUNT(*) FROM n a, n b WHERE a.x = b.x")
    assert cur.fetchone() == (300,)


def test_max_execution_time_hint(server, cube):
    c, _ = cube
    args = expect_error(c, SLOW.replace("SELECT", "SELECT /*+ MAX_EXECUTION_TIME(150) */", 1), {3024})
    assert "maximum statement execution time exceeded" in args[1]
    # the hint overrides the session value; without it the session value (none) applies
    cur = c.cursor()
    cur.execute("SELECT /*+ MAX_EXECUTION_TIME(100000) */ COUNT(*) FROM n")
    assert cur.fetchone() == (300,)
    cur.execute("SELECT @@max_execution_time")
    assert cur.fetchone() == (0,)
    alive(server)


def test_kill_query_is_still_1317(server, cube):
    """A KILL QUERY during a statement under a deadline reports 1317, not 3024."""
    import threading
    c, _ = cube
    cur = c.cursor()
    cur.execute("SELECT CONNECTION_ID()")
    cid = cur.fetchone()[0]
    cur.execute("SET SESSION max_execution_time = 600000")
    k = server.connect()
    t = threading.Timer(0.3, lambda: k.cursor().execute(f"KILL QUERY {cid}"))
    t.start()
    expect_error(c, "SELECT BENCHMARK(10000000000, 1 + 1)", {1317})
    t.join()
    k.close()


# ------------------------------------------------------------------------------ memory limits

@pytest.fixture()
def wide(db):
    c, name = db
    cur = c.cursor()
    cur.execute("CREATE TABLE w (id INT PRIMARY KEY, g INT, s VARCHAR(200))")
    for base in range(0, 20_000, 5_000):
        cur.execute("INSERT INTO w VALUES " + ",".join(
            f"({i}, {i % 5000}, '{'x' * 150}{i}')" for i in range(base, base + 5_000)))
    return c, name


def test_sorts_spill_within_the_memory_budget(server, wide):
    """A sort (ORDER BY, top-N, GROUP BY over a scan) no longer holds its input: under a 1 MiB
    max_session_mem_used the full sort goes through temporary files and succeeds."""
    c, _ = wide
    cur = c.cursor()
    cur.execute("SET SESSION max_session_mem_used = 1048576")
    cur.execute("SELECT * FROM w ORDER BY s DESC LIMIT 5")
    assert [r[0] for r in cur.fetchall()] == [9999, 9998, 9997, 9996, 9995]
    cur.execute("SELECT id FROM w ORDER BY s DESC, id")
    ids = [r[0] for r in cur.fetchall()]
    assert len(ids) == 20_000 and ids[0] == 9999
    cur.execute("SELECT COUNT(*), MAX(s) FROM w")
    assert cur.fetchone()[0] == 20_000
    # DISTINCT streams too: with LIMIT it stops once it has sent that many rows
    cur.execute("SELECT DISTINCT g FROM w ORDER BY g LIMIT 3")
    assert [r[0] for r in cur.fetchall()] == [0, 1, 2]
    cur.execute("SET SESSION max_session_mem_used = DEFAULT")
    alive(server)


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(*) FROM w a JOIN w b ON a.g = b.g",                           # hash join
    "SELECT COUNT(*) FROM (SELECT a.id FROM w a, w b WHERE b.id < 100) d",      # derived table
    "SELECT g, COUNT(*), MAX(s) FROM w GROUP BY g ORDER BY g LIMIT 3",          # aggregation
    "SELECT COUNT(DISTINCT s) FROM w",                                          # distinct aggregate
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY g % 3 ORDER BY s) FROM w ORDER BY id LIMIT 5",  # window
])
def test_buffering_operators_spill_under_the_memory_budget(server, wide, sql):
    """Operators that buffer rows move them to temporary files before the memory limit of one
    intermediate result (max_session_mem_used) is reached: under 1 MiB they give the same result
    as with the default limit instead of failing with 1290."""
    c, _ = wide
    cur = c.cursor()
    cur.execute(sql)
    want = cur.fetchall()
    cur.execute("SET SESSION max_session_mem_used = 1048576")
    cur.execute(sql)
    assert cur.fetchall() == want
    cur.execute("SET SESSION max_session_mem_used = DEFAULT")
    alive(server)


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(*) FROM (SELECT DISTINCT s FROM w) d",                         # DISTINCT
    "SELECT s FROM w UNION SELECT CONCAT(s, 'y') FROM w",                       # set operation
])
def test_memory_budget(server, wide, sql):
    c, _ = wide
    cur = c.cursor()
    cur.execute("SET SESSION max_session_mem_used = 1048576")
    args = expect_error(c, sql, {1290})
    assert "max-session-mem-used" in args[1]
    alive(server)
    # within the (default) budget the same statement runs
    cur.execute("SET SESSION max_session_mem_used = DEFAULT")
    cur.execute(sql)
    assert cur.fetchall()
    cur.execute("SELECT @@max_session_mem_used")
    assert cur.fetchone() == (1 << 30,)
