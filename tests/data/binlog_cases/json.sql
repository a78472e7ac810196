-- JSON, which MariaDB stores as LONGTEXT with a check: objects, arrays, unicode, escapes.
CREATE TABLE t (id INT PRIMARY KEY, j JSON);
INSERT INTO t VALUES (1, '{}'), (2, '[]'), (3, 'null'), (4, NULL), (5, '"string"'), (6, '-1.5e10');
INSERT INTO t VALUES (7, '{"a": 1, "b": [true, false, null], "c": {"d": "é😀", "e": "quote\\"back\\\\slash"}}');
INSERT INTO t VALUES (8, JSON_OBJECT('big', 18446744073709551615, 'neg', -9223372036854775808, 'f', 0.1));
UPDATE t SET j = JSON_SET(j, '$.a', 2) WHERE id = 7;
DELETE FROM t WHERE id = 3;
