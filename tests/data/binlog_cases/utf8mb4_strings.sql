-- Multibyte text: CHAR columns whose byte width crosses 255 (utf8mb4 CHAR(63)/CHAR(64)/CHAR(255)),
-- 4-byte characters, combining marks, and other character sets (utf16, ucs2, utf8mb3, cp1251).
CREATE TABLE t (id INT PRIMARY KEY, c63 CHAR(63) CHARACTER SET utf8mb4, c64 CHAR(64) CHARACTER SET utf8mb4,
                c255 CHAR(255) CHARACTER SET utf8mb4, v VARCHAR(100) CHARACTER SET utf8mb4,
                u16 CHAR(10) CHARACTER SET utf16, ucs VARCHAR(10) CHARACTER SET ucs2,
                u3 CHAR(10) CHARACTER SET utf8mb3, cyr VARCHAR(10) CHARACTER SET cp1251);
INSERT INTO t VALUES (1, 'ascii', 'ascii', 'ascii', 'ascii', 'ascii', 'ascii', 'ascii', 'ascii');
INSERT INTO t VALUES (2, '😀', REPEAT('😀', 64), REPEAT('€', 255), 'Grüße, 世界! 🎉', '😀€',
  'Ωmega', 'ñandú', 'Привет');
INSERT INTO t VALUES (3, REPEAT('𝄞', 63), 'ﬁ', REPEAT('ß', 255), 'a̐éö̲', '', '', '', '');
INSERT INTO t VALUES (4, 'é', 'é', 'é', CONCAT('e', _utf8mb4 0xCC81), 'é', 'é', 'é', 'ё');
UPDATE t SET v = '더 많은 텍스트', c64 = REPEAT('ü', 64) WHERE id = 2;
DELETE FROM t WHERE id = 1;
