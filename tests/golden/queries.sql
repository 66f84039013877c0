-- Golden script for the query surface: joins, subqueries, set operations, CTEs, views,
-- window functions, CREATE TABLE ... SELECT / LIKE. Cross-checked against MariaDB 10.11
-- (differences are listed in docs/compatibility.md).
CREATE TABLE dept (id INT PRIMARY KEY, name VARCHAR(20));
CREATE TABLE emp (id INT PRIMARY KEY, dept_id INT, name VARCHAR(20), salary DECIMAL(8,2), boss INT, KEY dept_id (dept_id));
INSERT INTO dept VALUES (1, 'eng'), (2, 'ops'), (3, 'empty');
INSERT INTO emp VALUES (1, 1, 'ada', 300.00, NULL), (2, 1, 'bob', 200.00, 1), (3, 2, 'cy', 150.00, 1), (4, 2, 'di', 150.00, 3), (5, NULL, 'eve', 100.00, 3);
-- joins
SELECT e.name, d.name FROM emp e JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT d.name, e.name FROM dept d LEFT JOIN emp e ON e.dept_id = d.id ORDER BY d.id, e.id;
SELECT e.name, d.name FROM dept d RIGHT JOIN emp e ON e.dept_id = d.id ORDER BY e.id;
SELECT COUNT(*) FROM emp CROSS JOIN dept;
SELECT e.name, b.name AS boss FROM emp e LEFT JOIN emp b ON b.id = e.boss ORDER BY e.id;
SELECT STRAIGHT_JOIN e.name FROM emp e, dept d WHERE d.id = e.dept_id AND d.name = 'ops' ORDER BY e.name;
SELECT e.*, d.name FROM emp e JOIN dept d ON d.id = e.dept_id WHERE e.id BETWEEN 2 AND 3 ORDER BY e.id;
SELECT dept.* FROM dept WHERE id < 3;
SELECT nope.* FROM dept;
SELECT SQL_CALC_FOUND_ROWS id FROM dept ORDER BY id LIMIT 1;
SELECT FOUND_ROWS();
-- subqueries
SELECT name FROM emp WHERE salary = (SELECT MAX(salary) FROM emp);
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE name <> 'eng') ORDER BY name;
SELECT name FROM dept WHERE NOT EXISTS (SELECT 1 FROM emp WHERE emp.dept_id = dept.id);
SELECT name, (SELECT COUNT(*) FROM emp e2 WHERE e2.salary > e1.salary) AS richer FROM emp e1 ORDER BY id;
SELECT 3 IN (SELECT dept_id FROM emp), 3 NOT IN (SELECT dept_id FROM emp), 1 IN (SELECT dept_id FROM emp);
SELECT d.name, t.total FROM dept d JOIN (SELECT dept_id, SUM(salary) AS total FROM emp GROUP BY dept_id) AS t ON t.dept_id = d.id ORDER BY d.id;
SELECT (SELECT name FROM emp);
-- set operations
SELECT dept_id FROM emp UNION SELECT id FROM dept ORDER BY 1;
SELECT dept_id FROM emp UNION ALL SELECT id FROM dept ORDER BY 1 LIMIT 4;
SELECT id FROM dept EXCEPT SELECT dept_id FROM emp;
SELECT id FROM dept INTERSECT SELECT dept_id FROM emp ORDER BY id;
(SELECT name FROM emp ORDER BY salary DESC LIMIT 2) UNION (SELECT name FROM dept WHERE id = 3) ORDER BY name;
SELECT 1 UNION SELECT 1, 2;
-- common table expressions
WITH big AS (SELECT * FROM emp WHERE salary >= 150) SELECT COUNT(*), SUM(salary) FROM big;
WITH RECURSIVE chain (id, name, depth) AS (SELECT id, name, 0 FROM emp WHERE boss IS NULL UNION ALL SELECT e.id, e.name, c.depth + 1 FROM emp e JOIN chain c ON e.boss = c.id) SELECT * FROM chain ORDER BY depth, id;
WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT SUM(i), COUNT(*) FROM n;
-- views
CREATE VIEW payroll AS SELECT d.name AS dept, SUM(e.salary) AS total, COUNT(*) AS heads FROM emp e JOIN dept d ON d.id = e.dept_id GROUP BY d.name;
SELECT * FROM payroll ORDER BY dept;
SELECT dept FROM payroll WHERE total > 250;
SHOW FULL TABLES;
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
INSERT INTO payroll VALUES ('x', 1, 1);
DROP TABLE payroll;
DROP VIEW payroll;
DROP VIEW IF EXISTS payroll;
-- window functions
SELECT name, dept_id, salary, ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) AS rn, RANK() OVER (ORDER BY salary DESC) AS rk, DENSE_RANK() OVER (ORDER BY salary DESC) AS drk FROM emp ORDER BY id;
SELECT name, salary, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS pair, LAG(name) OVER (ORDER BY id) AS prev, LEAD(name, 2) OVER (ORDER BY id) AS next2 FROM emp ORDER BY id;
SELECT dept_id, SUM(salary) AS s, RANK() OVER (ORDER BY SUM(salary) DESC) AS r FROM emp GROUP BY dept_id ORDER BY dept_id;
-- CREATE TABLE ... SELECT / LIKE
CREATE TABLE rich AS SELECT id, name, salary FROM emp WHERE salary > 150;
SELECT * FROM rich ORDER BY id;
CREATE TABLE emp2 LIKE emp;
SHOW CREATE TABLE emp2;
SELECT COUNT(*) FROM emp2;
-- subqueries in DML
UPDATE emp SET salary = salary + 1 WHERE dept_id = (SELECT id FROM dept WHERE name = 'ops');
DELETE FROM emp WHERE id IN (SELECT id FROM rich);
SELECT id, salary FROM emp ORDER BY id;
-- more query forms: ROLLUP, named windows, GROUP_CONCAT ORDER BY, ANY / ALL, row IN, multi-table UPDATE
SELECT dept_id, COUNT(*), SUM(salary) FROM emp GROUP BY dept_id WITH ROLLUP;
SELECT name, SUM(salary) OVER w AS running FROM emp WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT dept_id, GROUP_CONCAT(name ORDER BY salary DESC, name SEPARATOR '/') FROM emp GROUP BY dept_id ORDER BY dept_id;
SELECT name FROM emp WHERE salary > ALL (SELECT salary FROM emp WHERE dept_id = 2) ORDER BY name;
SELECT name FROM emp WHERE salary = ANY (SELECT salary FROM emp WHERE boss = 3) ORDER BY name;
SELECT name FROM emp WHERE (dept_id, salary) IN (SELECT dept_id, MAX(salary) FROM emp GROUP BY dept_id) ORDER BY name;
UPDATE emp e JOIN dept d ON d.id = e.dept_id SET e.salary = e.salary * 2 WHERE d.name = 'eng';
SELECT id, salary FROM emp ORDER BY id;
SELECT DATE('2020-01-31') + INTERVAL 1 MONTH, INTERVAL(5, 1, 9);
