"""Strata as a replication source (issue 37): COM_REGISTER_SLAVE, COM_BINLOG_DUMP and
COM_BINLOG_DUMP_GTID, read by python-mysql-replication (row events of several column types and
DDL with their GTIDs, from a file position and from a GTID set, a blocking stream woken by a
commit, heartbeats) and by `mariadb-binlog --read-from-remote-server`; SHOW REPLICAS; the
REPLICATION SLAVE privilege; MySQL's 1236 errors; a dump does not hold a thread-pool worker."""
import datetime
import decimal
import os
import struct
import subprocess
import threading
import time

import pymysql
import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, HeartbeatLogEvent, QueryEvent, RotateEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

from conftest import Server

COM_BINLOG_DUMP = 0x12
COM_REGISTER_SLAVE = 0x15
COM_BINLOG_DUMP_GTID = 0x1E

ROW_EVENTS = [WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent]


@pytest.fixture(scope="module")
def srv():
    # a pool of 2 groups: a dump must not take either group's only worker for good
    s = Server(extra=["--thread-pool-size", "2"]).start()
    cur = s.connect().cursor()
    cur.execute("SET GLOBAL binlog_row_metadata = FULL")
    cur.execute("CREATE USER repl@'%' IDENTIFIED BY 'pw'")
    cur.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO repl@'%'")
    cur.execute("CREATE USER nopriv@'%' IDENTIFIED BY 'pw'")
    yield s
    s.stop()


def settings(srv, user="repl", **kw):
    d = dict(host="127.0.0.1", port=srv.port, user=user, passwd="pw", read_timeout=20)
    d.update(kw)
    return d


def status(cur):
    cur.execute("SHOW BINARY LOG STATUS")
    file, pos, _, _, gtids = cur.fetchone()
    return file, pos, gtids


def uuid_of(cur):
    cur.execute("SELECT @@server_uuid")
    return cur.fetchone()[0]


def read_all(stream, limit=1000):
    out = []
    for ev in stream:
        out.append(ev)
        if len(out) >= limit:
            break
    stream.close()
    return out


def test_rows_of_several_types_and_ddl_from_a_position(srv):
    cur = srv.connect().cursor()
    uuid = uuid_of(cur)
    file, pos, before = status(cur)
    cur.execute("CREATE DATABASE s1")
    cur.execute("CREATE TABLE s1.t (id INT PRIMARY KEY, name VARCHAR(20), amt DECIMAL(10,2), "
                "d DATETIME(3), j JSON, b BLOB, e ENUM('red','green','blue'))")
    cur.execute("INSERT INTO s1.t VALUES (1, 'ann', 12.50, '2024-01-02 03:04:05.678', "
                "'{\"k\": [1, 2, \"x\"]}', X'00FF10', 'green'), "
                "(2, 'bob', -3.25, NULL, NULL, NULL, 'blue')")
    cur.execute("UPDATE s1.t SET name = 'ANN', amt = amt + 1, e = 'red' WHERE id = 1")
    cur.execute("DELETE FROM s1.t WHERE id = 2")
    _, _, after = status(cur)
    first = int(after.split(":")[-1].split("-")[-1]) - 4
    stream = BinLogStreamReader(
        connection_settings=settings(srv), server_id=101, log_file=file, log_pos=pos,
        resume_stream=True, blocking=False,
        only_events=[GtidEvent, QueryEvent] + ROW_EVENTS)
    evs = read_all(stream)
    gtids = [e.gtid for e in evs if isinstance(e, GtidEvent)]
    assert gtids == [f"{uuid}:{n}" for n in range(first, first + 5)]
    queries = [e.query for e in evs if isinstance(e, QueryEvent) and e.query != "BEGIN"]
    assert queries[0] == "CREATE DATABASE s1"
    assert queries[1].startswith("CREATE TABLE s1.t (id INT PRIMARY KEY")
    assert [e.schema for e in evs if isinstance(e, QueryEvent)][:2] == [b"", b""]
    rows = [e for e in evs if type(e) in ROW_EVENTS]
    assert [type(e) for e in rows] == ROW_EVENTS
    assert all((e.schema, e.table) == ("s1", "t") for e in rows)
    ins = [r["values"] for r in rows[0].rows]
    assert ins[0] == {"id": 1, "name": "ann", "amt": decimal.Decimal("12.50"),
                      "d": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
                      "j": {b"k": [1, 2, b"x"]}, "b": b"\x00\xff\x10", "e": "green"}
    assert ins[1] == {"id": 2, "name": "bob", "amt": decimal.Decimal("-3.25"), "d": None,
                      "j": None, "b": None, "e": "blue"}
    upd = rows[1].rows[0]
    assert upd["before_values"]["name"] == "ann" and upd["before_values"]["e"] == "green"
    assert upd["after_values"]["name"] == "ANN"
    assert upd["after_values"]["amt"] == decimal.Decimal("13.50")
    assert upd["after_values"]["e"] == "red"
    assert rows[2].rows[0]["values"]["id"] == 2


def test_gtid_dump_skips_the_replicas_transactions(srv):
    cur = srv.connect().cursor()
    uuid = uuid_of(cur)
    cur.execute("CREATE DATABASE s2")
    cur.execute("CREATE TABLE s2.t (id INT PRIMARY KEY, v VARCHAR(10))")
    _, _, have = status(cur)
    cur.execute("INSERT INTO s2.t VALUES (1, 'new')")
    cur.execute("DROP TABLE s2.t")
    _, _, now = status(cur)
    last = int(now.split(":")[-1].split("-")[-1])
    stream = BinLogStreamReader(
        connection_settings=settings(srv), server_id=102, auto_position=have, blocking=False,
        only_events=[GtidEvent, QueryEvent, WriteRowsEvent, HeartbeatLogEvent])
    evs = read_all(stream)
    gtids = [e.gtid for e in evs if isinstance(e, GtidEvent)]
    # everything before `have` is skipped, in every file
    assert gtids == [f"{uuid}:{last - 1}", f"{uuid}:{last}"]
    writes = [e for e in evs if isinstance(e, WriteRowsEvent)]
    assert [r["values"] for r in writes[0].rows] == [{"id": 1, "v": "new"}]
    assert [e.query for e in evs if isinstance(e, QueryEvent)][-1].startswith("DROP TABLE")
    # the skipped transactions were reported with a heartbeat before the first one sent
    assert isinstance(evs[0], HeartbeatLogEvent)


def test_blocking_stream_gets_a_later_commit_and_heartbeats(srv):
    cur = srv.connect().cursor()
    cur.execute("CREATE DATABASE s3")
    cur.execute("CREATE TABLE s3.t (id INT PRIMARY KEY)")
    file, pos, _ = status(cur)
    stream = BinLogStreamReader(
        connection_settings=settings(srv), server_id=103, log_file=file, log_pos=pos,
        resume_stream=True, blocking=True, slave_heartbeat=0.3,
        only_events=[WriteRowsEvent, HeartbeatLogEvent, RotateEvent])
    try:
        seen = []
        t0 = time.time()
        while not any(isinstance(e, HeartbeatLogEvent) for e in seen):
            seen.append(stream.fetchone())
        # nothing was written: a heartbeat after about the period, naming the file
        assert 0.2 < time.time() - t0 < 5
        hb = [e for e in seen if isinstance(e, HeartbeatLogEvent)][0]
        assert hb.ident == file
        committed = []

        def writer():
            time.sleep(0.5)
            c = srv.connect()
            c.cursor().execute("INSERT INTO s3.t VALUES (42)")
            committed.append(time.time())
            c.close()

        th = threading.Thread(target=writer)
        th.start()
        ev = stream.fetchone()
        while not isinstance(ev, WriteRowsEvent):
            ev = stream.fetchone()
        got = time.time()
        th.join()
        assert ev.rows[0]["values"] == {"id": 42}
        # woken by the commit, not by a poll
        assert got - committed[0] < 0.25, got - committed[0]
    finally:
        stream.close()


def test_show_replicas_lists_registered_readers(srv):
    cur = srv.connect().cursor()
    cur.execute("SELECT @@server_id")
    source_id = cur.fetchone()[0]
    stream = BinLogStreamReader(
        connection_settings=settings(srv), server_id=104, blocking=True,
        report_slave=("replhost", "u", "", 3399),
        slave_uuid="0b6ef2c0-8a88-11ee-b9d1-0242ac120002", slave_heartbeat=0.2,
        only_events=[HeartbeatLogEvent])
    try:
        stream.fetchone()
        cur.execute("SHOW REPLICAS")
        assert [d[0] for d in cur.description] == [
            "Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"]
        assert cur.fetchall() == (
            (104, "replhost", 3399, source_id, "0b6ef2c0-8a88-11ee-b9d1-0242ac120002"),)
        cur.execute("SHOW SLAVE HOSTS")
        assert [d[0] for d in cur.description] == [
            "Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
        assert len(cur.fetchall()) == 1
        cur.execute("SHOW PROCESSLIST")
        assert "Binlog Dump" in [r[4] for r in cur.fetchall()]
    finally:
        stream.close()
    # the entry goes with the replica's connection
    deadline = time.time() + 5
    while True:
        cur.execute("SHOW REPLICAS")
        if cur.fetchall() == ():
            break
        assert time.time() < deadline
        time.sleep(0.1)


def raw(srv, user, cmd, payload, setup=("SET @source_binlog_checksum = 'CRC32'",)):
    """Sends one replication command on a fresh connection; returns the error number of its
    answer, or 0 for a non-error packet."""
    c = srv.connect(user=user, password="pw")
    try:
        for s in setup:
            c.cursor().execute(s)
        c._execute_command(cmd, payload)
        try:
            c._read_packet()
            return 0
        except pymysql.MySQLError as e:
            return e.args[0], e.args[1]
    finally:
        try:
            c.close()
        except Exception:
            pass


def dump_packet(file, pos, server_id=900, flags=1):
    return struct.pack("<IHI", pos, flags, server_id) + file.encode()


def gtid_packet(gtid_set_bytes, server_id=901, flags=0x4 | 1):
    return (struct.pack("<HII", flags, server_id, 0) + struct.pack("<Q", 4)
            + struct.pack("<I", len(gtid_set_bytes)) + gtid_set_bytes)


def encode_gtids(uuid, lo, hi):
    return (struct.pack("<Q", 1) + bytes.fromhex(uuid.replace("-", ""))
            + struct.pack("<Q", 1) + struct.pack("<QQ", lo, hi + 1))


def test_privilege_and_1236_errors(srv):
    cur = srv.connect().cursor()
    uuid = uuid_of(cur)
    file, pos, now = status(cur)
    register = struct.pack("<I", 77) + b"\x01h\x00\x00" + struct.pack("<HII", 1, 0, 0)
    need = "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation"
    assert raw(srv, "nopriv", COM_REGISTER_SLAVE, register) == (1227, need)
    assert raw(srv, "nopriv", COM_BINLOG_DUMP, dump_packet(file, 4)) == (1227, need)
    c = srv.connect(user="nopriv", password="pw")
    with pytest.raises(pymysql.MySQLError) as e:
        c.cursor().execute("SHOW REPLICAS")
    assert e.value.args[0] == 1227
    assert raw(srv, "repl", COM_REGISTER_SLAVE, register) == 0
    assert raw(srv, "repl", COM_REGISTER_SLAVE, b"\x01") == (
        1105, "Wrong parameters to function register_slave")
    assert raw(srv, "repl", COM_BINLOG_DUMP, dump_packet("binlog.999999", 4)) == (
        1236, "Could not find first log file name in binary log index file")
    assert raw(srv, "repl", COM_BINLOG_DUMP, dump_packet(file, pos + 1000)) == (
        1236, "Client requested source to start replication from position > file size")
    assert raw(srv, "repl", COM_BINLOG_DUMP, dump_packet(file, 4), setup=()) == (
        1236, "Replica can not handle replication events with the checksum that source is "
              "configured to log")
    last = int(now.split(":")[-1].split("-")[-1])
    code, msg = raw(srv, "repl", COM_BINLOG_DUMP_GTID, gtid_packet(encode_gtids(uuid, 1, last + 5)))
    assert code == 1236 and msg.startswith("Replica has more GTIDs than the source has")
    assert raw(srv, "repl", COM_BINLOG_DUMP_GTID, gtid_packet(b"\x05"))[0] == 1772
    # a non-blocking dump from the current end: the file's header events, then EOF
    assert raw(srv, "repl", COM_BINLOG_DUMP, dump_packet(file, pos)) == 0


def test_purged_gtids_are_refused():
    s = Server().start()
    try:
        cur = s.connect().cursor()
        uuid = uuid_of(cur)
        cur.execute("CREATE USER repl@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT REPLICATION SLAVE ON *.* TO repl@'%'")
        cur.execute("CREATE DATABASE p1")
        cur.execute("FLUSH BINARY LOGS")
        file, _, _ = status(cur)
        cur.execute(f"PURGE BINARY LOGS TO '{file}'")
        cur.execute("CREATE DATABASE p2")
        code, msg = raw(s, "repl", COM_BINLOG_DUMP_GTID, gtid_packet(b""))
        assert code == 1236
        assert msg.startswith("Cannot replicate because the source purged required binary logs.")
        assert msg.endswith(f"The GTID set sent by the replica is '', and the missing "
                            f"transactions are '{uuid}:1'")
        # the replica that has them reads on
        stream = BinLogStreamReader(
            connection_settings=settings(s), server_id=105, auto_position=f"{uuid}:1",
            blocking=False, only_events=[QueryEvent])
        assert [e.query for e in read_all(stream)] == ["CREATE DATABASE p2"]
    finally:
        s.stop()


def test_dumps_do_not_hold_pool_workers(srv):
    """Four blocking dumps on a pool of two groups: statements still run at once."""
    cur = srv.connect().cursor()
    file, pos, _ = status(cur)
    streams = []
    try:
        for i in range(4):
            st = BinLogStreamReader(
                connection_settings=settings(srv), server_id=200 + i, log_file=file,
                log_pos=pos, resume_stream=True, blocking=True, slave_heartbeat=0.2,
                only_events=[HeartbeatLogEvent])
            st.fetchone()
            streams.append(st)
        t0 = time.time()
        for _ in range(20):
            c = srv.connect()
            c.cursor().execute("SELECT 1")
            c.close()
        assert time.time() - t0 < 5
        c = srv.connect()
        cur = c.cursor()
        cur.execute("SHOW PROCESSLIST")
        dumps = [r for r in cur.fetchall() if r[4] == "Binlog Dump"]
        assert len(dumps) == 4
    finally:
        for st in streams:
            st.close()


def raw_events(srv, file, pos=4):
    """The events of a non-blocking COM_BINLOG_DUMP from `file`:`pos`, as bytes."""
    c = srv.connect(user="repl", password="pw")
    c.cursor().execute("SET @master_binlog_checksum = @@global.binlog_checksum")
    c._execute_command(COM_BINLOG_DUMP, dump_packet(file, pos, server_id=0, flags=0))
    out = []
    while True:
        pkt = c._read_packet()
        if pkt.is_eof_packet():
            break
        out.append(pkt.get_all_data()[1:])
    c.close()
    return out


def test_mariadb_binlog_decodes_the_stream(srv, tmp_path):
    """mariadb-binlog --read-from-remote-server refuses any server whose version is not
    MariaDB's or MySQL 5.x (`Could not find server version: Master reported unrecognized
    MariaDB version '8.4…'`), MySQL 8.4 as well; Oracle's mysqlbinlog is not packaged here.
    So the stream is saved as a binlog file (what `--raw` would write) and decoded by
    mariadb-binlog from there."""
    cur = srv.connect().cursor()
    # a file of its own: the JSON column of another test is a type mariadb-binlog lacks
    cur.execute("FLUSH BINARY LOGS")
    cur.execute("CREATE DATABASE s7")
    cur.execute("CREATE TABLE s7.t (id INT PRIMARY KEY, v VARCHAR(10))")
    cur.execute("INSERT INTO s7.t VALUES (7, 'seven')")
    cur.execute("UPDATE s7.t SET v = 'SEVEN'")
    file, _, _ = status(cur)
    remote = subprocess.run(
        ["mariadb-binlog", "--read-from-remote-server", "-h127.0.0.1", f"-P{srv.port}",
         "-urepl", "-ppw", "--skip-ssl", file], capture_output=True, text=True, timeout=60)
    assert remote.returncode != 0
    assert "unrecognized MariaDB version '8.4." in remote.stderr
    evs = raw_events(srv, file)
    # server_id 0 (mysqlbinlog's) never blocks; the artificial rotate comes first
    assert evs[0][4] == 4 and struct.unpack("<H", evs[0][17:19])[0] & 0x20
    assert evs[1][4] == 15
    body = b"".join(e for e in evs if not struct.unpack("<H", e[17:19])[0] & 0x20)
    path = tmp_path / file
    path.write_bytes(b"\xfebin" + body)
    out = subprocess.run(["mariadb-binlog", "--verbose", "--base64-output=decode-rows", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "CREATE TABLE s7.t (id INT PRIMARY KEY, v VARCHAR(10))" in text
    assert "### INSERT INTO `s7`.`t`" in text
    assert "###   @1=7" in text and "###   @2='seven'" in text
    assert "### UPDATE `s7`.`t`" in text and "###   @2='SEVEN'" in text


def blocking_dump(srv, server_id):
    """A raw blocking dump from the current position; returns the connection after the
    artificial rotate and the format description arrived."""
    cur = srv.connect().cursor()
    file, pos, _ = status(cur)
    c = srv.connect(user="repl", password="pw", read_timeout=10)
    c.cursor().execute("SET @source_binlog_checksum = 'CRC32'")
    c._execute_command(COM_BINLOG_DUMP, dump_packet(file, pos, server_id=server_id, flags=0))
    assert c._read_packet().get_all_data()[1 + 4] == 4
    assert c._read_packet().get_all_data()[1 + 4] == 15
    return c


def dump_ids(srv):
    cur = srv.connect().cursor()
    cur.execute("SHOW PROCESSLIST")
    return [r[0] for r in cur.fetchall() if r[4] == "Binlog Dump"]


def wait_for(pred, what):
    deadline = time.time() + 5
    while not pred():
        assert time.time() < deadline, what
        time.sleep(0.05)


def test_kill_and_a_reconnecting_replica_end_a_dump(srv):
    a = blocking_dump(srv, 301)
    wait_for(lambda: len(dump_ids(srv)) == 1, "dump listed")
    # the same server_id again: the older dump is ended (its connection closed)
    b = blocking_dump(srv, 301)
    with pytest.raises(pymysql.err.OperationalError):
        a._read_packet()
    wait_for(lambda: len(dump_ids(srv)) == 1, "one dump left")
    # KILL of the dump's connection ends it at once
    srv.connect().cursor().execute(f"KILL {dump_ids(srv)[0]}")
    with pytest.raises(pymysql.err.OperationalError):
        b._read_packet()
    wait_for(lambda: dump_ids(srv) == [], "no dump left")


def test_one_thread_per_connection_runs_dumps_too():
    s = Server(extra=["--thread-handling", "one-thread-per-connection"]).start()
    try:
        cur = s.connect().cursor()
        uuid = uuid_of(cur)
        cur.execute("CREATE USER repl@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT REPLICATION SLAVE ON *.* TO repl@'%'")
        cur.execute("CREATE DATABASE o1")
        stream = BinLogStreamReader(
            connection_settings=settings(s), server_id=106,
            auto_position="00000000-0000-0000-0000-000000000001:1-3", blocking=False,
            only_events=[GtidEvent, QueryEvent])
        evs = read_all(stream)
        assert [e.gtid for e in evs if isinstance(e, GtidEvent)] == [f"{uuid}:1"]
        assert [e.query for e in evs if isinstance(e, QueryEvent)] == ["CREATE DATABASE o1"]
        # the dump's thread ended with it
        wait_for(lambda: dump_ids(s) == [], "no dump left")
    finally:
        s.stop()
