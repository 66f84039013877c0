CREATE TABLE p (a INT, b INT, u INT, PRIMARY KEY (a, b), UNIQUE KEY uu (u));
CREATE TABLE c (id INT PRIMARY KEY, x INT, y INT, z INT, w INT,
  CONSTRAINT fkc FOREIGN KEY (x, y) REFERENCES p (a, b) ON DELETE RESTRICT ON UPDATE NO ACTION,
  FOREIGN KEY (z) REFERENCES p (u) ON DELETE SET NULL,
  KEY kw (w, id),
  FOREIGN KEY (w) REFERENCES p (u) ON DELETE CASCADE ON UPDATE CASCADE);
SHOW CREATE TABLE c;
SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, MATCH_OPTION, UPDATE_RULE, DELETE_RULE, TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY CONSTRAINT_NAME;
SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION, POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'c' ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION;
SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'c' ORDER BY CONSTRAINT_NAME;
-- errors: missing parent, missing parent column, missing own column, column count, duplicate name
CREATE TABLE bad (id INT, FOREIGN KEY (id) REFERENCES nope (id));
CREATE TABLE bad (id INT, FOREIGN KEY (id) REFERENCES p (nope));
CREATE TABLE bad (id INT, FOREIGN KEY (nope) REFERENCES p (a));
CREATE TABLE bad (id INT, FOREIGN KEY (id) REFERENCES p (a, b));
CREATE TABLE bad (id INT, CONSTRAINT f1 FOREIGN KEY (id) REFERENCES p (u), CONSTRAINT f1 FOREIGN KEY (id) REFERENCES p (u));
-- a self reference, and foreign_key_checks=0 for a parent that does not exist yet (as dumps do)
CREATE TABLE tree (id INT PRIMARY KEY, parent INT, FOREIGN KEY (parent) REFERENCES tree (id));
SET foreign_key_checks = 0;
CREATE TABLE early (id INT PRIMARY KEY, l INT, CONSTRAINT early_late FOREIGN KEY (l) REFERENCES late (id));
SET foreign_key_checks = 1;
SHOW CREATE TABLE tree;
SHOW CREATE TABLE early;
-- ALTER TABLE ADD / DROP FOREIGN KEY (enforced: crates/sql/golden/foreign_keys.test has the rules)
ALTER TABLE tree ADD COLUMN other INT, ADD CONSTRAINT fk_other FOREIGN KEY (other) REFERENCES p (u);
ALTER TABLE tree DROP FOREIGN KEY tree_ibfk_1;
ALTER TABLE tree DROP FOREIGN KEY nope;
ALTER TABLE tree ADD FOREIGN KEY (parent) REFERENCES tree (id);
SHOW CREATE TABLE tree;
ALTER TABLE tree DROP CONSTRAINT fk_other;
SHOW CREATE TABLE tree;
-- FOREIGN KEY columns follow a rename (both sides of a self reference); dropping one is refused
ALTER TABLE tree RENAME COLUMN parent TO up, CHANGE id node INT NOT NULL;
SHOW CREATE TABLE tree;
ALTER TABLE tree DROP COLUMN up;
INSERT INTO c (id, x, y) VALUES (1, 5, 5);
SELECT * FROM c;
-- three-part column names over INFORMATION_SCHEMA in any letter case (SQLAlchemy reflection)
SELECT information_schema.columns.column_name FROM information_schema.columns WHERE information_schema.columns.table_schema = DATABASE() AND INFORMATION_SCHEMA.Columns.TABLE_NAME = 'p' ORDER BY 1;
SELECT Columns.column_name FROM information_schema.COLUMNS WHERE COLUMNS.table_schema = DATABASE() AND columns.table_name = 'p' ORDER BY 1;
DROP TABLE c, tree, early, p;
