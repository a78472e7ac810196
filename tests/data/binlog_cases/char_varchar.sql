-- CHAR and VARCHAR in latin1 and utf8mb4: empty, trailing spaces, one- and two-byte lengths.
CREATE TABLE t (id INT PRIMARY KEY, c1 CHAR(1) CHARACTER SET latin1, c255 CHAR(255) CHARACTER SET latin1,
                v0 VARCHAR(0), v255 VARCHAR(255) CHARACTER SET latin1, v256 VARCHAR(256) CHARACTER SET latin1,
                v63 VARCHAR(63), v64 VARCHAR(64), v5000 VARCHAR(5000));
INSERT INTO t VALUES (1, '', '', '', '', '', '', '', '');
INSERT INTO t VALUES (2, 'x', REPEAT('c', 255), '', REPEAT('v', 255), REPEAT('w', 256),
  REPEAT('é', 63), REPEAT('é', 64), REPEAT('z', 5000));
INSERT INTO t VALUES (3, ' ', 'trailing   ', NULL, 'trailing   ', ' lead', 'tab	in', 'a''quote',
  'back\\slash');
INSERT INTO t VALUES (4, 'é', CONCAT('caf', _latin1 0xE9), '', _latin1 0xFF, _latin1 0x80,
  'new\nline', 'nul\0byte', 'ctrl\Zchar');
UPDATE t SET v5000 = REPEAT('y', 4999), c1 = 'q' WHERE id = 2;
DELETE FROM t WHERE id = 1;
