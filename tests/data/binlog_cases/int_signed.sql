-- Signed integers of every width at their limits, zero and -1.
CREATE TABLE t (id INT PRIMARY KEY, ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, b BOOL);
INSERT INTO t VALUES (1, -128, -32768, -8388608, -2147483648, -9223372036854775808, 0);
INSERT INTO t VALUES (2, 127, 32767, 8388607, 2147483647, 9223372036854775807, 1);
INSERT INTO t VALUES (3, 0, 0, 0, 0, 0, 0), (4, -1, -1, -1, -1, -1, -1);
UPDATE t SET ti = ti - 1, si = si - 1, mi = mi - 1, i = i - 1, bi = bi - 1 WHERE id = 3;
DELETE FROM t WHERE id = 1;
