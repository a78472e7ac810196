-- YEAR and DATE: the range ends, the zero values (allowed with sql_mode=''), and partial zeros.
SET SESSION sql_mode = '';
CREATE TABLE t (id INT PRIMARY KEY, y YEAR, d DATE);
INSERT INTO t VALUES (1, 1901, '1000-01-01'), (2, 2155, '9999-12-31'), (3, 0, '0000-00-00');
INSERT INTO t VALUES (4, 2000, '2024-02-29'), (5, 1970, '1970-01-01'), (6, 69, '2000-00-00');
INSERT INTO t VALUES (7, 70, '2001-01-00'), (8, NULL, NULL);
UPDATE t SET d = d + INTERVAL 1 DAY WHERE id IN (1, 4);
DELETE FROM t WHERE id = 3;
