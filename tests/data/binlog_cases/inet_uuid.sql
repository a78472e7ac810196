-- MariaDB's own data types INET4, INET6 and UUID (fixed-size binary in the binlog).
CREATE TABLE t (id INT PRIMARY KEY, a4 INET4, a6 INET6, u UUID);
INSERT INTO t VALUES (1, '0.0.0.0', '::', '00000000-0000-0000-0000-000000000000');
INSERT INTO t VALUES (2, '255.255.255.255', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ffffffff-ffff-ffff-ffff-ffffffffffff');
INSERT INTO t VALUES (3, '192.168.1.10', '::ffff:192.168.1.10', '123e4567-e89b-12d3-a456-426614174000');
INSERT INTO t VALUES (4, NULL, '2001:db8::1', '6ccd780c-baba-1026-9564-5b8c656024db');
UPDATE t SET a6 = '::1' WHERE id = 3;
DELETE FROM t WHERE id = 1;
