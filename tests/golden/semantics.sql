-- Golden script for types and semantics: sql_mode decisions (errors vs warnings), numeric
-- overflow, DECIMAL arithmetic, implicit conversions, collations, BIT/SET/JSON storage, and
-- catalog introspection. Cross-checked against MariaDB 10.11 (differences in docs/compatibility.md).
SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,ONLY_FULL_GROUP_BY';
CREATE TABLE n (i TINYINT, u TINYINT UNSIGNED, d DECIMAL(6,2), f DOUBLE, s VARCHAR(4), dt DATE);
INSERT INTO n (i) VALUES (200);
INSERT INTO n (u) VALUES (-1);
INSERT INTO n (d) VALUES (12345.678);
INSERT INTO n (s) VALUES ('abcdef');
INSERT INTO n (dt) VALUES ('0000-00-00');
INSERT INTO n (dt) VALUES ('2024-02-30');
INSERT INTO n (i, d) VALUES (1 / 0, 1);
INSERT INTO n (i, u, d, f, s, dt) VALUES (-128, 255, 9999.99, 1e308, 'abcd', '2024-02-29');
SELECT * FROM n;
SET sql_mode = '';
INSERT INTO n (i, u, d, s, dt) VALUES (200, -1, 12345.678, 'abcdef', '2024-02-30');
SHOW WARNINGS;
SELECT * FROM n ORDER BY i;
SET sql_mode = DEFAULT;
-- arithmetic and overflow
SELECT 9223372036854775807 + 1;
SELECT -9223372036854775808 - 1;
SELECT CAST(18446744073709551615 AS UNSIGNED) + 1;
SELECT 1.10 + 2.205, 10 / 4, 10 DIV 4, -7 % 3, 2.5 * 1.25, 1 / 4 * 4;
SELECT ROUND(2.5), ROUND(-2.5), ROUND(1.2345, 2), TRUNCATE(1.999, 1), ROUND(15, -1), CEIL(-1.5), FLOOR(-1.5);
SELECT 0.1 + 0.2 = 0.3, 1e0 / 3;
-- implicit conversions and comparisons
SELECT '10' = 10, '1e1' = 10, NULL = NULL, NULL <=> NULL, 2 BETWEEN 1 AND '3';
SELECT '2024-01-05' < '2024-01-10', CAST('2024-01-05' AS DATE) = '2024-01-05 00:00:00', 10 IN ('10', 'x');
-- collations
CREATE TABLE c (ci VARCHAR(10), cs VARCHAR(10) COLLATE utf8mb4_bin, l1 VARCHAR(10) CHARACTER SET latin1);
INSERT INTO c VALUES ('a', 'a', 'a'), ('A', 'A', 'A'), ('b', 'b', 'b'), ('B', 'B', 'B');
SELECT ci, COUNT(*) FROM c GROUP BY ci ORDER BY ci;
SELECT cs, COUNT(*) FROM c GROUP BY cs ORDER BY cs;
SELECT DISTINCT l1 FROM c ORDER BY l1;
SELECT 'a' = 'A', 'a' COLLATE utf8mb4_bin = 'A', 'a ' = 'a';
SELECT ci FROM c ORDER BY ci COLLATE utf8mb4_bin;
-- sql_mode flags
SELECT ci, cs FROM c GROUP BY ci;
SELECT cs, COUNT(*) FROM c;
SET sql_mode = 'PIPES_AS_CONCAT';
SELECT 'x' || 'y';
SET sql_mode = DEFAULT;
SELECT 0 || 0, 0 || 1;
SET sql_mode = 'ANSI_QUOTES';
SELECT "ci" FROM c WHERE "ci" = 'a';
SET sql_mode = DEFAULT;
-- BIT, SET, ENUM, JSON
CREATE TABLE t2 (b BIT(8), st SET('x','y','z'), e ENUM('lo','hi'), j JSON);
INSERT INTO t2 VALUES (b'101', 'z,x', 'hi', '{"a": [1, 2, {"b": null}], "c": "d"}');
SELECT b + 0, HEX(b), st, e, j FROM t2;
SELECT j->'$.a[1]', j->>'$.c', JSON_EXTRACT(j, '$.a[2].b'), JSON_TYPE(j->'$.a'), JSON_LENGTH(j), JSON_KEYS(j) FROM t2;
SELECT JSON_OBJECT('k', 1, 'l', JSON_ARRAY(1, 'two', NULL)), JSON_CONTAINS('[1, 2, 3]', '2'), JSON_UNQUOTE('"q"');
INSERT INTO t2 (e) VALUES ('mid');
-- introspection
SHOW COLUMNS FROM n;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'c' ORDER BY ORDINAL_POSITION;
SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
SHOW COLLATION LIKE 'utf8mb4_bin';
SELECT COLLATION_NAME FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE CHARACTER_SET_NAME = 'latin1' ORDER BY 1;
