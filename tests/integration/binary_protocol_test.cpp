// The binary protocol against a real MariaDB: prepared statements (prepare, execute, close,
// errors, early abandon) and, the proof of exactness, a table with every column type and edge
// values read both ways — text protocol with its exactness expressions (text_cell.h) and binary
// protocol (binary_cell.h) — giving byte-equal binlog cells, row by row.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "binlog/cell.h"
#include "common/error.h"
#include "mapping/binary_cell.h"
#include "mapping/text_cell.h"
#include "mysql/binary_row.h"
#include "mysql/connection.h"
#include "mysql/prepared_statement.h"
#include "mysql/sql_quote.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"
#include "tables/source_schema.h"

namespace rowbridge::mysql {
namespace {

using Rows = std::vector<std::vector<std::optional<std::string>>>;

std::unique_ptr<Connection> Connect() {
  auto c = Connection::Connect(testing::MysqlConnectOptions(testing::MysqlFromEnv()));
  c->Execute("SET SESSION time_zone = '+00:00'");
  c->Execute("SET SESSION character_set_results = binary");
  return c;
}

void AddCells(std::span<const binlog::Cell> cells, Rows& rows) {
  auto& row = rows.emplace_back();
  for (const binlog::Cell& c : cells) {
    if (c.is_null) {
      row.emplace_back();
    } else {
      row.emplace_back(std::string(reinterpret_cast<const char*>(c.data), c.size));
    }
  }
}

TEST(MysqlBinaryProtocol, PrepareExecuteAndClose) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto c = Connect();
  const std::string before =
      c->QueryValue("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").value_or("");
  {
    PreparedStatement s = PreparedStatement::Prepare(
        *c,
        "SELECT 1 AS one, NULL AS nothing, CAST(-4294967298 AS SIGNED) AS neg, 'x\\0y' AS bin, "
        "1.5e0 AS dbl, CAST('2024-02-29 01:02:03.5' AS DATETIME(1)) AS dtm");
    EXPECT_EQ(s.param_count(), 0u);
    ASSERT_EQ(s.columns().size(), 6u);
    EXPECT_EQ(s.columns()[0].name, "one");
    BinaryResultSet rs = s.Execute();
    ASSERT_EQ(rs.column_count(), 6u);
    ASSERT_TRUE(rs.Next());
    EXPECT_FALSE(rs.IsNull(0));
    EXPECT_TRUE(rs.IsNull(1));
    EXPECT_EQ(rs.columns()[2].type, 8);  // LONGLONG
    EXPECT_EQ(rs.Field(2), std::string("\xfe\xff\xff\xff\xfe\xff\xff\xff", 8));
    EXPECT_EQ(rs.Field(3), std::string_view("x\0y", 3));
    EXPECT_EQ(rs.Field(4), std::string("\0\0\0\0\0\0\xf8\x3f", 8));
    EXPECT_EQ(rs.Field(5), std::string("\xe8\x07\x02\x1d\x01\x02\x03\x20\xa1\x07\x00", 11));
    EXPECT_FALSE(rs.Next());
    // The statement runs again.
    BinaryResultSet again = s.Execute();
    EXPECT_TRUE(again.Next());
    EXPECT_FALSE(again.Next());
  }
  // Many statements, each closed: none left behind on the server.
  for (int i = 0; i < 50; ++i) {
    PreparedStatement s = PreparedStatement::Prepare(*c, "SELECT " + std::to_string(i));
    BinaryResultSet rs = s.Execute();
    ASSERT_TRUE(rs.Next());
    EXPECT_EQ(rs.Field(0).size(), BinaryFixedSize(rs.columns()[0].type));
  }
  EXPECT_EQ(c->QueryValue("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").value_or(""), before);
  c->Ping();
}

TEST(MysqlBinaryProtocol, ErrorsLeaveTheConnectionUsable) {
  ROWBRIDGE_REQUIRE_MYSQL();
  auto c = Connect();
  try {
    PreparedStatement::Prepare(*c, "SELECT nope FROM nowhere_at_all.t");
    FAIL() << "prepared a bad statement";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
  }
  EXPECT_EQ(c->QueryValue("SELECT 7"), "7");
  // A statement without a result set.
  {
    PreparedStatement s = PreparedStatement::Prepare(*c, "DO 1");
    BinaryResultSet rs = s.Execute();
    EXPECT_FALSE(rs.Next());
  }
  {
    PreparedStatement s = PreparedStatement::Prepare(*c, "SELECT ? + 1");
    EXPECT_EQ(s.param_count(), 1u);
    EXPECT_THROW(s.Execute(), Error);
  }
  // An error in the middle of the rows: the subquery returns two rows once n reaches 3.
  try {
    PreparedStatement s = PreparedStatement::Prepare(
        *c,
        "SELECT n, (SELECT 1 UNION SELECT 2 FROM DUAL WHERE q.n >= 3) FROM "
        "(WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) "
        "SELECT n FROM r) AS q");
    BinaryResultSet rs = s.Execute();
    while (rs.Next()) {
    }
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
  }
  EXPECT_EQ(c->QueryValue("SELECT 8"), "8");
  // Abandoning a result early reads the rest away.
  {
    PreparedStatement s = PreparedStatement::Prepare(
        *c,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) "
        "SELECT n, REPEAT('x', 100) FROM r");
    BinaryResultSet rs = s.Execute();
    ASSERT_TRUE(rs.Next());
  }
  EXPECT_EQ(c->QueryValue("SELECT 9"), "9");
}

TEST(MysqlBinaryProtocol, CellsEqualTheTextProtocolsForEveryType) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const testing::MysqlAddress server = testing::MysqlFromEnv();
  const std::string db = testing::UniqueName("binproto");
  testing::RunMysqlSql(server, "CREATE DATABASE " + db);
  testing::RunMysqlSql(server, R"sql(
SET SESSION sql_mode = '';
SET SESSION time_zone = '+00:00';
CREATE TABLE t (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  y YEAR, f FLOAT, f2 FLOAT(7,3), d DOUBLE, d2 DOUBLE(10,2),
  dec1 DECIMAL(10,2), dec2 DECIMAL(65,30), dec3 DECIMAL(5,5), dec4 DECIMAL(20,0),
  b1 BIT(1), b10 BIT(10), b64 BIT(64),
  e ENUM('a','b','c'), s SET('x','y','z'),
  dt DATE, dtm DATETIME, dtm6 DATETIME(6), dtm3 DATETIME(3),
  ts TIMESTAMP NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL,
  tm TIME, tm6 TIME(6), tm1 TIME(1),
  c CHAR(5), vc VARCHAR(20), bn BINARY(4), vb VARBINARY(10), tx TEXT, bl BLOB, js JSON,
  g POINT
) ENGINE=InnoDB;
INSERT INTO t VALUES
 (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
  1901, -3.4e38, -1234.567, -1.7976931348623157e308, -99999999.99,
  -12345678.90, -12345678901234567890123456789012345.123456789012345678901234567890, -0.12345,
  -99999999999999999999,
  b'0', b'0000000000', 0, 'a', '',
  '0000-00-00', '0000-00-00 00:00:00', '1000-01-01 00:00:00.000000', '2024-02-29 23:59:59.999',
  '0000-00-00 00:00:00', '1970-01-01 00:00:01.000001',
  '-838:59:59', '-838:59:58.999999', '-00:00:01.5',
  '', '', x'00000000', '', '', '', '{}', POINT(0, 0)),
 (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807,
  18446744073709551615,
  2155, 1.1, 1234.567, 1.7976931348623157e308, 99999999.99,
  99999999.99, 0.000000000000000000000000000001, 0.99999, 99999999999999999999,
  b'1', b'1111111111', 0xFFFFFFFFFFFFFFFF, 'c', 'x,y,z',
  '9999-12-31', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '2000-01-01 00:00:00.001',
  '2038-01-19 03:14:07', '2038-01-19 03:14:07.999999',
  '838:59:59', '100:00:00.5', '25:00:00.1',
  'héllo', 'wörld with spaces  ', 'ab', x'00ff00', 'text', x'00010203', '{"a": [1, 2.5, "x"]}',
  POINT(1.5, -2.25)),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 7.6899999999999995, 7.6899999999999995,
  0, 0, 0, 0, b'1', b'0000000001', b'1000000000000000000000000000000000000000000000000000000000000000',
  'b', 'y', '2020-00-15', '2024-01-02 03:04:05', '2024-01-02 03:04:05.000006',
  '2024-01-02 03:04:05.1', '1970-01-01 00:00:01', '2001-02-03 04:05:06.789',
  '-00:00:00.5', '-12:34:56.7891', '00:00:00.0',
  'a', 'b', 'abcd', 'z', 'long text', 'blob', '[]', POINT(-1, 1));
INSERT INTO t (id, f, f2, d, d2, dec1, dtm6, ts6, tm6, tm1, mi, miu)
SELECT n, RAND(n) * 1000 - 500, RAND(n + 1) * 1000, RAND(n + 2) * 1e6 - 5e5,
       RAND(n + 3) * 100, ROUND(RAND(n + 4) * 1e6, 2) - 5e5,
       FROM_UNIXTIME(RAND(n + 5) * 2e9 + RAND(n + 6)), FROM_UNIXTIME(RAND(n + 7) * 2e9 + RAND(n)),
       SEC_TO_TIME(RAND(n + 8) * 6e6 - 3e6), SEC_TO_TIME(RAND(n + 9) * 2e5 - 1e5),
       FLOOR(RAND(n) * 16777215) - 8388608, FLOOR(RAND(n + 1) * 16777215)
FROM (WITH RECURSIVE r(n) AS (SELECT 10 UNION ALL SELECT n + 1 FROM r WHERE n < 1009)
      SELECT n FROM r) AS q;
)sql",
                       db);

  auto admin = Connection::Connect(testing::MysqlConnectOptions(server));
  auto schema = tables::LoadSourceTableSchema(*admin, db, "t");
  ASSERT_TRUE(schema);
  const std::vector<binlog::ColumnDef>& columns = schema->columns;
  std::string text_list, binary_list;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string quoted = mysql::QuoteIdentifier(columns[i].name);
    text_list += (i ? ", " : "") + mapping::TextSelectExpression(columns[i], quoted);
    binary_list += (i ? ", " : "") + mapping::BinarySelectExpression(columns[i], quoted);
  }
  const std::string from = " FROM " + mysql::QuoteQualified(db, "t") + " ORDER BY id";

  auto c = Connect();
  Rows text_rows, binary_rows;
  {
    mapping::TextRowEncoder encoder(columns, db + ".t");
    ResultSet rs = c->Query("SELECT " + text_list + from);
    while (rs.Next()) AddCells(encoder.EncodeRow(rs), text_rows);
  }
  {
    mapping::BinaryRowEncoder encoder(columns, db + ".t");
    PreparedStatement s = PreparedStatement::Prepare(*c, "SELECT " + binary_list + from);
    BinaryResultSet rs = s.Execute();
    std::vector<mapping::WireColumn> wire;
    for (const ColumnDefinition& d : rs.columns())
      wire.push_back({d.type, (d.flags & kUnsignedFlag) != 0});
    encoder.Bind(wire);
    while (rs.Next()) AddCells(encoder.EncodeRow(rs), binary_rows);
  }
  ASSERT_EQ(text_rows.size(), 1004u);
  ASSERT_EQ(binary_rows.size(), text_rows.size());
  size_t differing = 0;
  for (size_t r = 0; r < text_rows.size(); ++r) {
    ASSERT_EQ(binary_rows[r].size(), columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      if (binary_rows[r][i] != text_rows[r][i]) {
        if (++differing <= 20)
          ADD_FAILURE() << "row " << r << " column " << columns[i].name << ": binary "
                        << (binary_rows[r][i] ? std::to_string(binary_rows[r][i]->size()) + " bytes"
                                              : "NULL")
                        << ", text "
                        << (text_rows[r][i] ? std::to_string(text_rows[r][i]->size()) + " bytes"
                                            : "NULL");
      }
    }
  }
  EXPECT_EQ(differing, 0u);

  testing::RunMysqlSql(server, "DROP DATABASE " + db);
}

}  // namespace
}  // namespace rowbridge::mysql
