"""Protocol commands against the real server: COM_INIT_DB, COM_PING, COM_STATISTICS,
COM_CHANGE_USER, COM_RESET_CONNECTION, COM_PROCESS_KILL / KILL (mysql-connector, pure Python)."""
import mysql.connector
import pytest


def connect(server, db=None):
    return mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                   database=db, use_pure=True, autocommit=True, ssl_disabled=True)


def one(c, sql):
    cur = c.cursor()
    cur.execute(sql)
    return cur.fetchall()


def test_init_db_ping_statistics(server, db):
    _, name = db
    c = connect(server)
    c.cmd_init_db(name)
    assert one(c, "SELECT DATABASE()") == [(name,)]
    with pytest.raises(mysql.connector.Error) as e:
        c.cmd_init_db("no_such_db_xyz")
    assert e.value.errno == 1049
    c.ping()
    stats = c.cmd_statistics()
    assert "Uptime" in stats and "Threads" in stats
    c.close()


def test_change_user_and_reset_connection(server, db):
    _, name = db
    c = connect(server)
    one(c, "SET @v = 1")
    c.cmd_change_user(username="root", password="", database=name)
    assert one(c, "SELECT DATABASE(), @v") == [(name, None)]
    one(c, "SET @v = 2")
    one(c, "SET autocommit = 0")
    c.cmd_reset_connection()
    assert one(c, "SELECT @v, @@autocommit") == [(None, 1)]
    c.close()


def test_kill_connection_and_query(server):
    a = connect(server)
    b = connect(server)
    (aid,), = one(a, "SELECT CONNECTION_ID()")
    procs = one(b, "SHOW PROCESSLIST")
    assert any(p[0] == aid for p in procs)
    one(b, f"KILL {aid}")
    with pytest.raises(mysql.connector.Error):
        one(a, "SELECT 1")
    with pytest.raises(mysql.connector.Error) as e:
        one(b, "KILL 999999")
    assert e.value.errno == 1094
    b.close()


def test_kill_query_interrupts_sleep(server):
    import threading
    import time
    a = connect(server)
    b = connect(server)
    (aid,), = one(a, "SELECT CONNECTION_ID()")
    out = {}

    def sleeper():
        out["rows"] = one(a, "SELECT SLEEP(30)")

    t = threading.Thread(target=sleeper)
    t.start()
    time.sleep(0.5)
    one(b, f"KILL QUERY {aid}")
    t.join(20)
    assert not t.is_alive(), "KILL QUERY did not interrupt SLEEP"
    # SLEEP returns 1 when interrupted (0 when it ran to the end)
    assert out["rows"] == [(1,)]
    # the connection survives KILL QUERY
    assert one(a, "SELECT 2") == [(2,)]
    a.close()
    b.close()
