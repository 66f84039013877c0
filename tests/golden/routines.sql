-- Golden script run through the mariadb CLI: stored routines defined with DELIMITER, as the
-- reference articles write them (the ordered-UUID function, the benchmark harness shape: a
-- procedure inserting random rows per call, a looping procedure timing each batch).
DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION `ordered_uuid`(uuid BINARY(36))
RETURNS binary(16) DETERMINISTIC
RETURN UNHEX(CONCAT(SUBSTR(uuid, 15, 4),SUBSTR(uuid, 10, 4),SUBSTR(uuid, 1, 8),SUBSTR(uuid, 20, 4),SUBSTR(uuid, 25)));
//
DELIMITER ;
CREATE TABLE uuid_test (id BINARY(16) NOT NULL PRIMARY KEY, payload VARCHAR(20));
INSERT INTO uuid_test VALUES (ordered_uuid('58e0a7d7-eebc-11d8-9669-0800200c9a66'), 'known');
INSERT INTO uuid_test VALUES (ordered_uuid(uuid()), 'random'), (ordered_uuid(uuid()), 'random');
SELECT HEX(id), payload FROM uuid_test WHERE payload = 'known';
SELECT payload, COUNT(*) FROM uuid_test GROUP BY payload ORDER BY payload;
SHOW CREATE FUNCTION ordered_uuid;
CREATE TABLE bench (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(32));
CREATE TABLE timings (batch INT, rows_after INT, took DOUBLE);
DELIMITER //
CREATE PROCEDURE insert_batch(IN n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < n DO
    INSERT INTO bench (a, b) VALUES (FLOOR(RAND() * 1000000), MD5(RAND()));
    SET i = i + 1;
  END WHILE;
END//
CREATE PROCEDURE run_batches(IN batches INT, IN per_batch INT)
BEGIN
  DECLARE k INT DEFAULT 0;
  DECLARE t0 DATETIME(6);
  WHILE k < batches DO
    SET t0 = NOW(6);
    CALL insert_batch(per_batch);
    SET k = k + 1;
    INSERT INTO timings VALUES (k, (SELECT COUNT(*) FROM bench), TIMESTAMPDIFF(MICROSECOND, t0, NOW(6)) / 1e6);
  END WHILE;
  SELECT COUNT(*) AS batches_timed FROM timings;
END//
DELIMITER ;
CALL run_batches(4, 250);
SELECT batch, rows_after, took >= 0 AS timed FROM timings ORDER BY batch;
SELECT COUNT(*), COUNT(DISTINCT b) > 900 FROM bench;
SHOW CREATE PROCEDURE insert_batch;
CALL insert_batch();
CALL no_such_procedure(1);
DROP PROCEDURE run_batches;
DROP PROCEDURE IF EXISTS run_batches;
SHOW WARNINGS;
