-- Statements touching thousands of rows: one statement becomes several row events.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40), n BIGINT);
INSERT INTO t VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3);
INSERT INTO t SELECT seq, CONCAT('row ', seq, ' ', REPEAT('p', seq % 20)), seq * seq FROM seq_4_to_3000;
UPDATE t SET n = -n WHERE id % 3 = 0;
DELETE FROM t WHERE id > 2000;
