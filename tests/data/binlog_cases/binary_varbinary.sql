-- BINARY and VARBINARY with every byte value, zero padding, and one- and two-byte lengths.
CREATE TABLE t (id INT PRIMARY KEY, b1 BINARY(1), b16 BINARY(16), b255 BINARY(255),
                vb VARBINARY(255), vb2 VARBINARY(1000));
INSERT INTO t VALUES (1, '', '', '', '', '');
INSERT INTO t VALUES (2, 0x00, 0x000102030405060708090A0B0C0D0E0F, 0xFF, 0x00, 0x0000);
INSERT INTO t SELECT 3, 0xFF, UNHEX(REPEAT('FF', 16)), (SELECT UNHEX(GROUP_CONCAT(LPAD(HEX(seq), 2, '0') SEPARATOR '')) FROM seq_0_to_254),
  (SELECT UNHEX(GROUP_CONCAT(LPAD(HEX(seq), 2, '0') SEPARATOR '')) FROM seq_0_to_254),
  (SELECT UNHEX(GROUP_CONCAT(LPAD(HEX(seq % 256), 2, '0') SEPARATOR '')) FROM seq_0_to_999);
INSERT INTO t VALUES (4, 'a', 'abc', 'trailing zeros are padding', 'x\0y', 0x5C27220A0D09);
UPDATE t SET vb = 0x80, b16 = 0x7F WHERE id = 4;
DELETE FROM t WHERE id = 1;
