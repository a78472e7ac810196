-- ENUM (1- and 2-byte indexes) and SET (1-, 2- and 8-byte bitmaps), including the empty and
-- invalid values sql_mode='' lets through.
SET SESSION sql_mode = '';
SET SESSION group_concat_max_len = 1000000;
SET @members = (SELECT GROUP_CONCAT(CONCAT('''m', seq, '''')) FROM seq_1_to_300);
SET @ddl = CONCAT('CREATE TABLE t (id INT PRIMARY KEY, e ENUM(''a'',''b'',''c''), ',
  'e300 ENUM(', @members, '), s SET(''x'',''y'',''z''), ',
  's9 SET(''a'',''b'',''c'',''d'',''e'',''f'',''g'',''h'',''i''), ',
  's64 SET(', (SELECT GROUP_CONCAT(CONCAT('''s', seq, '''')) FROM seq_1_to_64), '))');
PREPARE stmt FROM @ddl;
EXECUTE stmt;
INSERT INTO t VALUES (1, 'a', 'm1', '', '', '');
INSERT INTO t VALUES (2, 'c', 'm300', 'x,y,z', 'a,i', 's1,s64');
INSERT INTO t VALUES (3, '', 'm256', 'z', 'h,i', 's1,s2,s3,s32,s33,s63,s64');
INSERT INTO t VALUES (4, 'bogus', 'm255', 'y', 'i', 's8,s9,s16,s17,s24,s25,s40,s48,s56'), (5, NULL, NULL, NULL, NULL, NULL);
UPDATE t SET e = 'b', s64 = '' WHERE id IN (2, 3);
DELETE FROM t WHERE id = 1;
