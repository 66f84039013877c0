"""Built-in functions over the wire: a sample per category, NULL handling and error cases.

Expected values are MySQL 8.0's (cross-checked against MariaDB where the two agree)."""
import datetime
import decimal

import pymysql
import pytest


def q(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


def one(c, sql, args=None):
    return q(c, sql, args)[0]


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, sql)
    return e.value.args[0]


def test_string_functions(server):
    c = server.connect()
    assert one(c, "SELECT CONCAT_WS(',', 'a', NULL, 'b'), SUBSTRING_INDEX('www.mysql.com', '.', -2), "
                  "LOCATE('bar', 'foobarbar', 5), INSTR('foobar', 'bar'), LEFT('foobarbar', 5), RIGHT('foobarbar', 4)") \
        == ("a,b", "mysql.com", 7, 4, "fooba", "rbar")
    assert one(c, "SELECT LPAD('hi', 4, '??'), RPAD('hi', 5, 'xy'), REPEAT('ab', 3), REVERSE('abc'), "
                  "FORMAT(12332.123456, 4), CHAR_LENGTH('héllo'), LENGTH('héllo')") \
        == ("??hi", "hixyx", "ababab", "cba", "12,332.1235", 5, 6)
    assert one(c, "SELECT ASCII('2'), ORD('é'), SPACE(3), ELT(2, 'a', 'b'), FIELD('b', 'a', 'b'), "
                  "FIND_IN_SET('b', 'a,b,c'), INSERT('Quadratic', 3, 4, 'What'), QUOTE('Don''t')") \
        == (50, 50089, "   ", "b", 2, 2, "QuWhattic", "'Don\\'t'")
    assert one(c, "SELECT MAKE_SET(1 | 4, 'a', 'b', 'c'), EXPORT_SET(5, 'Y', 'N', ',', 4), SOUNDEX('Hello'), "
                  "HEX('abc'), UNHEX('4D7953514C'), BIN(12), OCT(12), STRCMP('text', 'text2')") \
        == ("a,c", "Y,N,Y,N", "H400", "616263", b"MySQL", "1100", "14", -1)
    assert one(c, "SELECT TO_BASE64('abc'), FROM_BASE64('YWJj'), REGEXP_LIKE('CamelCase', 'camelcase'), "
                  "REGEXP_REPLACE('a b c', 'b', 'X'), REGEXP_SUBSTR('abc def', '[a-z]+', 1, 2), "
                  "REGEXP_INSTR('dog cat dog', 'dog', 2)") \
        == ("YWJj", b"abc", 1, "a X c", "def", 9)
    # NULL propagation, and the exceptions
    assert one(c, "SELECT CONCAT('a', NULL), CONCAT_WS(NULL, 'a'), LPAD(NULL, 2, 'x'), ELT(NULL, 'a'), "
                  "FIELD(NULL, 'a'), MAKE_SET(NULL, 'a'), QUOTE(NULL)") \
        == (None, None, None, None, 0, None, "NULL")


def test_numeric_functions(server):
    c = server.connect()
    assert one(c, "SELECT ABS(-32), CEIL(1.23), FLOOR(-1.23), ROUND(1.298, 1), ROUND(-2.5), TRUNCATE(1.999, 1), "
                  "MOD(29, 9), SIGN(-3)") \
        == (32, 2, -2, decimal.Decimal("1.3"), decimal.Decimal("-3"), decimal.Decimal("1.9"), 2, -1)
    # MySQL prints PI() with 6 decimals (3.141593); Strata sends the full double.
    assert one(c, "SELECT POW(2, 10), SQRT(16), EXP(0), LN(1), LOG(2, 65536), LOG2(8), LOG10(1000), ROUND(PI(), 6)") \
        == (1024.0, 4.0, 1.0, 0.0, 16.0, 3.0, 3.0, 3.141593)
    assert one(c, "SELECT DEGREES(PI()), RADIANS(180), COS(0), ATAN2(0, 1), COT(1) > 0.6, "
                  "CONV('a', 16, 2), CRC32('MySQL'), GREATEST(2, 7, 3), LEAST('b', 'a')") \
        == (180.0, 3.141592653589793, 1.0, 0.0, 1, "1010", 3259397556, 7, "a")
    r = one(c, "SELECT RAND(3), RAND() BETWEEN 0 AND 1")
    assert abs(r[0] - 0.9057697559760601) < 1e-12 and r[1] == 1
    assert one(c, "SELECT SQRT(-1), LN(0), ABS(NULL), ROUND(NULL, 2)") == (None, None, None, None)
    assert q(c, "SHOW WARNINGS")[0][1] == 3020
    assert err(c, "SELECT EXP(1000)") == 1690


def test_date_functions(server):
    c = server.connect()
    assert one(c, "SELECT DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y %H:%i'), "
                  "STR_TO_DATE('01,5,2013', '%d,%m,%Y'), TIMESTAMPDIFF(MONTH, '2003-02-01', '2003-05-01'), "
                  "TIMESTAMPADD(MINUTE, 1, '2003-01-02')") \
        == ("Sunday October 2009 22:23", datetime.date(2013, 5, 1), 3, "2003-01-02 00:01:00")
    assert one(c, "SELECT EXTRACT(YEAR_MONTH FROM '2019-07-02 01:02:03'), EXTRACT(DAY_MINUTE FROM '2019-07-02 01:02:03'), "
                  "WEEK('2008-02-20'), WEEKDAY('2008-02-03 22:23:00'), WEEKOFYEAR('2008-02-20'), YEARWEEK('1987-01-01')") \
        == (201907, 20102, 7, 6, 8, 198652)
    assert one(c, "SELECT LAST_DAY('2004-02-05'), MAKEDATE(2011, 32), MAKETIME(12, 15, 30), PERIOD_ADD(200801, 2), "
                  "PERIOD_DIFF(200802, 200703), SEC_TO_TIME(2378), TIME_TO_SEC('22:23:00')") \
        == (datetime.date(2004, 2, 29), datetime.date(2011, 2, 1), datetime.timedelta(hours=12, minutes=15, seconds=30),
            200803, 11, datetime.timedelta(seconds=2378), 80580)
    assert one(c, "SELECT TO_DAYS('2007-10-07'), FROM_DAYS(730669), TO_SECONDS('2009-11-29'), "
                  "UNIX_TIMESTAMP('2015-11-13 10:20:19'), FROM_UNIXTIME(1447430881)") \
        == (733321, datetime.date(2000, 7, 3), 63426672000, 1447410019, datetime.datetime(2015, 11, 13, 16, 8, 1))
    assert one(c, "SELECT CONVERT_TZ('2004-01-01 12:00:00', '+00:00', '+10:00'), "
                  "CONVERT_TZ('2021-07-01 12:00:00', 'Europe/Paris', 'America/New_York'), "
                  "CONVERT_TZ('2004-01-01 12:00:00', '+00:00', 'No/Such_Zone')") \
        == (datetime.datetime(2004, 1, 1, 22, 0), datetime.datetime(2021, 7, 1, 6, 0), None)
    assert one(c, "SELECT GET_FORMAT(DATE, 'USA'), GET_FORMAT(DATETIME, 'JIS'), TIME_FORMAT('100:00:00', '%H %k %h'), "
                  "ADDTIME('2007-12-31 23:59:59.999999', '1 1:1:1.000002'), DATEDIFF('2007-12-31', '2007-12-30'), "
                  "TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')") \
        == ("%m.%d.%Y", "%Y-%m-%d %H:%i:%s", "100 100 04", "2008-01-02 01:01:01.000001", 1,
            -datetime.timedelta(microseconds=1))
    assert one(c, "SELECT DAYNAME('2007-02-03'), MONTHNAME('2008-02-03'), QUARTER('2008-04-01'), "
                  "DAYOFYEAR('2007-02-03'), UTC_DATE() = DATE(UTC_TIMESTAMP()), SYSDATE() >= NOW() - INTERVAL 1 MINUTE") \
        == ("Saturday", "February", 2, 34, 1, 1)
    assert one(c, "SELECT DATE_ADD('2024-01-01 10:00:00', INTERVAL '1:30' HOUR_MINUTE), "
                  "'2024-01-01' - INTERVAL '1 2' DAY_HOUR, DATE_SUB('2024-01-01', INTERVAL '1-2' YEAR_MONTH), "
                  "TIMESTAMPADD(SECOND, 1, '2024-01-01 10:00:00')") \
        == ("2024-01-01 11:30:00", "2023-12-30 22:00:00", "2022-11-01", "2024-01-01 10:00:01")
    # DATE/DATETIME arguments keep their type
    assert one(c, "SELECT DATE_ADD(DATE '2024-01-31', INTERVAL 1 MONTH), "
                  "TIMESTAMPADD(HOUR, 2, TIMESTAMP '2024-01-01 23:00:00')") \
        == (datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 1, 0))
    assert one(c, "SELECT DATE_FORMAT(NULL, '%Y'), EXTRACT(DAY FROM NULL), CONVERT_TZ(NULL, '+00:00', '+01:00')") \
        == (None, None, None)


def test_json_functions(db):
    c, _ = db
    assert one(c, "SELECT JSON_OBJECT('id', 87, 'name', 'carrot'), JSON_ARRAY(1, 'abc', NULL, TRUE, 1.50), "
                  "JSON_OBJECT('a', JSON_ARRAY(1, 2), 'b', 1 = 1)") \
        == ('{"id": 87, "name": "carrot"}', '[1, "abc", null, true, 1.50]', '{"a": [1, 2], "b": true}')
    doc = '{"a": [10, 20, {"b": 30}], "c d": "x", "e": {"b": 40}}'
    assert one(c, "SELECT JSON_EXTRACT(%s, '$.a[1]'), JSON_EXTRACT(%s, '$**.b'), JSON_UNQUOTE(JSON_EXTRACT(%s, '$.\"c d\"')), "
                  "JSON_KEYS(%s), JSON_LENGTH(%s, '$.a'), JSON_DEPTH(%s), JSON_TYPE(JSON_EXTRACT(%s, '$.e'))",
               (doc,) * 7) \
        == ("20", "[30, 40]", "x", '["a", "e", "c d"]', 3, 4, "OBJECT")
    assert one(c, "SELECT JSON_SET('{\"a\": 1}', '$.a', 10, '$.c', '[true]'), JSON_INSERT('{\"a\": 1}', '$.a', 2, '$.b', 3), "
                  "JSON_REPLACE('{\"a\": 1}', '$.a', 2, '$.b', 3), JSON_REMOVE('[1, 2, 3]', '$[1]'), "
                  "JSON_ARRAY_APPEND('[1, [2]]', '$[1]', 3), JSON_ARRAY_INSERT('[1, 2]', '$[1]', 'x')") \
        == ('{"a": 10, "c": "[true]"}', '{"a": 1, "b": 3}', '{"a": 2}', "[1, 3]", "[1, [2, 3]]", '[1, "x", 2]')
    assert one(c, "SELECT JSON_CONTAINS('{\"a\": 1, \"b\": [1, 2]}', '[2]', '$.b'), "
                  "JSON_CONTAINS_PATH('{\"a\": 1}', 'all', '$.a', '$.z'), JSON_SEARCH('[\"abc\", {\"x\": \"abc\"}]', 'all', 'abc'), "
                  "JSON_MERGE_PRESERVE('[1]', '{\"a\": 1}'), JSON_MERGE_PATCH('{\"a\": 1, \"b\": 2}', '{\"b\": null}'), "
                  "JSON_VALID('{\"a\": 1}'), JSON_VALID('nope'), JSON_QUOTE('a\"b'), JSON_OVERLAPS('[1, 3]', '[3, 4]')") \
        == (1, 0, '["$[0]", "$[1].x"]', '[1, {"a": 1}]', '{"a": 1}', 1, 0, '"a\\"b"', 1)
    assert one(c, "SELECT JSON_PRETTY('[1, {\"a\": 2}]'), JSON_STORAGE_SIZE('[100, \"sakila\", [1, 3, 5], 425.05]'), "
                  "17 MEMBER OF('[23, \"abc\", 17]'), JSON_VALUE('{\"a\": {\"b\": 5}}', '$.a.b')") \
        == ('[\n  1,\n  {\n    "a": 2\n  }\n]', 45, 1, "5")
    # JSON columns: values embed as JSON, -> and ->> read paths
    q(c, "CREATE TABLE j (id INT PRIMARY KEY, doc JSON)")
    q(c, "INSERT INTO j VALUES (1, '{\"name\": \"Ann\", \"tags\": [\"x\", \"y\"]}'), (2, NULL)")
    assert q(c, "SELECT doc->'$.name', doc->>'$.name', JSON_ARRAY(doc->'$.tags'), JSON_OBJECT('d', doc) "
                "FROM j ORDER BY id") \
        == (('"Ann"', "Ann", '[["x", "y"]]', '{"d": {"name": "Ann", "tags": ["x", "y"]}}'), (None, None, "[null]", '{"d": null}'))
    assert q(c, "SELECT id FROM j WHERE JSON_CONTAINS(doc, '\"y\"', '$.tags')") == ((1,),)
    q(c, "UPDATE j SET doc = JSON_SET(doc, '$.age', 30) WHERE id = 1")
    assert one(c, "SELECT doc FROM j WHERE id = 1") == ('{"age": 30, "name": "Ann", "tags": ["x", "y"]}',)
    # NULLs and errors
    assert one(c, "SELECT JSON_EXTRACT(NULL, '$'), JSON_EXTRACT('[1]', NULL), JSON_KEYS('[1]'), JSON_SEARCH('[]', 'one', NULL)") \
        == (None, None, None, None)
    assert err(c, "SELECT JSON_EXTRACT('{', '$')") == 3141
    assert err(c, "SELECT JSON_EXTRACT('[1]', '$.')") == 3143
    assert err(c, "SELECT JSON_SET('[1]', '$[*]', 1)") == 3149
    assert err(c, "SELECT JSON_OBJECT('a')") == 1582


def test_hashing_and_encoding(server):
    c = server.connect()
    assert one(c, "SELECT MD5('testing'), SHA1('abc'), SHA2('abc', 224), LENGTH(RANDOM_BYTES(16))") \
        == ("ae2b1fca515949e5d54fb22b8ed95575", "a9993e364706816aba3e25717850c26c9cd0d89d",
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7", 16)
    assert one(c, "SELECT HEX(AES_ENCRYPT('text', 'key')), AES_DECRYPT(AES_ENCRYPT('text', 'key'), 'key'), "
                  "UNCOMPRESS(COMPRESS('any string')), UNCOMPRESSED_LENGTH(COMPRESS(REPEAT('a', 30))), "
                  "CRC32(NULL), SHA2('abc', 1)") \
        == ("15E36637363712FC2E699B9C95B75393", b"text", b"any string", 30, None, None)
    assert err(c, "SELECT RANDOM_BYTES(0)") == 1690


def test_information_functions(db):
    c, name = db
    q(c, "CREATE TABLE t (s VARCHAR(10) COLLATE utf8mb4_bin, n INT)")
    assert one(c, "SELECT DATABASE(), CHARSET('a'), CHARSET(1), COLLATION('a'), COERCIBILITY('a'), "
                  "COERCIBILITY(NULL), VERSION() LIKE '8.4%'") \
        == (name, "utf8mb4", "binary", "utf8mb4_0900_ai_ci", 4, 6, 1)
    q(c, "INSERT INTO t VALUES ('x', 1)")
    assert q(c, "SELECT CHARSET(s), COLLATION(s), COERCIBILITY(s), COERCIBILITY(n) FROM t") \
        == (("utf8mb4", "utf8mb4_bin", 2, 5),)
    assert one(c, "SELECT BENCHMARK(1000, MD5('x')), BENCHMARK(NULL, 1), CONNECTION_ID() > 0, "
                  "PS_CURRENT_THREAD_ID() = CONNECTION_ID(), CURRENT_ROLE(), ICU_VERSION() IS NOT NULL") \
        == (0, None, 1, 1, "NONE", 1)
    assert one(c, "SELECT FORMAT_BYTES(2048), FORMAT_PICO_TIME(3501)") == ("2.00 KiB", "3.50 ns")


def test_misc_functions(server):
    c = server.connect()
    assert one(c, "SELECT INET_ATON('10.0.5.9'), INET_NTOA(167773449), INET6_NTOA(INET6_ATON('fdfe::5a55:caff:fefa:9089')), "
                  "IS_IPV4('10.0.5.9'), IS_IPV6('::1'), IS_IPV4_MAPPED(INET6_ATON('::ffff:10.0.5.9')), IS_IPV4(NULL)") \
        == (167773449, "10.0.5.9", "fdfe::5a55:caff:fefa:9089", 1, 1, 1, 0)
    u = "6ccd780c-baba-1026-9564-5b8c656024db"
    assert one(c, "SELECT HEX(UUID_TO_BIN(%s, 1)), BIN_TO_UUID(UUID_TO_BIN(%s, 1), 1), IS_UUID(%s), IS_UUID('x'), "
                  "LENGTH(UUID()), UUID_SHORT() > 0", (u, u, u)) \
        == ("1026BABA6CCD780C95645B8C656024DB", u, 1, 0, 36, 1)
    assert one(c, "SELECT ANY_VALUE(5), NAME_CONST('x', 14), SLEEP(0), "
                  "GTID_SUBSET('3e11fa47-71ca-11e1-9e33-c80aa9429562:23', '3e11fa47-71ca-11e1-9e33-c80aa9429562:21-57'), "
                  "GTID_SUBTRACT('3e11fa47-71ca-11e1-9e33-c80aa9429562:21-57', '3e11fa47-71ca-11e1-9e33-c80aa9429562:20-25')") \
        == (5, 14, 0, 1, "3e11fa47-71ca-11e1-9e33-c80aa9429562:26-57")
    cur = c.cursor()
    cur.execute("SELECT NAME_CONST('myname', 14)")
    assert cur.description[0][0] == "myname" and cur.fetchall() == ((14,),)
    assert err(c, "SELECT NAME_CONST('x', RAND())") == 1210
    assert one(c, "SELECT IF(1 > 0, 'y', 'n'), IFNULL(NULL, 3), NULLIF(1, 1), COALESCE(NULL, NULL, 'c'), "
                  "INTERVAL(23, 1, 15, 17, 30), ISNULL(1 / 0)") == ("y", 3, None, "c", 3, 1)


def test_user_locks(server):
    a = server.connect()
    b = server.connect()
    assert one(a, "SELECT GET_LOCK('e2e_lock', 0), GET_LOCK('e2e_lock', 0)") == (1, 1)
    assert one(b, "SELECT GET_LOCK('e2e_lock', 0), IS_FREE_LOCK('e2e_lock'), IS_USED_LOCK('e2e_lock') = %s",
               (a.thread_id(),)) == (0, 0, 1)
    assert one(b, "SELECT RELEASE_LOCK('e2e_lock')") == (0,)
    assert one(a, "SELECT RELEASE_LOCK('e2e_lock'), RELEASE_ALL_LOCKS()") == (1, 1)
    assert one(b, "SELECT GET_LOCK('e2e_lock', 1), RELEASE_LOCK('nope')") == (1, None)
    b.close()
    # a closed session's locks are released
    import time
    deadline = time.time() + 10
    while one(a, "SELECT IS_FREE_LOCK('e2e_lock')") != (1,) and time.time() < deadline:
        time.sleep(0.05)
    assert one(a, "SELECT IS_FREE_LOCK('e2e_lock')") == (1,)
    assert err(a, "SELECT GET_LOCK(NULL, 0)") == 3057
    assert err(a, "SELECT GET_LOCK('x')") == 1582


def test_errors(server):
    c = server.connect("mysql") if False else server.connect()
    q(c, "CREATE DATABASE IF NOT EXISTS e2e_fn_err")
    q(c, "USE e2e_fn_err")
    assert err(c, "SELECT LEFT('a')") == 1582
    assert err(c, "SELECT NO_SUCH_FUNCTION(1)") == 1305
    assert err(c, "SELECT REGEXP_LIKE('a', '(')") == 3685
    assert err(c, "SELECT UUID_TO_BIN('nope')") == 1411
    q(c, "DROP DATABASE e2e_fn_err")


def test_unknown_function_fails_before_any_row(db):
    """Functions are resolved when the statement is bound: an unknown one (1305) or a wrong
    argument count (1582) fails the statement even when no row reaches the call."""
    c, name = db
    q(c, "CREATE TABLE t (id INT PRIMARY KEY, x INT)")
    q(c, "INSERT INTO t VALUES (1, 10), (2, 20)")
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, "SELECT COALESCE(NO_SUCH_FN(x), 35) FROM t WHERE id > 100")
    assert e.value.args == (1305, f"FUNCTION {name}.no_such_fn does not exist")
    with pytest.raises(pymysql.MySQLError) as e:
        q(c, "SELECT other_db.f(x) FROM t WHERE id > 100")
    assert e.value.args == (1305, "FUNCTION other_db.f does not exist")
    assert err(c, "SELECT LEFT(x) FROM t WHERE id > 100") == 1582
    assert err(c, "UPDATE t SET x = NO_SUCH_FN(x) WHERE id > 100") == 1305
    assert err(c, "DELETE FROM t WHERE id > 100 AND NO_SUCH_FN(x)") == 1305
    # a prepared statement is refused at PREPARE, before it runs
    assert err(c, "PREPARE s FROM 'SELECT NO_SUCH_FN(x) FROM t WHERE id > ?'") == 1305
    # known functions over zero rows still run (an empty result, no error)
    assert q(c, "SELECT COALESCE(LENGTH(x), 35) FROM t WHERE id > 100") == ()
    assert q(c, "SELECT x FROM t ORDER BY id") == ((10,), (20,))


# One call per function docs/functions.md marks as implemented: every one must be dispatched
# (no "FUNCTION ... does not exist" / unsupported errors).
SMOKE = """
ASCII('a') | BIN(5) | BIT_LENGTH('a') | CHAR(65) | CHAR_LENGTH('a') | CHARACTER_LENGTH('a') | CONCAT('a','b')
| CONCAT_WS(',','a') | ELT(1,'a') | EXPORT_SET(1,'y','n') | FIELD('a','a') | FIND_IN_SET('a','a') | FORMAT(1,2)
| FROM_BASE64('YQ==') | HEX(1) | INSERT('abc',1,1,'x') | INSTR('a','a') | LCASE('A') | LEFT('a',1) | LENGTH('a')
| LOCATE('a','a') | LOWER('A') | LPAD('a',2,'x') | LTRIM(' a') | MAKE_SET(1,'a') | MID('abc',2,1) | OCT(8)
| OCTET_LENGTH('a') | ORD('a') | POSITION('a' IN 'a') | QUOTE('a') | REGEXP_INSTR('a','a') | REGEXP_LIKE('a','a')
| REGEXP_REPLACE('a','a','b') | REGEXP_SUBSTR('a','a') | REPEAT('a',2) | REPLACE('a','a','b') | REVERSE('ab')
| RIGHT('a',1) | RPAD('a',2,'x') | RTRIM('a ') | SOUNDEX('a') | SPACE(1) | STRCMP('a','b') | SUBSTR('abc',2)
| SUBSTRING('abc',2) | SUBSTRING_INDEX('a.b','.',1) | TO_BASE64('a') | TRIM(' a ') | UCASE('a') | UNHEX('41') | UPPER('a')
| ABS(-1) | ACOS(1) | ASIN(1) | ATAN(1) | ATAN2(1,1) | CEIL(1.5) | CEILING(1.5) | CONV('a',16,10) | COS(0) | COT(1)
| CRC32('a') | DEGREES(1) | EXP(1) | FLOOR(1.5) | LN(2) | LOG(2) | LOG10(2) | LOG2(2) | MOD(5,2) | PI() | POW(2,2)
| POWER(2,2) | RADIANS(1) | RAND() | ROUND(1.5) | SIGN(-1) | SIN(0) | SQRT(4) | TAN(0) | TRUNCATE(1.55,1)
| ADDDATE('2020-01-01', 1) | ADDTIME('10:00:00','01:00:00') | CONVERT_TZ('2020-01-01 00:00:00','+00:00','UTC')
| CURDATE() | CURRENT_DATE() | CURRENT_TIME() | CURRENT_TIMESTAMP() | CURTIME() | DATE('2020-01-01 10:00:00')
| DATE_ADD('2020-01-01', INTERVAL 1 DAY) | DATE_FORMAT('2020-01-01','%Y') | DATE_SUB('2020-01-01', INTERVAL 1 DAY)
| DATEDIFF('2020-01-02','2020-01-01') | DAY('2020-01-01') | DAYNAME('2020-01-01') | DAYOFMONTH('2020-01-01')
| DAYOFWEEK('2020-01-01') | DAYOFYEAR('2020-01-01') | EXTRACT(YEAR FROM '2020-01-01') | FROM_DAYS(737790)
| FROM_UNIXTIME(0) | GET_FORMAT(TIME, 'ISO') | HOUR('10:00:00') | LAST_DAY('2020-02-01') | LOCALTIME() | LOCALTIMESTAMP()
| MAKEDATE(2020,1) | MAKETIME(1,2,3) | MICROSECOND('10:00:00.5') | MINUTE('10:05:00') | MONTH('2020-01-01')
| MONTHNAME('2020-01-01') | NOW() | PERIOD_ADD(202001,1) | PERIOD_DIFF(202002,202001) | QUARTER('2020-01-01')
| SEC_TO_TIME(1) | SECOND('10:00:01') | STR_TO_DATE('2020','%Y') | SUBDATE('2020-01-01', 1) | SUBTIME('10:00:00','01:00:00')
| SYSDATE() | TIME('10:00:00') | TIME_FORMAT('10:00:00','%H') | TIME_TO_SEC('00:01:00') | TIMEDIFF('10:00:00','09:00:00')
| TIMESTAMP('2020-01-01') | TIMESTAMPADD(DAY,1,'2020-01-01') | TIMESTAMPDIFF(DAY,'2020-01-01','2020-01-02')
| TO_DAYS('2020-01-01') | TO_SECONDS('2020-01-01') | UNIX_TIMESTAMP() | UTC_DATE() | UTC_TIME() | UTC_TIMESTAMP()
| WEEK('2020-01-01') | WEEKDAY('2020-01-01') | WEEKOFYEAR('2020-01-01') | YEAR('2020-01-01') | YEARWEEK('2020-01-01')
| IF(1,2,3) | IFNULL(1,2) | NULLIF(1,2) | COALESCE(1) | GREATEST(1,2) | LEAST(1,2) | INTERVAL(1,2) | ISNULL(1)
| CAST(1 AS CHAR) | CONVERT(1, CHAR)
| AES_DECRYPT(AES_ENCRYPT('a','k'),'k') | AES_ENCRYPT('a','k') | COMPRESS('a') | MD5('a') | RANDOM_BYTES(1) | SHA1('a')
| SHA('a') | SHA2('a',256) | UNCOMPRESS(COMPRESS('a')) | UNCOMPRESSED_LENGTH(COMPRESS('a')) | VALIDATE_PASSWORD_STRENGTH('a')
| BENCHMARK(1,1) | CHARSET('a') | COERCIBILITY('a') | COLLATION('a') | CONNECTION_ID() | CURRENT_ROLE() | CURRENT_USER()
| DATABASE() | FOUND_ROWS() | ICU_VERSION() | LAST_INSERT_ID() | ROW_COUNT() | SCHEMA() | SESSION_USER() | SYSTEM_USER()
| USER() | VERSION()
| GET_LOCK('smoke',0) | IS_FREE_LOCK('smoke') | IS_USED_LOCK('smoke') | RELEASE_LOCK('smoke') | RELEASE_ALL_LOCKS()
| ANY_VALUE(1) | BIN_TO_UUID(UUID_TO_BIN(UUID())) | INET_ATON('1.2.3.4') | INET_NTOA(1) | INET6_ATON('::1')
| INET6_NTOA(INET6_ATON('::1')) | IS_IPV4('1.2.3.4') | IS_IPV4_COMPAT(INET6_ATON('::1.2.3.4'))
| IS_IPV4_MAPPED(INET6_ATON('::ffff:1.2.3.4')) | IS_IPV6('::1') | IS_UUID(UUID()) | NAME_CONST('a', 1) | SLEEP(0)
| UUID() | UUID_SHORT() | UUID_TO_BIN(UUID())
| BIT_COUNT(7)
| JSON_ARRAY(1) | JSON_ARRAY_APPEND('[]','$',1) | JSON_ARRAY_INSERT('[]','$[0]',1) | JSON_CONTAINS('[1]','1')
| JSON_CONTAINS_PATH('[1]','one','$[0]') | JSON_DEPTH('[]') | JSON_EXTRACT('[1]','$[0]') | JSON_INSERT('{}','$.a',1)
| JSON_KEYS('{}') | JSON_LENGTH('[]') | JSON_MERGE('[1]','[2]') | JSON_MERGE_PATCH('{}','{}') | JSON_MERGE_PRESERVE('[1]','[2]')
| JSON_OBJECT('a',1) | JSON_OVERLAPS('[1]','[1]') | JSON_PRETTY('[]') | JSON_QUOTE('a') | JSON_REMOVE('[1]','$[0]')
| JSON_REPLACE('[1]','$[0]',2) | JSON_SEARCH('["a"]','one','a') | JSON_SET('[1]','$[0]',2) | JSON_STORAGE_FREE('[]')
| JSON_STORAGE_SIZE('[]') | JSON_TYPE('[]') | JSON_UNQUOTE('"a"') | JSON_VALID('[]') | JSON_VALUE('[1]','$[0]')
| FORMAT_BYTES(1) | FORMAT_PICO_TIME(1) | PS_CURRENT_THREAD_ID() | PS_THREAD_ID(CONNECTION_ID())
| GTID_SUBSET('','') | GTID_SUBTRACT('','') | MASTER_POS_WAIT('log', 4) | SOURCE_POS_WAIT('log', 4)
"""


@pytest.mark.parametrize("expr", [e.strip() for e in SMOKE.split("|") if e.strip()])
def test_every_implemented_function_is_callable(server, expr):
    c = server.connect()
    q(c, "CREATE DATABASE IF NOT EXISTS e2e_fn_smoke")
    q(c, "USE e2e_fn_smoke")
    q(c, "SELECT " + expr)
