-- Updates that leave BLOB/TEXT columns alone or change only them: with binlog_row_image=NOBLOB the
-- unchanged blobs are left out; with MINIMAL only the key and the changed columns are kept.
CREATE TABLE t (id INT PRIMARY KEY, n INT, b BLOB, t TEXT, j JSON);
INSERT INTO t VALUES (1, 1, 'blob', 'text', '{"k": 1}'), (2, 2, NULL, 'text2', NULL);
UPDATE t SET n = n + 1;
UPDATE t SET b = 'new blob' WHERE id = 1;
UPDATE t SET t = NULL, j = '[1]' WHERE id = 2;
DELETE FROM t WHERE id = 1;
