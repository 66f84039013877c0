"""The replica side of replication, over the wire with two real Strata processes: CHANGE
REPLICATION SOURCE TO … SOURCE_AUTO_POSITION=1 + START REPLICA, rows of several types
converge, SHOW REPLICA STATUS / SHOW SLAVE STATUS, a restart after SIGKILL resumes without
duplicates, a duplicate-key conflict stops the applier with 1062, a lost source gives
Seconds_Behind_Source NULL; and the statements' errors."""
import subprocess
import time

import pymysql
import pytest

from conftest import Server, free_port


def wait_for(fn, what, timeout=60):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def rstatus(conn, legacy=False):
    cur = conn.cursor(pymysql.cursors.DictCursor)
    cur.execute("SHOW SLAVE STATUS" if legacy else "SHOW REPLICA STATUS")
    return cur.fetchone()


def gtids(conn):
    cur = conn.cursor()
    cur.execute("SELECT @@gtid_executed")
    return cur.fetchone()[0]


def rows(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    return cur.fetchall()


def err_code(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        conn.cursor().execute(sql)
    return e.value.args[0]


@pytest.fixture()
def pair():
    src = Server(extra=["--server-id", "1"])
    rep = Server(extra=["--server-id", "2"])
    try:
        src.start()
        rep.start()
        yield src, rep
    finally:
        rep.kill()
        src.kill()


def start_replica(src, r):
    c = r.cursor()
    c.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, "
        "SOURCE_USER='repl', SOURCE_PASSWORD='pw', SOURCE_AUTO_POSITION=1, "
        "GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=1000")
    c.execute("START REPLICA")


TABLES = ["rdb.t ORDER BY id", "rdb.nopk ORDER BY a, b"]


def converged(s, r):
    want = gtids(s)
    return gtids(r) == want and all(rows(s, f"SELECT * FROM {t}") == rows(r, f"SELECT * FROM {t}")
                                    for t in TABLES)


def test_replica_follows_the_source(pair):
    src, rep = pair
    s = src.connect()
    r = rep.connect()
    try:
        sc = s.cursor()
        sc.execute("CREATE USER repl@'%' IDENTIFIED BY 'pw'")
        sc.execute("GRANT REPLICATION SLAVE ON *.* TO repl@'%'")
        start_replica(src, r)
        wait_for(lambda: (st := rstatus(r)) and st["Replica_IO_Running"] == "Yes"
                 and st["Replica_SQL_Running"] == "Yes", "both threads running")

        sc.execute("CREATE DATABASE rdb")
        sc.execute("CREATE TABLE rdb.t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(12,3), "
                   "ts DATETIME(6), doc JSON, data BLOB, n BIGINT NULL)")
        sc.execute("CREATE TABLE rdb.nopk (a INT, b VARCHAR(10))")
        sc.execute("INSERT INTO rdb.t VALUES (1, 'ann', 12.5, '2024-02-29 13:05:09.120000', "
                   "'{\"k\": [1, 2, {\"x\": null}], \"s\": \"it''s\"}', X'00FF10', -9000000000)")
        sc.execute("INSERT INTO rdb.t VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL)")
        sc.execute("BEGIN")
        sc.execute("INSERT INTO rdb.t VALUES (3, 'bo\\\\b', -0.001, '1999-12-31 23:59:59', '[]', 'text', 7),"
                   " (4, 'dé', 99999.999, '2000-01-01 00:00:00', '\"str\"', '', 0)")
        sc.execute("UPDATE rdb.t SET name = 'zed', amount = amount + 1 WHERE id = 1")
        sc.execute("COMMIT")
        sc.execute("UPDATE rdb.t SET doc = JSON_OBJECT('a', 1.5), data = NULL WHERE id = 3")
        sc.execute("DELETE FROM rdb.t WHERE id = 2")
        sc.execute("INSERT INTO rdb.nopk VALUES (1, 'x'), (1, 'x'), (2, NULL)")
        sc.execute("DELETE FROM rdb.nopk WHERE a = 1 LIMIT 1")
        sc.execute("UPDATE rdb.nopk SET b = 'y' WHERE a = 2")
        wait_for(lambda: converged(s, r), "the replica to converge")
        assert len(rows(r, "SELECT * FROM rdb.t")) == 3
        assert rows(r, "SELECT a, b FROM rdb.nopk ORDER BY a") == ((1, "x"), (2, "y"))

        st = wait_for(lambda: (x := rstatus(r)) and x["Seconds_Behind_Source"] == 0 and x,
                      "Seconds_Behind_Source 0")
        assert st["Replica_IO_Running"] == "Yes" and st["Replica_SQL_Running"] == "Yes"
        assert st["Source_Host"] == "127.0.0.1" and st["Source_Port"] == src.port
        assert st["Source_User"] == "repl" and st["Auto_Position"] == 1
        assert st["Executed_Gtid_Set"] == gtids(s)
        assert st["Retrieved_Gtid_Set"] and st["Last_IO_Errno"] == 0 and st["Last_SQL_Errno"] == 0
        src_uuid = rows(s, "SELECT @@server_uuid")[0][0]
        assert st["Source_UUID"] == src_uuid and st["Source_Server_Id"] == 1
        assert st["Replica_IO_State"] == "Waiting for source to send event"
        # the replica's binlog holds the source's transactions under their GTIDs
        cur = r.cursor()
        cur.execute("SHOW BINARY LOG STATUS")
        assert cur.fetchone()[4] == gtids(s)
        assert rows(r, "SELECT CHANNEL_NAME, HOST, PORT, USER, AUTO_POSITION FROM "
                       "performance_schema.replication_connection_configuration") == (
            ("", "127.0.0.1", src.port, "repl", "1"),)
        # the source sees the replica
        assert [x[0] for x in rows(s, "SHOW REPLICAS")] == [2]

        # the lag agent's shape
        _, out, _ = rep.cli("SHOW SLAVE STATUS", extra=["-E"])
        assert "Seconds_Behind_Master: 0" in out and "Slave_IO_Running: Yes" in out
        assert "Master_Host: 127.0.0.1" in out
        legacy = rstatus(r, legacy=True)
        assert legacy["Slave_SQL_Running"] == "Yes" and legacy["Master_Port"] == src.port

        r.cursor().execute("STOP REPLICA")
        st = rstatus(r)
        assert st["Seconds_Behind_Source"] is None
        assert (st["Replica_IO_Running"], st["Replica_SQL_Running"]) == ("No", "No")
        sc.execute("INSERT INTO rdb.t VALUES (10, 'while stopped', 1, NULL, NULL, NULL, NULL)")
        # a replica usually runs with super_read_only: clients cannot write, the applier can
        r.cursor().execute("SET GLOBAL super_read_only = ON")
        r.cursor().execute("START REPLICA")
        wait_for(lambda: converged(s, r), "catching up after START REPLICA")
        with pytest.raises(pymysql.err.MySQLError) as e:
            r.cursor().execute("INSERT INTO rdb.t (id) VALUES (11)")
        assert e.value.args[0] == 1290
        r.cursor().execute("SET GLOBAL read_only = OFF")
    finally:
        r.close()

    # SIGKILL the replica while it applies a stream of transactions: it restarts its threads
    # and resumes by GTID after the last transaction it applied, none twice
    for i in range(20, 220):
        sc.execute(f"INSERT INTO rdb.t VALUES ({i}, 'row {i}', {i}.5, NOW(), '{{}}', 'b', {i})")
        if i == 120:
            rep.kill()
    rep.start()
    r = rep.connect()
    try:
        wait_for(lambda: converged(s, r), "catching up after a restart")
        assert rows(r, "SELECT COUNT(*), COUNT(DISTINCT id) FROM rdb.t") == ((204, 204),)
        # a conflict: the row exists on the replica, the source's insert stops the applier
        r.cursor().execute("INSERT INTO rdb.t (id, name) VALUES (1000, 'replica only')")
        sc.execute("INSERT INTO rdb.t (id, name) VALUES (1000, 'source')")
        st = wait_for(lambda: (x := rstatus(r)) and x["Replica_SQL_Running"] == "No" and x,
                      "the applier to stop")
        assert st["Last_SQL_Errno"] == 1062 and "1062" in st["Last_SQL_Error"], st["Last_SQL_Error"]
        assert "Write_rows" in st["Last_SQL_Error"] and st["Seconds_Behind_Source"] is None
        assert st["Replica_IO_Running"] == "Yes"
        # resolve it and retry: the transaction is applied once
        r.cursor().execute("DELETE FROM rdb.t WHERE id = 1000")
        r.cursor().execute("START REPLICA SQL_THREAD")
        wait_for(lambda: rows(r, "SELECT name FROM rdb.t WHERE id = 1000") == (("source",),),
                 "the retried transaction")
        assert rstatus(r)["Last_SQL_Errno"] == 0
        # the source goes away: Seconds_Behind_Source is NULL, the receiver reconnects
        src.kill()
        st = wait_for(lambda: (x := rstatus(r)) and x["Seconds_Behind_Source"] is None and x,
                      "Seconds_Behind_Source NULL")
        assert st["Replica_IO_Running"] == "Connecting"
        _, out, _ = rep.cli("SHOW SLAVE STATUS", extra=["-E"])
        assert "Seconds_Behind_Master: NULL" in out
        r.cursor().execute("STOP REPLICA")
    finally:
        r.close()
        s.close()


def test_statements_errors_and_persistence():
    srv = Server()
    try:
        srv.start()
        c = srv.connect()
        try:
            cur = c.cursor()
            cur.execute("SHOW REPLICA STATUS")
            assert cur.fetchall() == ()
            assert len(cur.description) == 60 and cur.description[32][0] == "Seconds_Behind_Source"
            assert err_code(c, "START REPLICA") == 1200
            assert err_code(c, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_SSL=1") == 1235
            assert err_code(c, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000001'") == 1235
            assert err_code(c, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_AUTO_POSITION=0") == 1235
            assert err_code(c, "CHANGE REPLICATION SOURCE TO SOURCE_NOPE=1") == 1064
            assert err_code(c, "STOP REPLICA FOR CHANNEL 'other'") == 3074
            # nothing was kept by the refused statements
            cur.execute("SHOW REPLICA STATUS")
            assert cur.fetchall() == ()
            dead = free_port()
            cur.execute(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={dead}, MASTER_USER='u', "
                        "MASTER_AUTO_POSITION=1, MASTER_CONNECT_RETRY=1, MASTER_RETRY_COUNT=0")
            st = rstatus(c, legacy=True)
            assert (st["Master_Host"], st["Master_Port"], st["Slave_IO_Running"]) == ("127.0.0.1", dead, "No")
            cur.execute("START SLAVE")
            st = wait_for(lambda: (x := rstatus(c)) and x["Last_IO_Errno"] == 2003 and x, "a connect error")
            assert st["Replica_IO_Running"] == "Connecting" and st["Seconds_Behind_Source"] is None
            assert f"127.0.0.1:{dead}" in st["Last_IO_Error"]
            assert err_code(c, "CHANGE REPLICATION SOURCE TO SOURCE_PORT=1") == 3021
            assert err_code(c, "RESET REPLICA") == 1198
            cur.execute("CREATE USER lag@'%' IDENTIFIED BY 'pw'")
            cur.execute("CREATE USER mon@'%' IDENTIFIED BY 'pw'")
            cur.execute("GRANT REPLICATION CLIENT ON *.* TO mon@'%'")
            lag = srv.connect(user="lag", password="pw")
            mon = srv.connect(user="mon", password="pw")
            try:
                assert err_code(lag, "SHOW REPLICA STATUS") == 1227
                assert err_code(mon, "STOP REPLICA") == 1227
                assert rstatus(mon)["Source_Port"] == dead
            finally:
                lag.close()
                mon.close()
        finally:
            c.close()
        # the configuration and the running threads survive a restart
        srv.stop()
        srv.start(port=srv.port)
        c = srv.connect()
        try:
            st = wait_for(lambda: (x := rstatus(c)) and x["Replica_IO_Running"] == "Connecting" and x,
                          "the receiver restarted")
            assert st["Source_Port"] == dead and st["Connect_Retry"] == 1 and st["Source_Retry_Count"] == 0
            c.cursor().execute("STOP REPLICA IO_THREAD")
            c.cursor().execute("STOP REPLICA")
            c.cursor().execute("RESET REPLICA")
            assert rstatus(c)["Last_IO_Errno"] == 0
            c.cursor().execute("RESET REPLICA ALL")
            cur = c.cursor()
            cur.execute("SHOW REPLICA STATUS")
            assert cur.fetchall() == ()
        finally:
            c.close()
    finally:
        srv.kill()
