-- Row events from InnoDB, MyISAM and Aria tables, a multi-statement transaction, a rolled-back
-- one (absent from the binlog), and a savepoint.
CREATE TABLE i (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE = InnoDB;
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE = MyISAM;
CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE = Aria;
START TRANSACTION; INSERT INTO i VALUES (1, 'i1'); UPDATE i SET v = 'i1b' WHERE id = 1; INSERT INTO i VALUES (2, 'i2'); COMMIT;
START TRANSACTION; INSERT INTO i VALUES (3, 'gone'); ROLLBACK;
START TRANSACTION; INSERT INTO i VALUES (4, 'kept'); SAVEPOINT s; INSERT INTO i VALUES (5, 'undone'); ROLLBACK TO SAVEPOINT s; COMMIT;
INSERT INTO m VALUES (1, 'm1'), (2, 'm2');
INSERT INTO a VALUES (1, 'a1');
UPDATE m SET v = 'm2b' WHERE id = 2;
DELETE FROM a;
