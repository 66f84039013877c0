"""Stored procedures and functions over the wire: PyMySQL (CALL with result sets and OUT
parameters, functions in SELECT / WHERE / INSERT, handlers, cursors, SIGNAL error codes), the
mariadb CLI with DELIMITER, log_bin_trust_function_creators with the binary log on, and
definitions surviving a restart (and a SIGKILL)."""
import pymysql
import pytest

from conftest import Server

ORDERED_UUID = """DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION `ordered_uuid`(uuid BINARY(36))
RETURNS binary(16) DETERMINISTIC
RETURN UNHEX(CONCAT(SUBSTR(uuid, 15, 4),SUBSTR(uuid, 10, 4),SUBSTR(uuid, 1, 8),SUBSTR(uuid, 20, 4),SUBSTR(uuid, 25)));
//
DELIMITER ;
"""


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, sql)
    return e.value.args


def test_article_function_through_the_cli(server, db):
    c, name = db
    server.cli(ORDERED_UUID, db=name)
    rc, out, _ = server.cli(
        "CREATE TABLE t (id BINARY(16) PRIMARY KEY, v INT);\n"
        "INSERT INTO t VALUES (ordered_uuid(uuid()), 1), (ordered_uuid(uuid()), 2);\n"
        "INSERT INTO t VALUES (ordered_uuid('58e0a7d7-eebc-11d8-9669-0800200c9a66'), 3);\n"
        "SELECT HEX(id) FROM t WHERE v = 3;\n"
        "SELECT COUNT(*) FROM t;\n",
        db=name, extra=["-N"])
    assert out.split() == ["11D8EEBC58E0A7D796690800200C9A66", "3"]
    # the definition as written, in SHOW CREATE FUNCTION
    rows = q(c, "SHOW CREATE FUNCTION ordered_uuid")
    assert rows[0][0] == "ordered_uuid"
    assert rows[0][2] == (
        "CREATE DEFINER=`root`@`localhost` FUNCTION `ordered_uuid`(uuid BINARY(36)) RETURNS binary(16)\n"
        "    DETERMINISTIC\n"
        "RETURN UNHEX(CONCAT(SUBSTR(uuid, 15, 4),SUBSTR(uuid, 10, 4),SUBSTR(uuid, 1, 8),SUBSTR(uuid, 20, 4),SUBSTR(uuid, 25)))")


def test_cli_procedure_with_delimiter_and_result_sets(server, db):
    _, name = db
    script = """DELIMITER //
CREATE PROCEDURE report(IN n INT, OUT total INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  SET total = 0;
  WHILE i < n DO
    SET i = i + 1;
    SET total = total + i;
  END WHILE;
  SELECT 'first' AS which, n;
  SELECT 'second' AS which, total;
END//
DELIMITER ;
CALL report(4, @t);
SELECT @t AS t;
"""
    rc, out, errout = server.cli(script, db=name, extra=["-N"])
    assert rc == 0, errout
    assert out.split() == ["first", "4", "second", "10", "10"]


def test_call_results_and_out_params_pymysql(server, db):
    c, _ = db
    q(c, """CREATE PROCEDURE p(IN a INT, OUT b INT, INOUT c VARCHAR(10))
            BEGIN
              SELECT a AS x, a + 1 AS y;
              SELECT 'two';
              SET b = a * 10, c = CONCAT(c, '!');
            END""")
    cur = c.cursor()
    q(c, "SET @c = 'hi'")
    cur.execute("CALL p(4, @b, @c)")
    assert cur.fetchall() == ((4, 5),)
    assert cur.nextset()
    assert cur.fetchall() == (("two",),)
    assert cur.nextset()  # the CALL's own OK
    assert not cur.nextset()
    assert q(c, "SELECT @b, @c") == ((40, "hi!"),)
    # PyMySQL's callproc: IN args bound to @_p_n, read back with SELECT
    cur.callproc("p", (7, 0, "x"))
    assert cur.fetchall() == ((7, 8),)
    while cur.nextset():
        pass
    assert q(c, "SELECT @_p_1, @_p_2") == ((70, "x!"),)
    assert err(c, "CALL p(1, 2, @c)")[0] == 1414
    assert err(c, "CALL p(1)")[0] == 1318
    assert err(c, "CALL nope()")[0] == 1305
    assert err(c, "CREATE PROCEDURE p() BEGIN END")[0] == 1304


def test_functions_in_select_where_and_dml(server, db):
    c, _ = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    q(c, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
    q(c, """CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2""")
    q(c, """CREATE FUNCTION total_v() RETURNS INT READS SQL DATA
            BEGIN DECLARE s INT; SELECT SUM(v) INTO s FROM t; RETURN s; END""")
    assert q(c, "SELECT id, twice(v) FROM t ORDER BY id") == ((1, 20), (2, 40), (3, 60))
    assert q(c, "SELECT id FROM t WHERE twice(v) > 30 ORDER BY id") == ((2,), (3,))
    assert q(c, "SELECT total_v()") == ((60,),)
    q(c, "UPDATE t SET v = twice(v) WHERE id = 1")
    q(c, "INSERT INTO t VALUES (4, twice(total_v()))")
    assert q(c, "SELECT v FROM t WHERE id IN (1, 4) ORDER BY id") == ((20,), (140,))
    # the SQL-level prepared statement: a parameter as the function's argument
    cur = c.cursor()
    q(c, "PREPARE s FROM 'SELECT twice(?)'")
    q(c, "SET @x = 21")
    assert q(c, "EXECUTE s USING @x") == ((42,),)
    assert err(c, "SELECT twice()")[0] == 1318
    assert err(c, "SELECT twice(1, 2)")[0] == 1318
    assert err(c, "SELECT nope(1)")[0] == 1305
    cur.close()


def test_handlers_cursors_and_signal_codes(server, db):
    c, _ = db
    q(c, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))")
    q(c, "INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    q(c, """CREATE PROCEDURE names(OUT s TEXT)
            BEGIN
              DECLARE done INT DEFAULT 0;
              DECLARE n VARCHAR(20);
              DECLARE cur CURSOR FOR SELECT name FROM items ORDER BY id DESC;
              DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
              SET s = '';
              OPEN cur;
              l: LOOP
                FETCH cur INTO n;
                IF done THEN LEAVE l; END IF;
                SET s = CONCAT(s, n);
              END LOOP;
              CLOSE cur;
            END""")
    q(c, "CALL names(@s)")
    assert q(c, "SELECT @s") == (("cba",),)
    q(c, """CREATE PROCEDURE ins(i INT, OUT r VARCHAR(20))
            BEGIN
              DECLARE EXIT HANDLER FOR 1062 SET r = 'dup';
              DECLARE EXIT HANDLER FOR SQLSTATE '23000' SET r = 'constraint';
              INSERT INTO items VALUES (i, 'x');
              SET r = 'ok';
            END""")
    q(c, "CALL ins(9, @r)")
    assert q(c, "SELECT @r") == (("ok",),)
    q(c, "CALL ins(9, @r)")
    assert q(c, "SELECT @r") == (("dup",),)  # the error number is more specific than SQLSTATE
    q(c, """CREATE PROCEDURE guard(p INT)
            BEGIN
              IF p < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative', MYSQL_ERRNO = 5001; END IF;
              IF p = 0 THEN SIGNAL SQLSTATE '22012'; END IF;
            END""")
    q(c, "CALL guard(1)")
    assert err(c, "CALL guard(-1)") == (5001, "negative")
    assert err(c, "CALL guard(0)") == (1644, "Unhandled user-defined exception condition")
    # a warning-class SIGNAL without a handler is a warning, and the procedure goes on
    q(c, "CREATE PROCEDURE warn_me() BEGIN SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'careful'; SET @went_on = 1; END")
    q(c, "CALL warn_me()")
    assert q(c, "SELECT @went_on") == ((1,),)


def test_recursion_limits(server, db):
    c, _ = db
    q(c, """CREATE PROCEDURE down(n INT)
            BEGIN IF n > 0 THEN CALL down(n - 1); END IF; END""")
    assert err(c, "CALL down(2)")[0] == 1456
    q(c, "SET max_sp_recursion_depth = 10")
    q(c, "CALL down(5)")
    q(c, """CREATE FUNCTION f(n INT) RETURNS INT DETERMINISTIC
            BEGIN IF n = 0 THEN RETURN 0; END IF; RETURN f(n - 1); END""")
    assert err(c, "SELECT f(3)")[0] == 1424
    assert err(c, "CREATE FUNCTION g() RETURNS INT DETERMINISTIC BEGIN SELECT 1; RETURN 1; END")[0] == 1415


def test_binlog_requires_deterministic_functions(server, db):
    c, _ = db
    assert q(c, "SELECT @@log_bin, @@log_bin_trust_function_creators") == ((1, 0),)
    assert err(c, "CREATE FUNCTION nd() RETURNS INT RETURN 1")[0] == 1418
    q(c, "CREATE FUNCTION rd() RETURNS INT READS SQL DATA RETURN 1")
    q(c, "CREATE FUNCTION ns() RETURNS INT NO SQL RETURN 1")
    q(c, "SET GLOBAL log_bin_trust_function_creators = 1")
    try:
        q(c, "CREATE FUNCTION nd() RETURNS INT RETURN 1")
    finally:
        q(c, "SET GLOBAL log_bin_trust_function_creators = 0")
    assert q(c, "SELECT nd() + rd() + ns()") == ((3,),)


def test_metadata(server, db):
    c, name = db
    q(c, "CREATE PROCEDURE p1(IN a INT, OUT b VARCHAR(5)) COMMENT 'hello' SET b = 'x'")
    q(c, "CREATE FUNCTION f1(a DECIMAL(6,2)) RETURNS VARCHAR(10) DETERMINISTIC RETURN 'y'")
    st = q(c, f"SHOW PROCEDURE STATUS WHERE Db = '{name}'")
    assert [(r[0], r[1], r[2], r[3], r[6], r[7]) for r in st] == [(name, "p1", "PROCEDURE", "root@localhost", "DEFINER", "hello")]
    st = q(c, "SHOW FUNCTION STATUS LIKE 'f1'")
    assert [(r[0], r[1], r[2]) for r in st] == [(name, "f1", "FUNCTION")]
    rows = q(c, f"SELECT ROUTINE_NAME, ROUTINE_TYPE, DTD_IDENTIFIER, ROUTINE_DEFINITION, IS_DETERMINISTIC FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '{name}' ORDER BY 1")
    assert rows == (("f1", "FUNCTION", "varchar(10)", "RETURN 'y'", "YES"), ("p1", "PROCEDURE", None, "SET b = 'x'", "NO"))
    rows = q(c, f"SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, DTD_IDENTIFIER FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = '{name}' ORDER BY 1, 2")
    assert rows == (
        ("f1", 0, None, None, "varchar(10)"),
        ("f1", 1, "IN", "a", "decimal(6,2)"),
        ("p1", 1, "IN", "a", "int"),
        ("p1", 2, "OUT", "b", "varchar(5)"),
    )
    assert q(c, "SHOW CREATE PROCEDURE p1")[0][2] == (
        "CREATE DEFINER=`root`@`localhost` PROCEDURE `p1`(IN a INT, OUT b VARCHAR(5))\n"
        "    COMMENT 'hello'\n"
        "SET b = 'x'")
    # DROP DATABASE takes its routines along
    q(c, f"DROP DATABASE {name}")
    q(c, f"CREATE DATABASE {name}")
    assert q(c, f"SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '{name}'") == ((0,),)


def test_definitions_survive_restart_and_sigkill():
    srv = Server().start()
    try:
        c = srv.connect()
        q(c, "CREATE DATABASE keep")
        c.select_db("keep")
        q(c, "CREATE TABLE log (n INT)")
        q(c, "CREATE FUNCTION sq(x INT) RETURNS INT DETERMINISTIC RETURN x * x")
        q(c, """CREATE PROCEDURE fill(n INT)
                BEGIN DECLARE i INT DEFAULT 0; WHILE i < n DO SET i = i + 1; INSERT INTO log VALUES (sq(i)); END WHILE; END""")
        q(c, "CALL fill(3)")
        c.close()
        srv.stop()
        srv.start()
        c = srv.connect(db="keep")
        q(c, "CALL fill(2)")
        assert q(c, "SELECT SUM(n) FROM log") == ((1 + 4 + 9 + 1 + 4,),)
        q(c, "CREATE PROCEDURE later() SELECT sq(5)")
        q(c, "DROP FUNCTION sq")
        c.close()
        srv.kill(9)
        srv.start()
        c = srv.connect(db="keep")
        assert err(c, "CALL later()")[0] == 1305  # sq was dropped before the crash
        names = q(c, "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'keep' ORDER BY 1")
        assert names == (("fill",), ("later",))
    finally:
        srv.stop()


def test_privileges_and_definer_rights(server, db):
    c, name = db
    q(c, "CREATE TABLE secret (v INT)")
    q(c, "INSERT INTO secret VALUES (42)")
    q(c, "CREATE PROCEDURE peek(OUT x INT) SELECT v INTO x FROM secret")
    q(c, "CREATE PROCEDURE peek_invoker(OUT x INT) SQL SECURITY INVOKER SELECT v INTO x FROM secret")
    q(c, "DROP USER IF EXISTS 'sp_user'@'%'")
    q(c, "CREATE USER 'sp_user'@'%' IDENTIFIED BY 'pw'")
    try:
        u = server.connect(user="sp_user", password="pw")
        assert err(u, f"CALL {name}.peek(@x)")[0] == 1044  # no EXECUTE
        assert err(u, f"CREATE PROCEDURE {name}.mine() BEGIN END")[0] == 1044  # no CREATE ROUTINE
        q(c, f"GRANT EXECUTE, CREATE ROUTINE ON {name}.* TO 'sp_user'@'%'")
        u = server.connect(user="sp_user", password="pw")
        q(u, f"CALL {name}.peek(@x)")  # runs with its definer's (root's) privileges
        assert q(u, "SELECT @x") == ((42,),)
        assert err(u, f"CALL {name}.peek_invoker(@x)")[0] == 1142  # the caller's own
        q(u, f"CREATE PROCEDURE {name}.mine() SELECT CURRENT_USER()")
        assert q(u, f"CALL {name}.mine()") == (("sp_user@%",),)
        assert err(u, f"DROP PROCEDURE {name}.mine")[0] == 1044  # no ALTER ROUTINE
    finally:
        q(c, "DROP USER 'sp_user'@'%'")
