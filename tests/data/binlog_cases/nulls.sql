-- NULL in every position: all NULL, alternating (null bitmaps over 8 and 16 columns), and
-- updates between NULL and values.
CREATE TABLE t (id INT PRIMARY KEY, c1 INT, c2 VARCHAR(10), c3 DOUBLE, c4 DATETIME(3), c5 BLOB,
                c6 DECIMAL(10,2), c7 BIT(5), c8 ENUM('a','b'), c9 TIME, c10 CHAR(3), c11 BIGINT,
                c12 TEXT, c13 DATE, c14 FLOAT, c15 TINYINT, c16 SET('x','y'), c17 YEAR);
INSERT INTO t (id) VALUES (1);
INSERT INTO t VALUES (2, 1, NULL, 3, NULL, 'b', NULL, 7, NULL, '01:00', NULL, 11, NULL,
  '2020-01-01', NULL, 15, NULL, 2017);
INSERT INTO t VALUES (3, NULL, 'v', NULL, '2020-01-01 00:00:00.5', NULL, 6.5, NULL, 'a', NULL,
  'c', NULL, 'text', NULL, 1.5, NULL, 'x,y', NULL);
UPDATE t SET c1 = 1, c2 = 'now', c17 = 2000 WHERE id = 1;
UPDATE t SET c1 = NULL, c5 = NULL, c11 = NULL WHERE id = 2;
DELETE FROM t WHERE id = 3;
