// Small parts of the copy: keyset conditions and key literals, state records, progress text.
#include <gtest/gtest.h>

#include <optional>

#include "common/error.h"
#include "snapshot/binary_rows.h"
#include "snapshot/chunk_sql.h"
#include "snapshot/progress.h"
#include "snapshot/snapshot_state.h"
#include "unit/mapping_cells.h"

namespace rowbridge::snapshot {
namespace {

TEST(ChunkSql, KeysetConditionExpandsTheRowComparison) {
  const binlog::ColumnDef a = rowbridge::testing::ParseMysqlType("INT", "a");
  const binlog::ColumnDef b = rowbridge::testing::ParseMysqlType("VARCHAR(10)", "b");
  const binlog::ColumnDef c = rowbridge::testing::ParseMysqlType("DATETIME(3)", "c");
  std::string sa, sb, sc;
  const std::vector<binlog::Cell> last = {
      rowbridge::testing::MakeCell(a, "-5", sa, 0), rowbridge::testing::MakeCell(b, "x'y", sb, 1),
      rowbridge::testing::MakeCell(c, "2024-01-02 03:04:05.600", sc, 2)};
  const std::vector<std::string> names = {"`a`", "`b`", "`c`"};
  const std::vector<KeyCollation> coll = {{}, {"utf8mb4", "utf8mb4_general_ci"}, {}};
  EXPECT_EQ(AfterKeyCondition(std::span(names).first(1), std::span(last).first(1), coll),
            "`a` > -5");
  EXPECT_EQ(AfterKeyCondition(names, last, coll),
            "`a` >= -5 AND (`a` > -5 OR (`b` >= _utf8mb4 X'782779' AND (`b` > _utf8mb4 X'782779' "
            "OR (`c` > '2024-01-02 03:04:05.600'))))");
}

TEST(ChunkSql, AtOrBeforeKeyCondition) {
  const binlog::ColumnDef a = rowbridge::testing::ParseMysqlType("INT", "a");
  const binlog::ColumnDef b = rowbridge::testing::ParseMysqlType("VARBINARY(10)", "b");
  std::string sa, sb;
  const std::vector<binlog::Cell> key = {rowbridge::testing::MakeCell(a, "7", sa, 0),
                                         rowbridge::testing::MakeCell(b, "x", sb, 1)};
  const std::vector<std::string> names = {"`a`", "`b`"};
  const std::vector<KeyCollation> coll = {{}, {"binary", "binary"}};
  EXPECT_EQ(AtOrBeforeKeyCondition(std::span(names).first(1), std::span(key).first(1), coll),
            "`a` <= 7");
  EXPECT_EQ(AtOrBeforeKeyCondition(names, key, coll),
            "`a` <= 7 AND (`a` < 7 OR (`b` <= _binary X'78'))");
}

TEST(BinaryRows, KeepsRowPacketsAndReadsThemBack) {
  // Two columns: INT (MYSQL_TYPE_LONG, 4 bytes) and VARCHAR (MYSQL_TYPE_VAR_STRING,
  // length-encoded).
  std::vector<mysql::ColumnDefinition> columns(2);
  columns[0].type = 3;
  columns[1].type = 253;
  auto row = [](std::optional<uint32_t> number, std::optional<std::string> text) {
    std::string p(1, '\0');
    // NULL bitmap: (2 + 9) / 8 = 1 byte, bit i + 2 for column i.
    p.push_back(static_cast<char>((number ? 0 : 0x04) | (text ? 0 : 0x08)));
    if (number) {
      for (int b = 0; b < 4; ++b) p.push_back(static_cast<char>(*number >> (8 * b)));
    }
    if (text) {
      if (text->size() < 251) {
        p.push_back(static_cast<char>(text->size()));
      } else {
        p.push_back(static_cast<char>(0xfc));
        p.push_back(static_cast<char>(text->size() & 0xff));
        p.push_back(static_cast<char>(text->size() >> 8));
      }
      p += *text;
    }
    return p;
  };
  BinaryRows rows;
  rows.Add(row(7, std::string("a")));
  rows.Add(row(std::nullopt, std::string(300, 'y')));
  rows.Add(row(0x01020304, std::nullopt));
  ASSERT_EQ(rows.size(), 3u);
  std::vector<std::optional<std::string_view>> got;
  rows.Get(1, columns, "t", got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].has_value());
  EXPECT_EQ(got[1], std::string(300, 'y'));
  rows.Get(0, columns, "t", got);
  EXPECT_EQ(got[0], std::string_view("\x07\0\0\0", 4));
  EXPECT_EQ(got[1], "a");
  rows.Get(2, columns, "t", got);
  EXPECT_EQ(got[0], std::string_view("\x04\x03\x02\x01", 4));
  EXPECT_FALSE(got[1].has_value());
  EXPECT_THROW(rows.Get(3, columns, "t", got), Error);
  rows.Clear();
  EXPECT_EQ(rows.size(), 0u);
}

TEST(ChunkSql, LiteralsOfKeyTypes) {
  auto literal = [](const char* type, const char* value, KeyCollation coll = {}) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(type);
    std::string storage, out;
    AppendKeyLiteral(rowbridge::testing::MakeCell(column, value, storage), coll, out);
    return out;
  };
  EXPECT_EQ(literal("BIGINT UNSIGNED", "18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(literal("DECIMAL(10,3)", "-1.500"), "-1.500");
  EXPECT_EQ(literal("ENUM('a','b')", "2"), "2");
  EXPECT_EQ(literal("BIT(9)", "300"), "300");
  EXPECT_EQ(literal("DATE", "2024-02-29"), "'2024-02-29'");
  EXPECT_EQ(literal("TIME(1)", "hex:7ffffece"), "'-00:00:01.5'");
  EXPECT_EQ(literal("VARBINARY(4)", "hex:00ff", {"binary", "binary"}), "_binary X'00FF'");
}

TEST(ChunkSql, KeyHexRoundTrip) {
  const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType("DECIMAL(20,4)");
  std::string storage, back;
  const binlog::Cell cell = rowbridge::testing::MakeCell(column, "-123.4567", storage);
  binlog::Cell decoded;
  CellFromHex(CellHex(cell), column, 3, back, decoded);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(decoded.data), decoded.size), storage);
  EXPECT_EQ(decoded.index, 3u);
  EXPECT_THROW(CellFromHex("abc", column, 0, back, decoded), Error);
  EXPECT_THROW(CellFromHex("zz", column, 0, back, decoded), Error);
}

TEST(SnapshotState, RecordsRoundTrip) {
  TableProgress p;
  p.table = "db.t";
  p.number = 3;
  p.state = "copying";
  p.next_seq = 17;
  p.rows_done = 12345;
  p.chunks_done = 2;
  p.high = {"mysql-bin.000002", 4711};
  p.last_key = {"0a00", "ff"};
  UnitRecord u;
  u.first_version = 100;
  u.last_version = 120;
  u.rows = 50;
  u.chunk_rows = 48;
  u.high = {"mysql-bin.000003", 4};
  u.last = true;
  p.in_flight = u;
  const TableProgress q = TableProgress::FromJson(p.ToJson(), "test");
  EXPECT_EQ(q.ToJson(), p.ToJson());
  EXPECT_EQ(q.in_flight->high, u.high);
  EXPECT_THROW(TableProgress::FromJson("{\"table\": 1}", "test"), Error);
  RunRecord r{42,          {"a.000001", 4}, {"a.000002", 9}, true, {"d.created"}, {"d.had_rows"},
              {"d.shared"}};
  EXPECT_EQ(RunRecord::FromJson(r.ToJson(), "test").ToJson(), r.ToJson());
}

TEST(SnapshotState, BinlogPointsOrderByFileNumberThenPosition) {
  EXPECT_LT((BinlogPoint{"b.000009", 900}), (BinlogPoint{"b.000010", 4}));
  EXPECT_LT((BinlogPoint{"b.999999", 900}), (BinlogPoint{"b.1000000", 4}));
  EXPECT_LT((BinlogPoint{"b.000010", 4}), (BinlogPoint{"b.000010", 5}));
  EXPECT_FALSE((BinlogPoint{"b.000010", 5}) < (BinlogPoint{"b.000010", 5}));
}

TEST(SnapshotProgress, Text) {
  ProgressLine l{"shop.orders", 450000, 1000000, 50000, 11, false};
  EXPECT_EQ(RenderProgress(l, false),
            "shop.orders: 450000 of ~1000000 rows (45%), 50000 rows/s, ETA 11s");
  const std::string bar = RenderProgress(l, true);
  EXPECT_NE(bar.find("[##########.............."), std::string::npos) << bar;
  EXPECT_NE(bar.find("45%"), std::string::npos);
  l.done = true;
  l.rows = 1000100;  // the estimate was low
  EXPECT_EQ(RenderProgress(l, false),
            "shop.orders: 1000100 of ~1000100 rows (100%), 50000 rows/s, done");
  EXPECT_EQ(EstimateEta(10, 0, 5), -1);
  EXPECT_EQ(EstimateEta(10, 100, 0), -1);
  EXPECT_EQ(EstimateEta(10, 100, 5), 18);
  EXPECT_EQ(EstimateEta(200, 100, 5), 0);
}

}  // namespace
}  // namespace rowbridge::snapshot
