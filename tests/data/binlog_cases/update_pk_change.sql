-- Updates that change the primary key (the before image is the only way to find the old row),
-- composite keys, and deletes of many rows.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
CREATE TABLE c (a INT, b VARCHAR(5), v INT, PRIMARY KEY (b, a));
INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO c VALUES (1, 'x', 10), (2, 'x', 20), (1, 'y', 30);
UPDATE t SET id = id + 100 ORDER BY id DESC;
UPDATE t SET id = 7, v = 'seven' WHERE id = 101;
UPDATE c SET b = CONCAT(b, 'z'), v = v + 1 WHERE a = 1;
DELETE FROM c;
DELETE FROM t WHERE id > 100;
