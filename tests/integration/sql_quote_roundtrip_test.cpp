// The two quoting modules against the real servers: databases, tables and columns whose names
// hold backticks, double and single quotes, backslashes and spaces are created with
// mysql/sql_quote.h on the source and clickhouse/sql_quote.h on ClickHouse, values holding those
// and NUL, 0x1A, CR, LF, 4-byte UTF-8 and bytes that are no UTF-8 at all are inserted as string
// literals, found again by a WHERE on the same literal, and read back byte for byte (the source
// through our MySQL client, ClickHouse through our native client), as are the names from
// information_schema / system.columns.
//
// What the servers allow in names differs from what they allow in values:
//   - NUL: neither server takes it in a name (the test checks that the source refuses one); both
//     take it in a string value.
//   - 4-byte UTF-8 (😀): MySQL and MariaDB keep names in utf8mb3, which has no 4-byte characters
//     (MariaDB refuses such a name, MySQL stores '?' for the character; the test checks both),
//     so source names use 2- and 3-byte characters; ClickHouse names take any bytes, and hold 😀.
// Runs on every source flavor (plain SQL only, nothing MariaDB-only).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "mysql/connection.h"
#include "mysql/sql_quote.h"
#include "support/clickhouse_options.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge {
namespace {

// Every quoting hazard of both servers, in a name of at most 64 bytes (MySQL's limit).
const std::string kNameHazards = " `b` \"d\" 's' \\ ü€";

// Every byte value, NUL and 0x1A and invalid UTF-8 included, for binary columns.
std::string AllBytes() {
  std::string out;
  for (int i = 0; i < 256; ++i) out.push_back(static_cast<char>(i));
  return out;
}

// Valid UTF-8 text (for text columns) with every escape and quote hazard and a 4-byte character.
std::string TextHazards() {
  using namespace std::string_literals;
  return "it's \"q\" `b` \\ \\' \\\\ '' \0 nul \x1a ctrl-z \r\n\t\x7f 😀 ü€ end"s;
}

TEST(SqlQuoteRoundTrip, MysqlNamesAndValuesComeBackByteExact) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const testing::MysqlAddress server = testing::MysqlFromEnv();
  auto conn = mysql::Connection::Connect(testing::MysqlConnectOptions(server));
  conn->Execute("SET SESSION character_set_results = binary");
  const std::string db = testing::UniqueName("rbq") + kNameHazards;
  const std::string table = "t" + kNameHazards;
  const std::string text_column = "c" + kNameHazards;
  const std::string blob_column = "b" + kNameHazards;
  const std::string qualified = mysql::QuoteQualified(db, table);

  // Names the server cannot hold, whatever the quoting: NUL is refused; a 4-byte character is
  // refused by MariaDB (error 1300, invalid utf8mb3) and stored as '?' by MySQL.
  EXPECT_THROW(conn->Execute("CREATE DATABASE " + mysql::QuoteIdentifier(std::string("n\0l", 3))),
               Error);
  const std::string four_prefix = testing::UniqueName("rbq4");
  bool refused = false;
  try {
    conn->Execute("CREATE DATABASE " + mysql::QuoteIdentifier(four_prefix + " 😀"));
  } catch (const Error&) {
    refused = true;
  }
  if (!refused) {
    const auto stored =
        conn->QueryRows("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = " +
                        mysql::QuoteString(four_prefix + " ?"));
    EXPECT_EQ(stored.size(), 1u) << "a 4-byte name was neither refused nor stored as '?'";
    conn->Execute("DROP DATABASE " + mysql::QuoteIdentifier(four_prefix + " ?"));
  }

  conn->Execute("CREATE DATABASE " + mysql::QuoteIdentifier(db));
  try {
    conn->Execute("CREATE TABLE " + qualified + " (id INT PRIMARY KEY, " +
                  mysql::QuoteIdentifier(text_column) + " VARCHAR(200) CHARACTER SET utf8mb4, " +
                  mysql::QuoteIdentifier(blob_column) + " BLOB)");
    const std::string text = TextHazards();
    const std::string bytes = AllBytes();
    conn->Execute("INSERT INTO " + qualified + " VALUES (1, " + mysql::QuoteString(text) + ", " +
                  mysql::QuoteBinaryString(bytes) + ")");

    auto rows = conn->QueryRows(
        "SELECT id, " + mysql::QuoteIdentifier(text_column) + ", " +
        mysql::QuoteIdentifier(blob_column) + " FROM " + qualified + " WHERE " +
        mysql::QuoteIdentifier(text_column) + " = " + mysql::QuoteString(text) + " AND " +
        mysql::QuoteIdentifier(blob_column) + " = " + mysql::QuoteBinaryString(bytes));
    ASSERT_EQ(rows.size(), 1u) << "the row is not found by the literals it was written with";
    ASSERT_TRUE(rows[0][1].has_value() && rows[0][2].has_value());
    EXPECT_EQ(*rows[0][1], text);
    EXPECT_EQ(*rows[0][2], bytes);

    // The names as the server stores them, found by string literals of themselves.
    auto columns =
        conn->QueryRows("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = " +
                        mysql::QuoteString(db) + " AND TABLE_NAME = " + mysql::QuoteString(table) +
                        " ORDER BY ORDINAL_POSITION");
    std::vector<std::string> names;
    for (const auto& row : columns) names.push_back(row[0].value_or("NULL"));
    EXPECT_EQ(names, (std::vector<std::string>{"id", text_column, blob_column}));
  } catch (...) {
    conn->Execute("DROP DATABASE " + mysql::QuoteIdentifier(db));
    throw;
  }
  conn->Execute("DROP DATABASE " + mysql::QuoteIdentifier(db));
}

// The single String value of a one-row, one-column result.
std::optional<std::string> SelectString(clickhouse::Client& ch, const std::string& sql) {
  std::optional<std::string> value;
  size_t rows = 0;
  ch.Select(sql, [&](clickhouse::Block& block) {
    for (size_t r = 0; r < block.RowCount(); ++r, ++rows)
      value = std::string(static_cast<const clickhouse::ColumnString&>(block.At(0)).At(r));
    return true;
  });
  if (rows != 1) return std::nullopt;
  return value;
}

TEST(SqlQuoteRoundTrip, ClickHouseNamesAndValuesComeBackByteExact) {
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  clickhouse::Client ch(testing::ClickHouseClientOptions(testing::ClickHouseFromEnv()));
  const std::string hazards = kNameHazards + " 😀";
  const std::string db = testing::UniqueName("rbq") + hazards;
  const std::string table = "t" + hazards;
  const std::string key_column = "k" + hazards;
  const std::string text_column = "c" + hazards;
  const std::string bytes_column = "b" + hazards;
  const std::string qualified = clickhouse::QuoteQualified(db, table);

  ch.Execute("CREATE DATABASE " + clickhouse::QuoteIdentifier(db));
  try {
    ch.Execute("CREATE TABLE " + qualified + " (" + clickhouse::QuoteIdentifier(key_column) +
               " UInt32, " + clickhouse::QuoteIdentifier(text_column) + " String, " +
               clickhouse::QuoteIdentifier(bytes_column) + " String) ENGINE = MergeTree ORDER BY " +
               clickhouse::QuoteIdentifier(key_column));
    const std::string text = TextHazards();
    const std::string bytes = AllBytes();
    ch.Execute("INSERT INTO " + qualified + " (" + clickhouse::QuoteIdentifier(key_column) + ", " +
               clickhouse::QuoteIdentifier(text_column) + ", " +
               clickhouse::QuoteIdentifier(bytes_column) + ") SELECT 1, " +
               clickhouse::QuoteString(text) + ", " + clickhouse::QuoteString(bytes));

    const std::string where =
        " FROM " + qualified + " WHERE " + clickhouse::QuoteIdentifier(text_column) + " = " +
        clickhouse::QuoteString(text) + " AND " + clickhouse::QuoteIdentifier(bytes_column) +
        " = " + clickhouse::QuoteString(bytes);
    EXPECT_EQ(SelectString(ch, "SELECT " + clickhouse::QuoteIdentifier(text_column) + where), text);
    EXPECT_EQ(SelectString(ch, "SELECT " + clickhouse::QuoteIdentifier(bytes_column) + where),
              bytes);

    std::vector<std::string> names;
    ch.Select(
        "SELECT name FROM system.columns WHERE database = " + clickhouse::QuoteString(db) +
            " AND table = " + clickhouse::QuoteString(table),
        [&](clickhouse::Block& block) {
          for (size_t r = 0; r < block.RowCount(); ++r)
            names.emplace_back(static_cast<const clickhouse::ColumnString&>(block.At(0)).At(r));
          return true;
        });
    EXPECT_EQ(names, (std::vector<std::string>{key_column, text_column, bytes_column}));
  } catch (...) {
    ch.Execute("DROP DATABASE " + clickhouse::QuoteIdentifier(db));
    throw;
  }
  ch.Execute("DROP DATABASE " + clickhouse::QuoteIdentifier(db));
}

}  // namespace
}  // namespace rowbridge
