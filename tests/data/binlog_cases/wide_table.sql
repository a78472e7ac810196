-- A table with 1000 columns of mixed types: column counts and bitmaps past one byte of length.
SET SESSION group_concat_max_len = 1000000;
SET @cols = (SELECT GROUP_CONCAT(CONCAT('c', seq, ' ',
  ELT(seq % 5 + 1, 'TINYINT', 'INT NULL', 'VARCHAR(3)', 'DOUBLE', 'DATE')) ORDER BY seq)
  FROM seq_1_to_999);
SET @ddl = CONCAT('CREATE TABLE t (id INT PRIMARY KEY, ', @cols, ')');
PREPARE stmt FROM @ddl;
EXECUTE stmt;
INSERT INTO t (id) VALUES (1);
SET @vals = (SELECT GROUP_CONCAT(ELT(seq % 5 + 1, seq % 128, IF(seq % 3 = 0, 'NULL', seq),
  CONCAT('''', seq % 1000, ''''), seq / 7, '''2024-01-02''') ORDER BY seq) FROM seq_1_to_999);
SET @ins = CONCAT('INSERT INTO t VALUES (2, ', @vals, ')');
PREPARE stmt FROM @ins;
EXECUTE stmt;
UPDATE t SET c502 = 'new', c999 = '1999-12-31' WHERE id = 2;
DELETE FROM t WHERE id = 1;
