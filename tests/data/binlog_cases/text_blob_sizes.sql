-- Every TEXT and BLOB size, empty and at the largest length of the smaller ones (1-4 byte lengths).
CREATE TABLE t (id INT PRIMARY KEY, tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
                tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB);
INSERT INTO t VALUES (1, '', '', '', '', '', '', '', '');
INSERT INTO t VALUES (2, REPEAT('t', 255), REPEAT('x', 65535), REPEAT('m', 70000), REPEAT('l', 70000),
  REPEAT(0xAB, 255), REPEAT(0x00, 65535), REPEAT(0xCD, 70000), REPEAT(0xEF, 70000));
INSERT INTO t VALUES (3, 'ü', '😀', 'text', 'more text', 0x00, 0xFF, 0x0102, 0x5C6E);
INSERT INTO t VALUES (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t SET tx = 'changed', bl = 0xBEEF WHERE id = 3;
DELETE FROM t WHERE id = 2;
