"""The binary log over the wire (issue 37): MySQL 8.4's events for DDL and row changes with
GTIDs, read back by SHOW BINLOG EVENTS and by mariadb-binlog from the files; FLUSH / PURGE /
RESET; sql_log_bin; server_uuid kept across restarts; and after SIGKILL during committing
writers, every committed transaction is in the binlog and every binlogged one in the data."""
import os
import re
import subprocess
import threading
import time

import pymysql
import pytest

from conftest import Server


def err(cur, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql)
    return e.value.args[0]


def gtid_count(text):
    """Transactions in a one-UUID GTID set text such as 'uuid:1-5:7'."""
    n = 0
    for part in text.replace("\n", "").split(":")[1:]:
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def events(cur, file=None):
    cur.execute(f"SHOW BINLOG EVENTS IN '{file}'" if file else "SHOW BINLOG EVENTS")
    return cur.fetchall()


def test_rows_and_ddl_are_logged_and_decodable():
    srv = Server().start()
    try:
        c = srv.connect()
        cur = c.cursor()
        cur.execute("SELECT @@log_bin, @@gtid_mode, @@binlog_format, @@server_uuid, @@log_bin_basename")
        log_bin, mode, fmt, uuid, base = cur.fetchone()
        assert (log_bin, mode, fmt) == (1, "ON", "ROW")
        cur.execute("SET SESSION binlog_format = 'ROW'")
        assert err(cur, "SET SESSION binlog_format = 'STATEMENT'") == 1231
        assert err(cur, "SET GLOBAL binlog_format = 'MIXED'") == 1231
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", uuid)
        assert base.endswith("/binlog")
        cur.execute("CREATE DATABASE bl")
        cur.execute("CREATE TABLE bl.t (id INT PRIMARY KEY, name VARCHAR(20), amt DECIMAL(8,2), "
                    "d DATETIME(3), e ENUM('x','y'), s SET('a','b'), u BIGINT UNSIGNED)")
        cur.execute("INSERT INTO bl.t VALUES (1, 'ann', 12.50, '2024-01-02 03:04:05.678', 'y', 'a,b', 18446744073709551615),"
                    " (2, 'bob', -3.25, NULL, 'x', '', 0)")
        cur.execute("UPDATE bl.t SET name = 'ANN' WHERE id = 1")
        cur.execute("DELETE FROM bl.t WHERE id = 2")
        # a transaction of several statements is one GTID; a rolled back one is not logged
        cur.execute("BEGIN")
        cur.execute("INSERT INTO bl.t (id, name) VALUES (3, 'cid')")
        cur.execute("INSERT INTO bl.t (id, name) VALUES (4, 'dan')")
        cur.execute("COMMIT")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO bl.t (id, name) VALUES (5, 'eve')")
        cur.execute("ROLLBACK")
        # sql_log_bin = 0: not logged
        cur.execute("SET sql_log_bin = 0")
        cur.execute("INSERT INTO bl.t (id, name) VALUES (6, 'fay')")
        cur.execute("SET sql_log_bin = 1")
        cur.execute("SELECT @@gtid_executed")
        assert cur.fetchone()[0] == f"{uuid}:1-6"
        cur.execute("SHOW BINARY LOG STATUS")
        file, pos, _, _, executed = cur.fetchone()
        assert (file, executed) == ("binlog.000001", f"{uuid}:1-6")
        cur.execute("SHOW MASTER STATUS")
        assert cur.fetchone()[:2] == (file, pos)
        ev = events(cur)
        types = [e[2] for e in ev]
        assert types[:2] == ["Format_desc", "Previous_gtids"]
        assert types[2:] == (["Gtid", "Query"] * 2
                             + ["Gtid", "Query", "Table_map", "Write_rows", "Xid"]
                             + ["Gtid", "Query", "Table_map", "Update_rows", "Xid"]
                             + ["Gtid", "Query", "Table_map", "Delete_rows", "Xid"]
                             + ["Gtid", "Query", "Table_map", "Write_rows", "Xid"]), types
        assert ev[-1][4] == pos
        assert "CREATE TABLE bl.t" in ev[5][5]
        assert f"'{uuid}:6'" in [e for e in ev if e[2] == "Gtid"][-1][5]
        # the file as MariaDB's reader decodes it
        path = os.path.join(srv.datadir, file)
        out = subprocess.run(["mariadb-binlog", "--verbose", "--base64-output=decode-rows", path],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        text = out.stdout
        assert "### INSERT INTO `bl`.`t`" in text and "### UPDATE `bl`.`t`" in text, text
        assert "### DELETE FROM `bl`.`t`" in text
        for v in ["@2='ann'", "@3=12.50", "@3=-3.25", "@4='2024-01-02 03:04:05.678'", "@5=2", "@6=b'00000011'",
                  "@7=-1 (18446744073709551615)", "@2='ANN'", "@2='cid'", "@2='dan'"]:
            assert v in text, v
        assert "'eve'" not in text and "'fay'" not in text
        # FLUSH / PURGE / RESET, and their errors
        cur.execute("FLUSH BINARY LOGS")
        cur.execute("INSERT INTO bl.t (id) VALUES (7)")
        cur.execute("SHOW BINARY LOGS")
        logs = cur.fetchall()
        assert [r[0] for r in logs] == ["binlog.000001", "binlog.000002"]
        assert [e[2] for e in events(cur, "binlog.000002")][:3] == ["Format_desc", "Previous_gtids", "Gtid"]
        assert err(cur, "SHOW BINLOG EVENTS IN 'nope.000009'") == 1220
        assert err(cur, "PURGE BINARY LOGS TO 'nope.000009'") == 1373
        cur.execute("PURGE BINARY LOGS TO 'binlog.000002'")
        cur.execute("SHOW BINARY LOGS")
        assert [r[0] for r in cur.fetchall()] == ["binlog.000002"]
        assert not os.path.exists(path)
        cur.execute("SELECT @@gtid_purged")
        assert cur.fetchone()[0] == f"{uuid}:1-6"
        cur.execute("RESET BINARY LOGS AND GTIDS")
        cur.execute("SELECT @@gtid_executed")
        assert cur.fetchone()[0] == ""
        cur.execute("SHOW BINARY LOGS")
        assert [r[0] for r in cur.fetchall()] == ["binlog.000001"]
        cur.execute("INSERT INTO bl.t (id) VALUES (8)")
        cur.execute("SELECT @@gtid_executed")
        assert cur.fetchone()[0] == f"{uuid}:1"
        # the UUID survives a restart; GTIDs go on from the files
        srv.stop()
        srv.start(port=srv.port)
        cur = srv.connect().cursor()
        cur.execute("SELECT @@server_uuid, @@gtid_executed")
        assert cur.fetchone() == (uuid, f"{uuid}:1")
        cur.execute("INSERT INTO bl.t (id) VALUES (9)")
        cur.execute("SELECT @@gtid_executed")
        assert cur.fetchone()[0] == f"{uuid}:1-2"
        cur.execute("SHOW BINARY LOGS")
        assert [r[0] for r in cur.fetchall()] == ["binlog.000001", "binlog.000002"]
        # a user without privileges may not change the log
        cur.execute("CREATE USER nobody@'%' IDENTIFIED BY 'pw'")
        other = srv.connect(user="nobody", password="pw").cursor()
        assert err(other, "PURGE BINARY LOGS TO 'binlog.000002'") == 1227
        assert err(other, "FLUSH BINARY LOGS") == 1227
    finally:
        srv.stop()


def test_skip_log_bin():
    srv = Server(extra=["--skip-log-bin"]).start()
    try:
        cur = srv.connect().cursor()
        cur.execute("SELECT @@log_bin, @@gtid_executed")
        assert cur.fetchone() == (0, "")
        cur.execute("CREATE DATABASE nb")
        cur.execute("CREATE TABLE nb.t (id INT PRIMARY KEY)")
        cur.execute("INSERT INTO nb.t VALUES (1)")
        assert err(cur, "SHOW BINARY LOGS") == 1381
        assert err(cur, "PURGE BINARY LOGS TO 'binlog.000001'") == 1381
        cur.execute("SHOW BINARY LOG STATUS")
        assert cur.fetchall() == ()
        assert not [f for f in os.listdir(srv.datadir) if f.startswith("binlog")]
    finally:
        srv.stop()


def test_sigkill_keeps_binlog_and_data_in_step():
    srv = Server().start()
    c = srv.connect()
    c.cursor().execute("CREATE DATABASE bk")
    c.cursor().execute("CREATE TABLE bk.t (id INT PRIMARY KEY, w INT, pad VARCHAR(200))")
    stop = threading.Event()
    acked = []

    def writer(w):
        conn = srv.connect(db="bk", autocommit=False)
        cur = conn.cursor()
        i = 0
        try:
            while not stop.is_set():
                i += 1
                cur.execute("INSERT INTO t VALUES (%s, %s, %s)", (w * 1_000_000 + i, w, "p" * 200))
                conn.commit()
                acked.append(w * 1_000_000 + i)
        except Exception:
            pass

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    time.sleep(3)
    srv.kill(9)
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acked) > 20
    srv.start(port=srv.port)
    try:
        cur = srv.connect().cursor()
        cur.execute("SELECT id FROM bk.t")
        rows = {r[0] for r in cur.fetchall()}
        assert set(acked) <= rows
        cur.execute("SELECT @@gtid_executed")
        executed = cur.fetchone()[0]
        # 2 DDL transactions + one per row: no committed transaction missing from the log, and
        # none logged that the data lacks
        assert gtid_count(executed) == 2 + len(rows), (executed, len(rows))
        cur.execute("SHOW BINARY LOGS")
        files = [r[0] for r in cur.fetchall()]
        written = 0
        for f in files:
            written += sum(1 for e in events(cur, f) if e[2] == "Write_rows")
        assert written == len(rows)
    finally:
        srv.stop()
