-- Tables without a primary key (all columns identify a row) and with only a unique key: what
-- MINIMAL and NOBLOB images keep differs from keyed tables.
CREATE TABLE t (a INT, b VARCHAR(10), c BLOB);
CREATE TABLE u (a INT NOT NULL, b VARCHAR(10), c TEXT, UNIQUE KEY (a));
INSERT INTO t VALUES (1, 'x', 'blob1'), (1, 'x', 'blob1'), (2, NULL, NULL);
INSERT INTO u VALUES (1, 'x', 'text1'), (2, 'y', NULL);
UPDATE t SET b = 'changed' WHERE a = 1 LIMIT 1;
UPDATE u SET b = 'changed' WHERE a = 2;
DELETE FROM t WHERE a = 2;
DELETE FROM u WHERE a = 1;
