-- TIME, DATETIME and TIMESTAMP in MariaDB's pre-10.1 storage formats (tables created with
-- mysql56_temporal_format=OFF, as upgraded servers still have): binlog types 11, 12 and 7 instead
-- of TIME2/DATETIME2/TIMESTAMP2. Only precision 0: mariadb-binlog 10.11 cannot print the old
-- fractional formats (it exits 1), so those need rowbridge's own unit tests instead.
SET SESSION sql_mode = '';
SET SESSION time_zone = '+00:00';
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE t (id INT PRIMARY KEY, t0 TIME, d0 DATETIME, s0 TIMESTAMP NULL);
SET GLOBAL mysql56_temporal_format = ON;
INSERT INTO t VALUES (1, '838:59:59', '9999-12-31 23:59:59', '2038-01-19 03:14:07');
INSERT INTO t VALUES (2, '-838:59:59', '1000-01-01 00:00:00', '1970-01-01 00:00:01');
INSERT INTO t VALUES (3, '-00:00:01', '0000-00-00 00:00:00', 0), (4, NULL, NULL, NULL);
INSERT INTO t VALUES (5, '12:34:56', '2024-02-29 12:34:56', '2001-09-09 01:46:40');
UPDATE t SET t0 = '-12:00:00', d0 = '2000-00-00 00:00:00' WHERE id = 5;
DELETE FROM t WHERE id = 3;
