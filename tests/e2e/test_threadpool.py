"""The thread pool and connection handling with real clients (PyMySQL) against a real server:
waits and stalls don't block a group, transactions are scheduled first, KILL ends lock waits
promptly, max_connections (+1 administrator connection), timeouts, PROCESSLIST, the TP_* tables.

Blocking statements that report no wait are `BENCHMARK(huge, MD5('x'))`, ended with KILL QUERY, so
no test depends on how fast the machine is."""
import os
import resource
import struct
import threading
import time

import pymysql
import pytest

from conftest import Server

HUGE = 10**12  # BENCHMARK iterations: runs until killed


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def wait_for(cond, timeout=20.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def group_of(c):
    """The thread group a connection is in (its own worker shows it while it runs)."""
    return q(c, "SELECT TP_GROUP_ID FROM information_schema.TP_THREAD_STATE "
                "WHERE CONNECTION_ID = CONNECTION_ID()")[0][0]


def group_state(c, gid):
    cur = c.cursor(pymysql.cursors.DictCursor)
    cur.execute("SELECT * FROM information_schema.TP_THREAD_GROUP_STATE WHERE TP_GROUP_ID = %s", (gid,))
    return cur.fetchone()


def stats(c):
    """TP_THREAD_GROUP_STATS summed over the groups."""
    cur = c.cursor(pymysql.cursors.DictCursor)
    cur.execute("SELECT * FROM information_schema.TP_THREAD_GROUP_STATS")
    total = {}
    for row in cur.fetchall():
        for k, v in row.items():
            if k != "TP_GROUP_ID":
                total[k] = total.get(k, 0) + int(v)
    return total


def kill_query(obs, bg, conn_id):
    """Kills the statement `bg` runs on connection `conn_id` and waits for it to end."""
    q(obs, f"KILL QUERY {conn_id}")
    bg.join(10)
    assert not bg.is_alive()


def running(c, conn_id):
    """True while connection `conn_id` is on a pool thread: its statement executes, or its worker
    lingers on it for a moment after the answer (see the lingering test)."""
    return q(c, "SELECT COUNT(*) FROM information_schema.TP_THREAD_STATE WHERE CONNECTION_ID = %s",
             (conn_id,))[0][0] > 0


def executing(c, conn_id, text):
    """True while connection `conn_id`'s statement containing `text` shows in the process list."""
    return any(r[0] == conn_id and r[7] and text in r[7] for r in q(c, "SHOW FULL PROCESSLIST"))


class Bg(threading.Thread):
    """Runs one statement on a connection in the background; keeps the result or the error."""

    def __init__(self, conn, sql):
        super().__init__(daemon=True)
        self.conn, self.sql, self.result, self.error = conn, sql, None, None
        self.start()

    def run(self):
        try:
            self.result = q(self.conn, self.sql)
        except pymysql.MySQLError as e:
            self.error = e


@pytest.fixture()
def pool2():
    s = Server(extra=["--thread-pool-size", "2", "--max-connections", "400"]).start()
    yield s
    s.stop()


def kept_after_answers(a, b, n=20):
    """How many of n statements of `a` left its worker on it (lingering) 10 ms after the answer,
    as TP_THREAD_STATE shows it to `b`."""
    aid = q(a, "SELECT CONNECTION_ID()")[0][0]
    kept = 0
    for _ in range(n):
        assert q(a, "SELECT 1") == ((1,),)
        # past the moment a worker that does not linger takes to leave the connection
        time.sleep(0.01)
        row = q(b, "SELECT STATE FROM information_schema.TP_THREAD_STATE WHERE CONNECTION_ID = %s",
                (aid,))
        kept += len(row) == 1 and row[0][0] == "active"
    return kept


def test_lingering_keeps_a_busy_connection_on_its_worker_then_parks_it(pool2):
    """Lingering: a group with room for all its connections keeps a connection on its worker for
    a moment (50 ms) after each answer, waiting for the next command (in a pool of two groups
    also between autocommit statements). TP_THREAD_STATE shows that worker active for the
    connection between two statements; once the connection stays idle it is parked and holds
    no thread, and its next statement is still answered."""
    s = pool2
    a, b = s.connect(), s.connect()
    aid = q(a, "SELECT CONNECTION_ID()")[0][0]
    # most of the time (a loaded machine may take b's query past the 50 ms now and then)
    seen = kept_after_answers(a, b)
    assert seen >= 10, f"a's worker was on it 10 ms after its answer {seen} times of 20"
    wait_for(lambda: not running(b, aid), 5, "a parked once idle")
    assert not running(b, aid)
    assert q(a, "SELECT 2") == ((2,),)
    a.close()
    b.close()


def test_a_larger_pool_lingers_only_inside_a_transaction():
    """With more than two thread groups an autocommit connection is parked after each answer
    (its worker goes back to the group's queue); inside a transaction it lingers."""
    s = Server(extra=["--thread-pool-size", "4"]).start()
    try:
        a, b = s.connect(), s.connect()
        aid = q(a, "SELECT CONNECTION_ID()")[0][0]
        kept = kept_after_answers(a, b)
        assert kept <= 2, f"a's worker was on it 10 ms after an autocommit answer {kept} times of 20"
        q(a, "BEGIN")
        seen = kept_after_answers(a, b)
        assert seen >= 10, f"a's worker was on it 10 ms after its answer {seen} times of 20"
        q(a, "COMMIT")
        wait_for(lambda: not running(b, aid), 5, "a parked once idle")
        assert q(a, "SELECT 2") == ((2,),)
    finally:
        s.stop()


def test_waits_in_200_transactions_do_not_block_a_new_connection(pool2):
    """200 connections each sleep inside a transaction (a reported wait); a new connection still
    gets its short query answered at once, and TP_THREAD_GROUP_STATS counts the waits."""
    s = pool2
    obs = s.connect()
    conns = [s.connect() for _ in range(200)]
    for c in conns:
        q(c, "BEGIN")
    before = stats(obs)
    sleepers = [Bg(c, "SELECT SLEEP(4)") for c in conns]
    wait_for(lambda: stats(obs)["SLEEP_WAITS"] - before["SLEEP_WAITS"] >= 200, 10, "200 sleeps")
    t0 = time.time()
    fresh = s.connect()
    assert q(fresh, "SELECT 1") == ((1,),)
    elapsed = time.time() - t0
    assert elapsed < 1.5, f"a new connection waited {elapsed:.2f}s behind sleeping transactions"
    procs = q(obs, "SHOW FULL PROCESSLIST")
    assert sum(1 for p in procs if p[6] == "User sleep" and p[4] == "Query") == 200
    after = stats(obs)
    assert after["SLEEP_WAITS"] - before["SLEEP_WAITS"] >= 200
    assert after["THREADS_STARTED"] >= 200, after
    assert after["CONNECTIONS_STARTED"] >= 202, after
    for t in sleepers:
        t.join(30)
        assert t.error is None and t.result == ((0,),)
    st = dict(q(obs, "SHOW GLOBAL STATUS"))
    assert int(st["Threads_created"]) >= 200
    assert int(st["Threads_connected"]) == 202
    assert int(st["Max_used_connections"]) >= 202
    for c in conns + [fresh]:
        c.close()
    wait_for(lambda: int(dict(q(obs, "SHOW GLOBAL STATUS"))["Threads_connected"]) == 1, 10,
             "disconnects")


def test_stall_limit_lets_another_statement_start():
    """A statement that blocks without reporting a wait is declared stalled after
    thread_pool_stall_limit, so the next statement of its group still runs."""
    s = Server(extra=["--thread-pool-size", "1", "--set", "thread_pool_oversubscribe=0",
                      "--set", "thread_pool_stall_limit=10"]).start()
    try:
        obs, blocker, other = s.connect(), s.connect(), s.connect()
        bid = blocker.thread_id()
        before = stats(obs)["STALLED_QUERIES_EXECUTED"]
        bg = Bg(blocker, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
        wait_for(lambda: running(obs, bid), what="blocker running")
        t0 = time.time()
        assert q(other, "SELECT 2") == ((2,),)
        assert time.time() - t0 < 3
        st = stats(obs)
        assert st["STALLED_QUERIES_EXECUTED"] - before >= 1
        state = group_state(obs, 0)
        assert state["STALLED_THREAD_COUNT"] == 1 and state["STALL_LIMIT"] == 10
        kill_query(obs, bg, bid)
    finally:
        s.stop()


def niced_workers(pid, nice=10):
    """Pool worker threads of server process `pid` running at `nice` (from /proc)."""
    n = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:
            continue  # the thread just ended
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if comm.startswith("tp") and comm != "tp-timer" and int(fields[16]) == nice:
            n += 1
    return n


def test_a_stalled_statement_runs_at_a_lower_priority_until_it_ends():
    """thread_pool_stall_nice: the worker of a statement declared stalled runs at nice 10 (Linux
    thread priority) while short statements go on; once it ends no worker is left lowered (the
    thread raises its priority again, or retires when it may not). 0 turns it off."""
    s = Server(extra=["--thread-pool-size", "1"]).start()
    try:
        pid = s.proc.pid
        obs, blocker = s.connect(), s.connect()
        bid = blocker.thread_id()
        assert q(obs, "SELECT @@global.thread_pool_stall_nice") == ((10,),)
        assert niced_workers(pid) == 0
        bg = Bg(blocker, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
        wait_for(lambda: niced_workers(pid) == 1, what="the stalled statement's worker at nice 10")
        assert group_state(obs, 0)["STALLED_THREAD_COUNT"] == 1
        assert q(obs, "SELECT 2") == ((2,),)
        kill_query(obs, bg, bid)
        wait_for(lambda: niced_workers(pid) == 0, what="no worker left at nice 10")
        assert q(blocker, "SELECT 3") == ((3,),)

        q(obs, "SET GLOBAL thread_pool_stall_nice = 0")
        time.sleep(0.2)  # the pool's timer reads the variables every 100 ms
        bg = Bg(blocker, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
        wait_for(lambda: group_state(obs, 0)["STALLED_THREAD_COUNT"] == 1, what="stalled again")
        time.sleep(0.1)
        assert niced_workers(pid) == 0
        kill_query(obs, bg, bid)
    finally:
        s.stop()


def test_a_report_connections_next_statement_starts_at_the_lower_priority():
    """A connection whose last statement ran past thread_pool_stall_limit (a report running
    long statements one after another) starts its next statement at nice 10 before the timer
    declares it stalled; after a short statement it starts at nice 0 again."""
    s = Server(extra=["--thread-pool-size", "1", "--set", "thread_pool_stall_limit=300"]).start()
    try:
        pid = s.proc.pid
        obs, report = s.connect(), s.connect()
        rid = report.thread_id()

        def run_until(cond, what):
            bg = Bg(report, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
            wait_for(lambda: running(obs, rid), what="the report running")
            # its statement started (TP_THREAD_STATE also shows a worker lingering before it):
            # from then on a KILL QUERY applies to it
            wait_for(lambda: executing(obs, rid, "BENCHMARK"), what="the report's statement")
            wait_for(cond, what=what)
            stalled = group_state(obs, 0)["STALLED_THREAD_COUNT"]
            kill_query(obs, bg, rid)
            return stalled

        # a first long statement: lowered only once the timer declares it stalled (3 s)
        run_until(lambda: group_state(obs, 0)["STALLED_THREAD_COUNT"] == 1, what="stalled")
        wait_for(lambda: niced_workers(pid) == 0, what="no worker left at nice 10")
        # the next one starts lowered, long before the stall limit
        assert run_until(lambda: niced_workers(pid) == 1, what="lowered from the start") == 0
        wait_for(lambda: niced_workers(pid) == 0, what="no worker left at nice 10")
        # that one ended early (killed): the one after starts at nice 0
        assert q(report, "SELECT 4") == ((4,),)

        def starts_unlowered():
            bg = Bg(report, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
            wait_for(lambda: running(obs, rid), what="the report running")
            time.sleep(0.3)
            assert group_state(obs, 0)["STALLED_THREAD_COUNT"] == 0
            assert niced_workers(pid) == 0
            kill_query(obs, bg, rid)

        starts_unlowered()
        # a statement that only waited past the limit (on a row lock) is no report
        q(obs, "CREATE DATABASE tp_report")
        q(obs, "CREATE TABLE tp_report.t (id INT PRIMARY KEY, v INT)")
        q(obs, "INSERT INTO tp_report.t VALUES (1, 0)")
        holder = s.connect()
        q(holder, "BEGIN")
        q(holder, "UPDATE tp_report.t SET v = 1 WHERE id = 1")
        bg = Bg(report, "UPDATE tp_report.t SET v = 2 WHERE id = 1")
        wait_for(lambda: running(obs, rid), what="the update waiting")
        time.sleep(3.5)
        q(holder, "COMMIT")
        bg.join(10)
        assert not bg.is_alive() and bg.error is None, bg.error
        starts_unlowered()
    finally:
        s.stop()


def test_transaction_statements_run_before_queued_autocommit_statements():
    """With the group's only slot taken, queued statements of a connection inside a transaction
    (and of one with thread_pool_high_priority_connection) run before the earlier-queued
    statements of connections outside one; QUEUED_QUERIES / QUEUED_TRANS and PRIO_KICKUPS report
    the queues."""
    s = Server(extra=["--thread-pool-size", "2", "--set", "thread_pool_oversubscribe=0",
                      "--set", "thread_pool_stall_limit=100000",
                      "--set", "thread_pool_prio_kickup_timer=100000"]).start()
    try:
        conns = [s.connect() for _ in range(16)]
        groups = {}
        for c in conns:
            groups.setdefault(group_of(c), []).append(c)
        assert len(groups[0]) >= 7 and len(groups[1]) >= 1, {k: len(v) for k, v in groups.items()}
        obs = groups[1][0]
        blocker, trx, lows, hp = groups[0][0], groups[0][1], groups[0][2:6], groups[0][6]
        q(trx, "BEGIN")
        q(hp, "SET SESSION thread_pool_high_priority_connection = 1")
        bid = blocker.thread_id()
        bg = Bg(blocker, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
        wait_for(lambda: running(obs, bid), what="blocker running")
        work = []
        for i, c in enumerate(lows):
            work.append(("low", Bg(c, "SELECT NOW(6)")))
            wait_for(lambda: group_state(obs, 0)["QUEUED_QUERIES"] == i + 1, what=f"{i + 1} queued")
        work.append(("trx", Bg(trx, "SELECT NOW(6)")))
        wait_for(lambda: group_state(obs, 0)["QUEUED_TRANS"] == 1, what="transaction queued")
        work.append(("hp", Bg(hp, "SELECT NOW(6)")))
        wait_for(lambda: group_state(obs, 0)["QUEUED_TRANS"] == 2, what="high-priority queued")
        state = group_state(obs, 0)
        assert (state["QUEUED_QUERIES"], state["QUEUED_TRANS"]) == (4, 2)
        assert state["ACTIVE_THREAD_COUNT"] == 1 and state["OLDEST_QUEUED"] > 0
        q(obs, f"KILL QUERY {bid}")
        bg.join(10)
        for _, t in work:
            t.join(10)
            assert t.error is None, t.error
        times = {id(t): t.result[0][0] for _, t in work}
        trx_time = [times[id(t)] for kind, t in work if kind == "trx"][0]
        hp_time = [times[id(t)] for kind, t in work if kind == "hp"][0]
        low_times = [times[id(t)] for kind, t in work if kind == "low"]
        assert trx_time < hp_time < min(low_times), (trx_time, hp_time, low_times)
        assert low_times == sorted(low_times), "low-priority statements run in queue order"
        assert stats(obs)["PRIO_KICKUPS"] == 0

        # Kick-up: with a short timer, low-priority statements queued too long move up.
        q(obs, "SET GLOBAL thread_pool_prio_kickup_timer = 50")
        wait_for(lambda: group_state(obs, 0)["PRIO_KICKUP_TIMER"] == 50, what="timer refresh")
        bg = Bg(blocker, f"SELECT BENCHMARK({HUGE}, MD5('x'))")
        wait_for(lambda: running(obs, bid), what="blocker running again")
        waiting = [Bg(c, "SELECT 1") for c in lows]
        wait_for(lambda: stats(obs)["PRIO_KICKUPS"] >= 4, what="kick-ups")
        assert group_state(obs, 0)["QUEUED_TRANS"] == 4
        q(obs, f"KILL QUERY {bid}")
        for t in waiting + [bg]:
            t.join(10)
            assert not t.is_alive()
    finally:
        s.stop()


def test_kill_query_ends_a_row_lock_wait_within_a_second(pool2):
    s = pool2
    a, b, k = s.connect(), s.connect(), s.connect()
    q(a, "CREATE DATABASE tp_kill")
    q(a, "CREATE TABLE tp_kill.t (id INT PRIMARY KEY, v INT)")
    q(a, "INSERT INTO tp_kill.t VALUES (1, 0)")
    before = stats(k)["ROW_LOCK_WAITS"]
    q(a, "BEGIN")
    q(a, "UPDATE tp_kill.t SET v = 1 WHERE id = 1")
    bid = b.thread_id()
    w = Bg(b, "UPDATE tp_kill.t SET v = 2 WHERE id = 1")
    wait_for(lambda: any(p[0] == bid and p[6] == "Waiting for row lock" for p in q(k, "SHOW PROCESSLIST")),
             what="lock wait in processlist")
    row = q(k, "SELECT WAIT_TYPE, STATE FROM information_schema.TP_THREAD_STATE WHERE CONNECTION_ID = %s",
            (bid,))
    assert row == (("ROW_LOCK", "waiting"),)
    assert stats(k)["ROW_LOCK_WAITS"] - before == 1
    t0 = time.time()
    q(k, f"KILL QUERY {bid}")
    w.join(5)
    elapsed = time.time() - t0
    assert not w.is_alive() and elapsed < 1.0, elapsed
    assert w.error is not None and w.error.args[0] == 1317
    # The connection survives KILL QUERY; the lock holder is unaffected.
    assert q(b, "SELECT 1") == ((1,),)
    q(a, "COMMIT")
    assert q(b, "SELECT v FROM tp_kill.t") == ((1,),)
    # KILL CONNECTION (and COM_PROCESS_KILL) of a waiting connection ends it promptly too.
    q(a, "BEGIN")
    q(a, "UPDATE tp_kill.t SET v = 3 WHERE id = 1")
    w = Bg(b, "UPDATE tp_kill.t SET v = 4 WHERE id = 1")
    wait_for(lambda: running(k, bid) and q(k, "SELECT WAIT_TYPE FROM information_schema.TP_THREAD_STATE "
                                              "WHERE CONNECTION_ID = %s", (bid,)) == (("ROW_LOCK",),),
             what="second lock wait")
    t0 = time.time()
    k.kill(bid)
    w.join(5)
    assert not w.is_alive() and time.time() - t0 < 1.0
    assert w.error is not None and w.error.args[0] in (1317, 2013)
    wait_for(lambda: all(p[0] != bid for p in q(k, "SHOW PROCESSLIST")), 5, "killed connection gone")
    q(a, "ROLLBACK")
    q(a, "DROP DATABASE tp_kill")


def create_app_account(srv):
    """'app'@'%': a non-administrator (no SUPER) that may see every thread (PROCESS)."""
    c = srv.connect()
    q(c, "CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password")
    q(c, "GRANT PROCESS ON *.* TO 'app'@'%'")
    c.close()


def connect_or_none(srv, refused=None, **kw):
    try:
        return srv.connect(**kw)
    except pymysql.MySQLError as e:
        assert e.args[0] == 1040
        if refused is not None:
            refused.append(e)
        return None


def test_max_connections_1040_then_admin_connection_and_healthy():
    """1040 connections of a non-administrator fill max_connections=1040; the 1041st gets error
    1040, root (the administrator) still gets the extra connection, the one after that gets 1040,
    and the server keeps serving."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    srv = Server(extra=["--max-connections", "1040", "--thread-pool-size", "2"])
    srv.start()
    create_app_account(srv)
    conns = []
    try:
        for _ in range(1040):
            conns.append(srv.connect(user="app"))
        with pytest.raises(pymysql.MySQLError) as e:
            srv.connect(user="app")
        assert e.value.args[0] == 1040
        # The refused connection's slot is released just after its error is sent: retry briefly
        # (an attempt that comes too early is refused, and counted, too).
        early = []
        admin = wait_for(lambda: connect_or_none(srv, early), 5, "the administrator connection")
        st = dict(q(admin, "SHOW GLOBAL STATUS"))
        assert int(st["Threads_connected"]) == 1041
        assert int(st["Connection_errors_max_connections"]) == 1 + len(early)
        with pytest.raises(pymysql.MySQLError) as e:
            srv.connect()
        assert e.value.args[0] == 1040
        st = dict(q(admin, "SHOW GLOBAL STATUS"))
        assert int(st["Connection_errors_max_connections"]) == 2 + len(early)
        assert q(conns[0], "SELECT 1") == ((1,),)
        assert q(conns[-1], "SELECT COUNT(*) FROM information_schema.PROCESSLIST") == ((1041,),)
        conn_count = q(admin, "SELECT SUM(CONNECTION_COUNT) FROM information_schema.TP_THREAD_GROUP_STATE")
        assert int(conn_count[0][0]) == 1041
        for c in conns[:10]:
            c.close()
        wait_for(lambda: int(dict(q(admin, "SHOW GLOBAL STATUS"))["Threads_connected"]) == 1031, 10,
                 "closed connections counted")
        again = srv.connect(user="app")
        assert q(again, "SELECT 1") == ((1,),)
        conns.append(again)
    finally:
        for c in conns:
            try:
                c.close()
            except Exception:
                pass
        srv.stop()


def test_wait_timeout_interactive_timeout_and_variables(pool2):
    s = pool2
    c = s.connect()
    v = dict(q(c, "SHOW VARIABLES LIKE 'thread%'"))
    assert v["thread_handling"] == "pool-of-threads" and v["thread_pool_size"] == "2"
    assert dict(q(c, "SHOW VARIABLES LIKE 'back_log'"))["back_log"] == "4096"
    q(c, "SET GLOBAL interactive_timeout = 123")
    i = s.connect(client_flag=pymysql.constants.CLIENT.INTERACTIVE)
    assert q(i, "SELECT @@wait_timeout") == ((123,),)
    assert q(c, "SELECT @@wait_timeout") == ((28800,),)
    idle = s.connect()
    q(idle, "SET SESSION wait_timeout = 1")
    time.sleep(2.6)
    with pytest.raises(pymysql.MySQLError):
        q(idle, "SELECT 1")
    with pytest.raises(pymysql.MySQLError):
        q(c, "SET SESSION thread_pool_size = 3")
    q(c, "SET SESSION thread_pool_high_priority_connection = 1")
    assert q(c, "SELECT @@thread_pool_high_priority_connection") == ((1,),)


def test_one_thread_per_connection_mode():
    s = Server(extra=["--thread-handling", "one-thread-per-connection", "--max-connections", "3"]).start()
    try:
        c = s.connect()
        assert q(c, "SELECT @@thread_handling") == (("one-thread-per-connection",),)
        assert q(c, "SELECT COUNT(*) FROM information_schema.TP_THREAD_GROUP_STATE") == ((0,),)
        b = s.connect()
        bid = b.thread_id()
        w = Bg(b, "SELECT SLEEP(30)")
        wait_for(lambda: any(p[0] == bid and p[6] == "User sleep" for p in q(c, "SHOW PROCESSLIST")),
                 what="sleep in processlist")
        q(c, f"KILL QUERY {bid}")
        w.join(5)
        assert not w.is_alive()
        idle = s.connect()
        q(idle, "SET SESSION wait_timeout = 1")
        time.sleep(2.6)
        with pytest.raises(pymysql.MySQLError):
            q(idle, "SELECT 1")
        st = dict(q(c, "SHOW GLOBAL STATUS"))
        assert int(st["Threads_created"]) >= 3
    finally:
        s.stop()


def test_connect_timeout_and_net_read_timeout(pool2):
    """A client that never answers the greeting is dropped after connect_timeout (an aborted
    connect); one that stops in the middle of a packet, after net_read_timeout."""
    import socket
    s = pool2
    c = s.connect()
    q(c, "SET GLOBAL connect_timeout = 2")
    aborted = int(dict(q(c, "SHOW GLOBAL STATUS"))["Aborted_connects"])
    raw = socket.create_connection(("127.0.0.1", s.port))
    raw.settimeout(15)
    assert raw.recv(4096)[4] == 10  # protocol version 10 greeting
    t0 = time.time()
    assert raw.recv(4096) == b""
    elapsed = time.time() - t0
    assert 1.5 < elapsed < 5, elapsed
    raw.close()
    wait_for(lambda: int(dict(q(c, "SHOW GLOBAL STATUS"))["Aborted_connects"]) == aborted + 1, 5,
             "aborted connect counted")
    q(c, "SET GLOBAL connect_timeout = 10")

    slow = s.connect()
    q(slow, "SET SESSION net_read_timeout = 1")
    sock = slow._sock
    sock.settimeout(15)
    sock.sendall(b"\x10\x00\x00\x00\x03SEL")  # a 16-byte COM_QUERY cut short
    t0 = time.time()
    try:
        data = sock.recv(4096)
    except ConnectionResetError:
        data = b""
    assert data == b"" and time.time() - t0 < 5
    assert q(c, "SELECT 1") == ((1,),)


def test_a_command_arriving_in_pieces_slower_than_the_linger_still_runs(pool2):
    """A pooled connection waits for its next command with the socket's own read timeout set to
    the linger (50 ms), and the packet reader enforces net_read_timeout itself by retrying: a
    command whose bytes arrive in pieces, each pause longer than the linger but well within
    net_read_timeout, is still read whole and answered, on a connection that lingered before."""
    s = pool2
    a, b = s.connect(), s.connect()
    for _ in range(3):
        assert q(a, "SELECT 1") == ((1,),)
        assert q(b, "SELECT 2") == ((2,),)
    sql = b"SELECT 7 + 1"
    pkt = bytes([len(sql) + 1, 0, 0, 0, 3]) + sql
    sock = a._sock
    for part in (pkt[:2], pkt[2:7], pkt[7:]):
        sock.sendall(part)
        time.sleep(0.3)
    a._next_seq_id = 1
    r = pymysql.connections.MySQLResult(a)
    r.read()
    assert r.rows == ((8,),)
    assert q(a, "SELECT 3") == ((3,),)
    assert q(b, "SELECT 4") == ((4,),)


def test_cold_scan_reports_disk_io_waits():
    """A scan of a table several times larger than a tiny block cache, read right after a restart
    (its data in SST files, nothing cached), reports disk-read waits (block-cache misses) that
    TP_THREAD_GROUP_STATS counts; the scan still returns every row, forward and backward."""
    s = Server(extra=["--block-cache-size", "1M", "--thread-pool-size", "1"]).start()
    try:
        c = s.connect()
        q(c, "CREATE DATABASE dio")
        q(c, "CREATE TABLE dio.t (id INT PRIMARY KEY, pad VARCHAR(200))")
        rows = 20000
        for lo in range(0, rows, 1000):
            vals = ",".join(f"({i}, CONCAT(MD5({i}), MD5({i} + 1), MD5({i} + 2), MD5({i} + 3)))"
                            for i in range(lo + 1, lo + 1001))
            q(c, f"INSERT INTO dio.t VALUES {vals}")
        c.close()
        # After a restart the rows sit in SST files (recovery writes the log's data to level 0)
        # and the block cache is empty.
        s.stop()
        s.start()
        c = s.connect()
        before = stats(c)["DISK_IO_WAITS"]
        assert q(c, "SELECT COUNT(*), SUM(LENGTH(pad)), MIN(id), MAX(id) FROM dio.t") == \
            ((rows, rows * 128, 1, rows),)
        after_scan = stats(c)["DISK_IO_WAITS"]
        assert after_scan > before, (before, after_scan)
        # A descending scan and point lookups read correctly through the same path.
        ids = [r[0] for r in q(c, "SELECT id FROM dio.t ORDER BY id DESC")]
        assert ids == list(range(rows, 0, -1))
        for i in (1, 7777, rows):
            assert q(c, "SELECT LENGTH(pad) FROM dio.t WHERE id = %s", (i,)) == ((128,),)
        # A small table that was just written (still in memory) causes no disk reads.
        q(c, "CREATE TABLE dio.small (id INT PRIMARY KEY)")
        q(c, "INSERT INTO dio.small VALUES (1), (2), (3)")
        quiet = stats(c)["DISK_IO_WAITS"]
        assert q(c, "SELECT SUM(id) FROM dio.small") == ((6,),)
        assert stats(c)["DISK_IO_WAITS"] == quiet
    finally:
        s.stop()


def pipelined(c, sqls):
    """Sends the COM_QUERY packets of `sqls` in one write, then reads each result in turn."""
    c._sock.sendall(b"".join(struct.pack("<I", len(x) + 1)[:3] + b"\x00\x03" + x.encode()
                             for x in sqls))
    out = []
    for _ in sqls:
        c._next_seq_id = 1
        r = pymysql.connections.MySQLResult(c)
        r.read()
        out.append(r.rows)
    return out


@pytest.mark.parametrize("handling", ["pool-of-threads", "one-thread-per-connection"])
def test_pipelined_commands_in_one_segment_are_all_answered(handling):
    # The server reads ahead: one read can bring several commands. The ones left in its buffer
    # must run without waiting for the socket (which will not become readable for them).
    s = Server(extra=["--thread-handling", handling, "--thread-pool-size", "1"]).start()
    try:
        c = s.connect(read_timeout=10)  # a command left unanswered fails the read
        big = "x" * 40000  # a payload far past the 4 KiB read-ahead buffer
        got = pipelined(c, ["SELECT 1", "SELECT 2", f"SELECT LENGTH('{big}')", "SELECT 4"])
        assert got == [((1,),), ((2,),), ((40000,),), ((4,),)]
        for _ in range(3):
            got = pipelined(c, [f"SELECT {i}" for i in range(50)])
            assert got == [((i,),) for i in range(50)]
        assert q(c, "SELECT 5") == ((5,),)
    finally:
        s.stop()
