-- Virtual and stored generated columns next to ordinary ones.
CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20),
                v INT AS (a * 2) VIRTUAL, s VARCHAR(30) AS (CONCAT(b, '!')) STORED,
                vb VARCHAR(40) AS (REPEAT(b, 2)) VIRTUAL);
INSERT INTO t (id, a, b) VALUES (1, 1, 'one'), (2, NULL, NULL);
UPDATE t SET a = 10, b = 'ten' WHERE id = 1;
DELETE FROM t WHERE id = 2;
