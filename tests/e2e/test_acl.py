"""Accounts and privileges over the wire: CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, logins with
real clients (PyMySQL, mysql-connector, the mariadb CLI), host patterns, GRANT/REVOKE at every
level with MySQL's errors, visibility filtering, the mysql grant tables, persistence across a
restart and --skip-grant-tables."""
import os
import subprocess

import mysql.connector
import pymysql
import pytest

from conftest import Server


def err(fn):
    """Runs fn; returns the MySQL error number it raised (fails if it raised none)."""
    try:
        fn()
    except (pymysql.err.MySQLError, mysql.connector.Error) as e:
        return e.args[0] if isinstance(e, pymysql.err.MySQLError) else e.errno
    raise AssertionError("no error raised")


def q(conn, sql, args=None):
    cur = conn.cursor()
    cur.execute(sql, args)
    try:
        return cur.fetchall()
    except pymysql.err.Error:
        return None


@pytest.fixture()
def srv():
    s = Server().start()
    yield s
    s.stop()


def login(srv, user, password="", **kw):
    return srv.connect(user=user, password=password, **kw)


def test_fresh_root_is_root_at_localhost_without_password(srv):
    c = srv.connect()
    assert q(c, "SELECT CURRENT_USER()")[0][0] == "root@localhost"
    grants = q(c, "SHOW GRANTS")
    assert len(grants) == 1
    line = grants[0][0]
    assert line.startswith("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD")
    assert line.endswith("ON *.* TO `root`@`localhost` WITH GRANT OPTION")
    # the unix socket is localhost too
    s = pymysql.connect(unix_socket=srv.socket, user="root", password="")
    assert q(s, "SELECT CURRENT_USER()")[0][0] == "root@localhost"
    # root is only root@localhost
    rows = q(c, "SELECT User, Host, plugin, authentication_string, account_locked FROM mysql.user")
    assert rows == (("root", "localhost", "caching_sha2_password", "", "N"),)


def test_accounts_passwords_and_lock(srv):
    root = srv.connect()
    q(root, "CREATE USER 'sha'@'%' IDENTIFIED BY 's3cret'")
    q(root, "CREATE USER nat@'%' IDENTIFIED WITH mysql_native_password BY 'n4tive'")
    q(root, "CREATE USER 'nopw'@'%'")
    # hashes only, in MySQL's formats
    rows = dict((r[0], r[1:]) for r in q(root, "SELECT User, plugin, authentication_string FROM mysql.user"))
    assert rows["sha"][0] == "caching_sha2_password" and rows["sha"][1].startswith("$A$005$")
    assert len(rows["sha"][1]) == 70 and "s3cret" not in rows["sha"][1]
    assert rows["nat"][0] == "mysql_native_password"
    assert rows["nat"][1].startswith("*") and len(rows["nat"][1]) == 41
    native_hash = q(root, "SELECT CONCAT('*', UPPER(SHA1(UNHEX(SHA1('n4tive')))))")[0][0]
    assert rows["nat"][1] == native_hash
    # real logins, both plugins, two client libraries (full auth then the fast path)
    for _ in range(2):
        c = login(srv, "sha", "s3cret")
        assert q(c, "SELECT CURRENT_USER()")[0][0] == "sha@%"
        c.close()
    assert q(login(srv, "nat", "n4tive"), "SELECT 1")[0][0] == 1
    assert q(login(srv, "nopw", ""), "SELECT 1")[0][0] == 1
    for user, pw in [("sha", "s3cret"), ("nat", "n4tive")]:
        mc = mysql.connector.connect(host="127.0.0.1", port=srv.port, user=user, password=pw)
        cur = mc.cursor()
        cur.execute("SELECT CURRENT_USER()")
        assert cur.fetchall()[0][0] == f"{user}@%"
        mc.close()
    # wrong password, unknown user: 1045
    assert err(lambda: login(srv, "sha", "wrong")) == 1045
    assert err(lambda: login(srv, "nat", "")) == 1045
    assert err(lambda: login(srv, "nobody", "x")) == 1045
    # (a wrong caching_sha2 password makes the server ask for full authentication, which
    # mysql-connector refuses to do without TLS or RSA (client error 2061), as with MySQL)
    assert err(lambda: mysql.connector.connect(host="127.0.0.1", port=srv.port, user="nat", password="nope")) == 1045
    # errors of the statements
    assert err(lambda: q(root, "CREATE USER sha")) == 1396
    q(root, "CREATE USER IF NOT EXISTS sha")
    w = q(root, "SHOW WARNINGS")
    assert w[0][1] == 3163 and "already exists" in w[0][2]
    assert err(lambda: q(root, "DROP USER ghost")) == 1396
    q(root, "DROP USER IF EXISTS ghost")
    assert q(root, "SHOW WARNINGS")[0][1] == 3162
    assert err(lambda: q(root, "ALTER USER ghost IDENTIFIED BY 'x'")) == 1396
    assert err(lambda: q(root, "CREATE USER p IDENTIFIED WITH no_such_plugin BY 'x'")) == 1524
    assert err(lambda: q(root, "SET PASSWORD FOR ghost = 'x'")) == 1133
    # not built: certificate-subject requirements and roles are refused, not silently accepted
    assert err(lambda: q(root, "CREATE USER tls REQUIRE SUBJECT '/CN=x'")) == 1235
    assert err(lambda: q(root, "GRANT some_role TO sha")) == 1235
    # ACCOUNT LOCK: 3118 with the right password; UNLOCK restores it
    q(root, "ALTER USER sha ACCOUNT LOCK")
    assert q(root, "SELECT account_locked FROM mysql.user WHERE User = 'sha'")[0][0] == "Y"
    assert err(lambda: login(srv, "sha", "s3cret")) == 3118
    q(root, "ALTER USER sha ACCOUNT UNLOCK")
    login(srv, "sha", "s3cret").close()
    q(root, "CREATE USER lk IDENTIFIED BY 'x' ACCOUNT LOCK")
    assert err(lambda: login(srv, "lk", "x")) == 3118
    # password changes: ALTER USER, SET PASSWORD FOR, SET PASSWORD for oneself
    q(root, "ALTER USER sha IDENTIFIED BY 'new1'")
    assert err(lambda: login(srv, "sha", "s3cret")) == 1045
    c = login(srv, "sha", "new1")
    q(c, "SET PASSWORD = 'mine'")
    c.close()
    assert err(lambda: login(srv, "sha", "new1")) == 1045
    login(srv, "sha", "mine").close()
    q(root, "SET PASSWORD FOR 'nat'@'%' = 'n2'")
    login(srv, "nat", "n2").close()
    # a user may not change someone else's password
    c = login(srv, "nopw")
    assert err(lambda: q(c, "SET PASSWORD FOR nat = 'x'")) == 1227
    assert err(lambda: q(c, "ALTER USER nat IDENTIFIED BY 'x'")) == 1227
    c.close()
    # RENAME USER and DROP USER
    q(root, "RENAME USER nat TO 'nat2'@'%'")
    assert err(lambda: login(srv, "nat", "n2")) == 1045
    login(srv, "nat2", "n2").close()
    assert err(lambda: q(root, "RENAME USER nat TO x")) == 1396
    q(root, "DROP USER nat2, nopw")
    assert err(lambda: login(srv, "nat2", "n2")) == 1045
    assert {r[0] for r in q(root, "SELECT User FROM mysql.user")} == {"root", "sha", "lk"}


def test_mariadb_cli_login(srv):
    root = srv.connect()
    q(root, "CREATE USER cli@'%' IDENTIFIED WITH mysql_native_password BY 'pw1'")
    q(root, "CREATE USER cli2@'%' IDENTIFIED BY 'pw2'")
    base = ["mariadb", "-h127.0.0.1", f"-P{srv.port}", "--skip-ssl", "-N", "-B"]
    for user, pw in [("cli", "pw1"), ("cli2", "pw2")]:
        p = subprocess.run(base + [f"-u{user}", f"-p{pw}", "-e", "SELECT CURRENT_USER()"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == f"{user}@%"
    p = subprocess.run(base + ["-ucli", "-pbad", "-e", "SELECT 1"], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "ERROR 1045 (28000)" in p.stderr
    p = subprocess.run(base + ["-ucli", "-ppw1", "-e", "SELECT * FROM mysql.user"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "ERROR 1142 (42000)" in p.stderr


def test_host_patterns_most_specific_first(srv):
    root = srv.connect()
    q(root, "CREATE USER 'hp'@'%' IDENTIFIED BY 'any'")
    q(root, "CREATE USER 'hp'@'127.0.0.%' IDENTIFIED BY 'lan'")
    q(root, "CREATE USER 'hp'@'127.0.0.1' IDENTIFIED BY 'exact'")
    q(root, "CREATE USER 'far'@'10.%' IDENTIFIED BY 'x'")
    q(root, "CREATE USER 'one'@'127.0.0._'")
    q(root, "CREATE USER 'loc'@'localhost'")
    q(root, "CREATE USER 'mask'@'127.0.0.0/255.0.0.0'")
    # the literal host wins over the patterns, whatever the creation order
    c = login(srv, "hp", "exact")
    assert q(c, "SELECT CURRENT_USER(), USER()")[0] == ("hp@127.0.0.1", "hp@127.0.0.1")
    assert err(lambda: login(srv, "hp", "lan")) == 1045
    assert err(lambda: login(srv, "hp", "any")) == 1045
    q(root, "DROP USER 'hp'@'127.0.0.1'")
    assert q(login(srv, "hp", "lan"), "SELECT CURRENT_USER()")[0][0] == "hp@127.0.0.%"
    assert err(lambda: login(srv, "hp", "any")) == 1045
    # a pattern that does not admit the client
    assert err(lambda: login(srv, "far", "x")) == 1045
    assert q(login(srv, "one"), "SELECT CURRENT_USER()")[0][0] == "one@127.0.0._"
    assert q(login(srv, "mask"), "SELECT CURRENT_USER()")[0][0] == "mask@127.0.0.0/255.0.0.0"
    # localhost: loopback TCP and the unix socket
    assert q(login(srv, "loc"), "SELECT CURRENT_USER()")[0][0] == "loc@localhost"
    s = pymysql.connect(unix_socket=srv.socket, user="loc", password="")
    assert q(s, "SELECT CURRENT_USER()")[0][0] == "loc@localhost"
    assert err(lambda: pymysql.connect(unix_socket=srv.socket, user="far", password="x")) == 1045


def test_grant_revoke_and_errors(srv):
    root = srv.connect()
    q(root, "CREATE DATABASE d1")
    q(root, "CREATE TABLE d1.t (a INT PRIMARY KEY, b INT, c INT)")
    q(root, "INSERT INTO d1.t VALUES (1, 10, 100), (2, 20, 200)")
    q(root, "CREATE TABLE d1.other (x INT)")
    q(root, "CREATE USER u IDENTIFIED BY 'pu'")
    q(root, "CREATE USER v IDENTIFIED BY 'pv'")
    u = login(srv, "u", "pu")
    # nothing granted
    assert q(u, "SHOW GRANTS") == (("GRANT USAGE ON *.* TO `u`@`%`",),)
    assert err(lambda: q(u, "SELECT * FROM d1.t")) == 1142
    assert err(lambda: q(u, "USE d1")) == 1044
    assert err(lambda: login(srv, "u", "pu", database="d1")) == 1044
    assert err(lambda: q(u, "CREATE DATABASE d2")) == 1044
    assert err(lambda: q(u, "DROP DATABASE d1")) == 1044
    assert err(lambda: q(u, "SET GLOBAL max_connections = 10")) == 1227
    assert err(lambda: q(u, "CREATE USER w")) == 1227
    assert err(lambda: q(u, "DROP USER v")) == 1227
    assert err(lambda: q(u, "FLUSH PRIVILEGES")) == 1227
    assert err(lambda: q(u, "GRANT SELECT ON *.* TO v")) == 1045
    assert err(lambda: q(u, "GRANT SELECT ON d1.* TO v")) == 1044
    assert err(lambda: q(u, "GRANT SELECT ON d1.t TO v")) == 1142
    assert err(lambda: q(u, "SHOW GRANTS FOR root@localhost")) == 1044
    root_id = q(root, "SELECT CONNECTION_ID()")[0][0]
    assert err(lambda: q(u, f"KILL {root_id}")) == 1095
    assert err(lambda: q(u, f"KILL QUERY {root_id}")) == 1095
    # the message shapes
    try:
        q(u, "SELECT a FROM d1.t")
    except pymysql.err.MySQLError as e:
        assert e.args[1] == "SELECT command denied to user 'u'@'127.0.0.1' for table 't'"
    # grant errors
    assert err(lambda: q(root, "GRANT SELECT ON d1.t TO nobody")) == 1410
    assert err(lambda: q(root, "GRANT SUPER ON d1.* TO u")) == 1221
    assert err(lambda: q(root, "GRANT PROCESS ON d1.t TO u")) == 1144
    assert err(lambda: q(root, "GRANT SELECT ON d1.nosuch TO u")) == 1146
    assert err(lambda: q(root, "GRANT SELECT (zz) ON d1.t TO u")) == 1054
    assert err(lambda: q(root, "REVOKE SELECT ON d1.* FROM u")) == 1141
    assert err(lambda: q(root, "REVOKE SELECT ON d1.t FROM u")) == 1147
    # column level
    q(root, "GRANT SELECT (a, b), UPDATE (b) ON d1.t TO u")
    assert q(u, "SELECT a, b FROM d1.t ORDER BY a") == ((1, 10), (2, 20))
    assert q(u, "SELECT COUNT(*) FROM d1.t")[0][0] == 2
    assert err(lambda: q(u, "SELECT c FROM d1.t")) == 1143
    assert err(lambda: q(u, "SELECT * FROM d1.t")) == 1143
    assert err(lambda: q(u, "SELECT a FROM d1.t WHERE c = 1")) == 1143
    q(u, "UPDATE d1.t SET b = b + 1 WHERE a = 1")
    assert q(root, "SELECT b FROM d1.t WHERE a = 1")[0][0] == 11
    assert err(lambda: q(u, "UPDATE d1.t SET c = 0")) == 1143
    assert err(lambda: q(u, "INSERT INTO d1.t (a) VALUES (3)")) == 1142
    assert err(lambda: q(u, "DELETE FROM d1.t")) == 1142
    assert err(lambda: q(u, "SELECT * FROM d1.other")) == 1142
    try:
        q(u, "SELECT c FROM d1.t")
    except pymysql.err.MySQLError as e:
        assert e.args[1] == "SELECT command denied to user 'u'@'127.0.0.1' for column 'c' in table 't'"
    q(u, "USE d1")  # a column grant makes the database usable
    # table level, then database level
    q(root, "GRANT INSERT, DELETE ON d1.t TO u")
    q(u, "INSERT INTO d1.t VALUES (3, 30, 300)")
    q(u, "DELETE FROM d1.t WHERE a = 3")
    q(root, "GRANT SELECT ON d1.* TO u WITH GRANT OPTION")
    assert len(q(u, "SELECT * FROM d1.t")) == 2
    assert q(u, "SELECT * FROM d1.other") == ()
    assert err(lambda: q(u, "CREATE TABLE d1.nt (x INT)")) == 1142
    assert err(lambda: q(u, "DROP TABLE d1.other")) == 1142
    assert err(lambda: q(u, "ALTER TABLE d1.other ADD COLUMN y INT")) == 1142
    # GRANT OPTION at the database level lets u pass SELECT on
    q(u, "GRANT SELECT ON d1.* TO v")
    v = login(srv, "v", "pv")
    assert len(q(v, "SELECT * FROM d1.t")) == 2
    assert err(lambda: q(v, "GRANT SELECT ON d1.* TO u")) == 1044
    # SHOW GRANTS in MySQL 8's shape
    assert [r[0] for r in q(root, "SHOW GRANTS FOR u")] == [
        "GRANT USAGE ON *.* TO `u`@`%`",
        "GRANT SELECT ON `d1`.* TO `u`@`%` WITH GRANT OPTION",
        "GRANT SELECT (`a`, `b`), INSERT, UPDATE (`b`), DELETE ON `d1`.`t` TO `u`@`%`",
    ]
    cur = root.cursor()
    cur.execute("SHOW GRANTS FOR u")
    assert cur.description[0][0] == "Grants for u@%"
    assert [r[0] for r in q(u, "SHOW GRANTS FOR CURRENT_USER")] == [r[0] for r in q(u, "SHOW GRANTS")]
    # the mysql grant tables
    assert q(root, "SELECT Db, User, Select_priv, Grant_priv, Insert_priv FROM mysql.db ORDER BY User") == (
        ("d1", "u", "Y", "Y", "N"), ("d1", "v", "Y", "N", "N"))
    assert q(root, "SELECT Table_name, Table_priv, Column_priv FROM mysql.tables_priv") == (
        ("t", "Insert,Delete", "Select,Update"),)
    assert q(root, "SELECT Column_name, Column_priv FROM mysql.columns_priv ORDER BY Column_name") == (
        ("a", "Select"), ("b", "Select,Update"))
    # REVOKE
    q(root, "REVOKE SELECT ON d1.* FROM u")
    q(root, "REVOKE INSERT ON d1.t FROM u")
    assert err(lambda: q(u, "INSERT INTO d1.t (a) VALUES (4)")) == 1142
    assert err(lambda: q(u, "SELECT * FROM d1.other")) == 1142
    q(root, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u")
    assert q(u, "SHOW GRANTS") == (("GRANT USAGE ON *.* TO `u`@`%`",),)
    assert err(lambda: q(u, "SELECT a FROM d1.t")) == 1142
    # global level: ALL on *.* makes u an administrator
    q(root, "GRANT ALL ON *.* TO u")
    q(u, "CREATE DATABASE d2")
    q(u, "CREATE USER w")
    q(u, "SET GLOBAL max_connections = 151")
    assert err(lambda: q(u, "GRANT SELECT ON *.* TO w")) == 1045  # no GRANT OPTION
    q(u, f"KILL QUERY {root_id}")


def test_prepared_statements_are_checked(srv):
    root = srv.connect()
    q(root, "CREATE DATABASE pd")
    q(root, "CREATE TABLE pd.t (a INT)")
    q(root, "CREATE USER ps")
    c = login(srv, "ps")
    cur = c.cursor()
    assert err(lambda: cur.execute("PREPARE s FROM 'SELECT * FROM pd.t'") or cur.execute("EXECUTE s")) == 1142
    mc = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="ps", password="")
    pc = mc.cursor(prepared=True)
    # (mysql-connector 9 reports errors of prepared statements as InterfaceError -1 with the text)
    with pytest.raises(mysql.connector.Error, match="SELECT command denied to user 'ps'"):
        pc.execute("SELECT * FROM pd.t WHERE a = ?", (1,))
    # a statement prepared while allowed is checked again at each execution
    q(root, "GRANT SELECT ON pd.t TO ps")
    pc = mc.cursor(prepared=True)
    pc.execute("SELECT * FROM pd.t WHERE a = ?", (1,))
    assert pc.fetchall() == []
    q(root, "REVOKE SELECT ON pd.t FROM ps")
    with pytest.raises(mysql.connector.Error, match="SELECT command denied to user 'ps'"):
        pc.execute("SELECT * FROM pd.t WHERE a = ?", (2,))


def test_visibility_filtering(srv):
    root = srv.connect()
    for d in ("vis1", "vis2"):
        q(root, f"CREATE DATABASE {d}")
        q(root, f"CREATE TABLE {d}.t1 (a INT)")
        q(root, f"CREATE TABLE {d}.t2 (b INT)")
    q(root, "CREATE USER vu")
    q(root, "GRANT SELECT ON vis1.t1 TO vu")
    c = login(srv, "vu")
    dbs = [r[0] for r in q(c, "SHOW DATABASES")]
    assert dbs == ["information_schema", "performance_schema", "vis1"]
    assert [r[0] for r in q(c, "SHOW TABLES FROM vis1")] == ["t1"]
    assert err(lambda: q(c, "SHOW TABLES FROM vis2")) == 1044
    assert [r[0] for r in q(c, "SHOW TABLE STATUS FROM vis1")] == ["t1"]
    assert err(lambda: q(c, "SHOW COLUMNS FROM vis1.t2")) == 1142
    assert err(lambda: q(c, "SHOW CREATE TABLE vis1.t2")) == 1142
    q(c, "SHOW CREATE TABLE vis1.t1")
    rows = q(c, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE'")
    assert rows == (("vis1", "t1"),)
    cols = q(c, "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA LIKE 'vis%'")
    assert cols == (("t1", "a"),)
    assert [r[0] for r in q(c, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")] == [
        "information_schema", "performance_schema", "vis1"]
    assert err(lambda: q(c, "SELECT * FROM mysql.user")) == 1142
    # SHOW PROCESSLIST: own threads only without PROCESS
    users = {r[1] for r in q(c, "SHOW PROCESSLIST")}
    assert users == {"vu"}
    assert {r[0] for r in q(c, "SELECT USER FROM information_schema.PROCESSLIST")} == {"vu"}
    q(root, "GRANT PROCESS ON *.* TO vu")
    users = {r[1] for r in q(c, "SHOW PROCESSLIST")}
    assert users == {"vu", "root"}
    # SHOW DATABASES privilege shows every database
    q(root, "GRANT SHOW DATABASES ON *.* TO vu")
    assert "vis2" in [r[0] for r in q(c, "SHOW DATABASES")]
    # root sees everything
    assert {"mysql", "vis1", "vis2"} <= {r[0] for r in q(root, "SHOW DATABASES")}
    assert [r[0] for r in q(root, "SHOW TABLES FROM mysql")] == [
        "columns_priv", "db", "func", "innodb_index_stats", "innodb_table_stats", "tables_priv", "user"]


def test_accounts_survive_restart(srv):
    root = srv.connect()
    q(root, "CREATE DATABASE keep")
    q(root, "CREATE TABLE keep.t (a INT, b INT)")
    q(root, "CREATE USER 'dur'@'127.0.0.%' IDENTIFIED BY 'pw'")
    q(root, "GRANT SELECT (a) ON keep.t TO 'dur'@'127.0.0.%'")
    q(root, "GRANT INSERT ON keep.* TO 'dur'@'127.0.0.%'")
    q(root, "ALTER USER root@localhost IDENTIFIED BY 'rootpw'")
    grants = q(root, "SHOW GRANTS FOR 'dur'@'127.0.0.%'")
    root.close()
    # a SIGKILL: committed account changes must survive a crash
    srv.kill()
    srv.start(port=srv.port)
    assert err(lambda: srv.connect()) == 1045
    root = srv.connect(password="rootpw")
    assert q(root, "SHOW GRANTS FOR 'dur'@'127.0.0.%'") == grants
    c = login(srv, "dur", "pw")
    q(c, "INSERT INTO keep.t VALUES (1, 2)")
    assert q(c, "SELECT a FROM keep.t") == ((1,),)
    assert err(lambda: q(c, "SELECT b FROM keep.t")) == 1143
    # the server log warned about the empty root password once, at initialisation
    log = open(srv.log).read()
    assert log.count("EMPTY password") == 1


def test_skip_grant_tables_resets_a_lost_root_password():
    s = Server().start()
    try:
        root = s.connect()
        q(root, "ALTER USER root@localhost IDENTIFIED BY 'forgotten'")
        q(root, "CREATE USER weak")
        root.close()
        s.stop()
        s.extra = ["--skip-grant-tables"]
        s.start(port=s.port)
        c = s.connect(user="whoever", password="anything")
        q(c, "CREATE DATABASE sg")
        assert "sg" in [r[0] for r in q(c, "SHOW DATABASES")]
        sc = pymysql.connect(unix_socket=s.socket, user="x", password="y")
        assert q(sc, "SELECT 1")[0][0] == 1
        mc = mysql.connector.connect(host="127.0.0.1", port=s.port, user="weak", password="b")
        mc.close()
        log = open(s.log).read()
        assert "--skip-grant-tables" in log and "ANY local client" in log
        q(c, "ALTER USER root@localhost IDENTIFIED BY 'fresh'")
        c.close()
        sc.close()
        s.stop()
        s.extra = []
        s.start(port=s.port)
        assert err(lambda: s.connect(password="forgotten")) == 1045
        assert err(lambda: s.connect(user="whoever", password="anything")) == 1045
        assert q(s.connect(password="fresh"), "SELECT CURRENT_USER()")[0][0] == "root@localhost"
    finally:
        s.stop()
