// ConversionPlan: mapping by name, meta columns, the all-at-once problem list, partial row
// images, NULL handling, and the seed's user-made ClickHouse table.
#include <gtest/gtest.h>

#include "clickhouse/columns/factory.h"
#include "common/error.h"
#include "mapping/conversion_plan.h"
#include "mapping_cells.h"

namespace rowbridge::mapping {
namespace {

using testing::EncodeCellValue;
using testing::ParseMysqlType;

struct SourceSpec {
  const char* name;
  const char* type;
};

std::vector<binlog::ColumnDef> Source(std::initializer_list<SourceSpec> specs) {
  std::vector<binlog::ColumnDef> columns;
  for (const auto& s : specs) columns.push_back(ParseMysqlType(s.type, s.name));
  return columns;
}

std::vector<TargetColumn> Target(std::initializer_list<std::pair<const char*, const char*>> specs) {
  std::vector<TargetColumn> columns;
  for (const auto& [name, type] : specs)
    columns.push_back({name, clickhouse::ParseTypeName(type), ""});
  return columns;
}

// Cells for a whole row from value strings ("-" = leave the column out of the image).
struct Row {
  std::vector<std::string> storage;
  std::vector<binlog::Cell> cells;
  Row(const std::vector<binlog::ColumnDef>& columns, const std::vector<std::string>& values) {
    storage.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] == "-") continue;
      binlog::Cell cell;
      cell.column = &columns[i];
      cell.index = static_cast<uint32_t>(i);
      if (values[i] == "NULL") {
        cell.is_null = true;
      } else {
        storage.push_back(EncodeCellValue(columns[i], values[i]));
        cell.data = reinterpret_cast<const uint8_t*>(storage.back().data());
        cell.size = storage.back().size();
      }
      cells.push_back(cell);
    }
  }
};

std::vector<std::string> RowText(const TargetBlock& block, size_t row) {
  std::vector<std::string> out;
  for (size_t i = 0; i < block.block().ColumnCount(); ++i)
    out.push_back(block.block().At(i).Text(row));
  return out;
}

PlanOptions Options(TableMode mode) {
  PlanOptions o;
  o.source_database = "db";
  o.source_table = "t";
  o.mode = mode;
  o.converter.counters = std::make_shared<ConversionCounters>();
  return o;
}

TEST(MappingPlan, SeedTableAcceptsTheSeedRowsUnchanged) {
  const auto source = Source({
      {"id", "BIGINT UNSIGNED NOT NULL"},
      {"testtinyint", "TINYINT NOT NULL"},
      {"testsmallint", "SMALLINT NOT NULL"},
      {"testmediumint", "MEDIUMINT NOT NULL"},
      {"testint", "INT NOT NULL"},
      {"testbigint", "BIGINT NOT NULL"},
      {"testvarchar", "VARCHAR(400) NOT NULL"},
      {"testchar", "CHAR(2) NOT NULL"},
      {"testenum", "ENUM('en1','en2','en3') NOT NULL"},
      {"testset", "SET('set1','set2','set3') NOT NULL"},
      {"testtime", "TIME NOT NULL"},
      {"testdate", "DATE NOT NULL"},
      {"testyear", "YEAR NOT NULL"},
      {"testtimestamp", "TIMESTAMP NOT NULL"},
      {"testdatetime", "DATETIME NOT NULL"},
      {"testfloat", "FLOAT NOT NULL"},
      {"testdouble", "DOUBLE NOT NULL"},
      {"testdecimal", "DECIMAL(9,2) NOT NULL"},
      {"testtext", "TEXT NOT NULL"},
      {"testblob", "BLOB NOT NULL"},
      {"testbit", "BIT(64) NOT NULL"},
      {"testbool", "TINYINT NOT NULL"},
      {"testmediumblob", "BLOB NOT NULL"},
      {"testlongblob", "BLOB NOT NULL"},
      {"testtinyblob", "BLOB NOT NULL"},
      {"test_unsinged_tinyint", "TINYINT UNSIGNED NOT NULL"},
      {"test_unsinged_smallint", "SMALLINT UNSIGNED NOT NULL"},
      {"test_unsinged_mediumint", "MEDIUMINT UNSIGNED NOT NULL"},
      {"test_unsinged_int", "INT UNSIGNED NOT NULL"},
      {"test_unsinged_bigint", "BIGINT UNSIGNED NOT NULL"},
  });
  const auto target = Target({
      {"id", "UInt64"},
      {"testtinyint", "Int8"},
      {"testsmallint", "Int16"},
      {"testmediumint", "Int32"},
      {"testint", "Int32"},
      {"testbigint", "Int64"},
      {"testvarchar", "String"},
      {"testchar", "String"},
      {"testenum", "String"},
      {"testset", "String"},
      {"testtime", "String"},
      {"testdate", "Date"},
      {"testyear", "Int16"},
      {"testtimestamp", "DateTime"},
      {"testdatetime", "DateTime"},
      {"testfloat", "Float64"},
      {"testdouble", "Float64"},
      {"testdecimal", "String"},
      {"testtext", "String"},
      {"testblob", "String"},
      {"testbit", "Int64"},
      {"testbool", "Int8"},
      {"testmediumblob", "String"},
      {"testlongblob", "String"},
      {"testtinyblob", "String"},
      {"test_unsinged_tinyint", "UInt8"},
      {"test_unsinged_smallint", "UInt16"},
      {"test_unsinged_mediumint", "UInt32"},
      {"test_unsinged_int", "UInt32"},
      {"test_unsinged_bigint", "UInt64"},
      {"binlog_event_type", "String"},
      {"bifrost_data_version", "Int64"},
  });
  PlanOptions options = Options(TableMode::kChangelog);
  options.source_database = "bifrost_test";
  options.source_table = "binlog_field_test_1";
  options.meta.event_type = "binlog_event_type";
  options.meta.version = "bifrost_data_version";
  ConversionPlan plan = ConversionPlan::Build(source, target, options);
  ASSERT_EQ(plan.insert_columns().size(), target.size());
  TargetBlock block = plan.NewBlock();

  const Row row(source, {"40000000000",
                         "-1",
                         "-2",
                         "-3",
                         "-4",
                         "-5",
                         "varchar",
                         "ab",
                         "2",
                         "5",
                         "-12:34:56",
                         "2024-02-29",
                         "1989",
                         "2024-01-02 03:04:05",
                         "1970-01-01 00:00:00",
                         "1.1",
                         "2.25",
                         "-0.05",
                         "text",
                         "hex:00ff",
                         "18446744073709551615",
                         "1",
                         "m",
                         "l",
                         "t",
                         "255",
                         "65535",
                         "16777215",
                         "4294967295",
                         "18446744073709551615"});
  plan.AppendRow(row.cells, block, {RowKind::kUpdate, 7});
  EXPECT_EQ(block.rows(), 1u);
  const std::vector<std::string> expected = {"40000000000",
                                             "-1",
                                             "-2",
                                             "-3",
                                             "-4",
                                             "-5",
                                             "varchar",
                                             "ab",
                                             "en2",
                                             "set1,set3",
                                             "-12:34:56",
                                             "2024-02-29",
                                             "1989",
                                             "2024-01-02 03:04:05",
                                             "1970-01-01 00:00:00",
                                             "1.1",
                                             "2.25",
                                             "-0.05",
                                             "text",
                                             std::string("\0\xff", 2),
                                             "-1",
                                             "1",
                                             "m",
                                             "l",
                                             "t",
                                             "255",
                                             "65535",
                                             "16777215",
                                             "4294967295",
                                             "18446744073709551615",
                                             "update",
                                             "7"};
  EXPECT_EQ(RowText(block, 0), expected);
  EXPECT_TRUE(options.converter.counters->Snapshot().empty());
  EXPECT_EQ(plan.InsertQuery("bifrost_test", "binlog_field_test_1").substr(0, 73),
            "INSERT INTO `bifrost_test`.`binlog_field_test_1` (`id`, `testtinyint`, `t");
}

TEST(MappingPlan, EveryProblemIsReportedAtOnce) {
  const auto source = Source({{"id", "INT"},
                              {"price", "DECIMAL(9,2)"},
                              {"when", "TIME"},
                              {"gone", "VARCHAR(10)"},
                              {"kind", "ENUM('a','b')"},
                              {"mat", "INT"}});
  auto target = Target({{"id", "Int32"},
                        {"price", "Decimal(9, 1)"},
                        {"when", "Date"},
                        {"kind", "Enum8('a' = 1)"},
                        {"mat", "Int32"},
                        {"_version", "String"}});
  target[4].default_kind = "MATERIALIZED";
  PlanOptions options = Options(TableMode::kReplica);
  options.exclude_columns = {"nope"};
  try {
    ConversionPlan::Build(source, target, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    const std::string m = e.what();
    for (const char* part :
         {"8 problem(s)", "db.t.nope: named in the exclude list",
          "db.t.price: DECIMAL(9,2) → Decimal(9, 1): Decimal(9, 1) keeps 1 fraction digits",
          "db.t.when: TIME → Date:", "db.t.gone: VARCHAR(30 bytes) → (none)",
          "db.t.kind: ENUM('a','b') → Enum8('a' = 1): Enum8('a' = 1) lacks the label(s) 'b'",
          "db.t.mat: target column `mat` is MATERIALIZED",
          "db.t: meta column `_version` is String; replica mode needs UInt64 or Int64",
          "db.t: the target table lacks the meta column `_is_deleted`"}) {
      EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in:\n" << m;
    }
  }
}

TEST(MappingPlan, ProblemsOfManyTablesJoinIntoOneError) {
  std::vector<std::string> problems;
  const auto source = Source({{"id", "INT"}});
  PlanOptions a = Options(TableMode::kReplica);
  a.source_table = "a";
  PlanOptions b = Options(TableMode::kReplica);
  b.source_table = "b";
  ConversionPlan::Build(source, Target({{"id", "Date"}}), a, problems);
  ConversionPlan::Build(source, Target({{"x", "Int32"}}), b, problems);
  EXPECT_EQ(problems.size(), 6u);
  try {
    ThrowIfProblems(problems);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("db.a.id"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("db.b.id"), std::string::npos);
  }
}

TEST(MappingPlan, SkippingMissingTargetColumnsNeverSkipsMetaColumns) {
  const auto source = Source({{"id", "INT NOT NULL"}, {"dropped_later", "INT"}});
  const auto target = Target({{"id", "Int32"}, {"_version", "UInt64"}});
  PlanOptions options = Options(TableMode::kReplica);
  options.skip_missing_target_columns = true;
  std::vector<std::string> problems;
  ConversionPlan::Build(source, target, options, problems);
  // The source column is skipped; the missing meta column is still a problem.
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("lacks the meta column `_is_deleted`"), std::string::npos)
      << problems[0];
}

TEST(MappingPlan, ReplicaRowsCarryVersionAndDeleteFlag) {
  const auto source = Source({{"id", "INT NOT NULL"}, {"name", "VARCHAR(10)"}});
  const auto target = Target({{"id", "Int32"},
                              {"name", "Nullable(String)"},
                              {"extra", "String"},
                              {"_version", "UInt64"},
                              {"_is_deleted", "UInt8"}});
  PlanOptions options = Options(TableMode::kReplica);
  options.key_columns = {"id"};
  ConversionPlan plan = ConversionPlan::Build(source, target, options);
  // `extra` is left to the server's default: not part of the INSERT.
  EXPECT_EQ(plan.InsertQuery("d", "t"),
            "INSERT INTO `d`.`t` (`id`, `name`, `_version`, `_is_deleted`) VALUES");
  TargetBlock block = plan.NewBlock();
  plan.AppendRow(Row(source, {"1", "x"}).cells, block, {RowKind::kInsert, 10});
  plan.AppendRow(Row(source, {"2", "NULL"}).cells, block, {RowKind::kUpdate, 11});
  plan.AppendRow(Row(source, {"1", "x"}).cells, block, {RowKind::kDelete, 12});
  // MINIMAL delete image: only the key.
  plan.AppendRow(Row(source, {"2", "-"}).cells, block, {RowKind::kDelete, 13});
  EXPECT_EQ(RowText(block, 0), (std::vector<std::string>{"1", "x", "10", "0"}));
  EXPECT_EQ(RowText(block, 1), (std::vector<std::string>{"2", "\\N", "11", "0"}));
  EXPECT_EQ(RowText(block, 2), (std::vector<std::string>{"1", "x", "12", "1"}));
  EXPECT_EQ(RowText(block, 3), (std::vector<std::string>{"2", "\\N", "13", "1"}));
  EXPECT_EQ(block.block().RowCount(), 4u);
}

TEST(MappingPlan, ReplicaRefusesPartialImagesNamingBinlogRowImage) {
  const auto source = Source({{"id", "INT NOT NULL"}, {"a", "INT"}, {"b", "INT"}});
  const auto target = Target({{"id", "Int32"},
                              {"a", "Int32"},
                              {"b", "Int32"},
                              {"_version", "UInt64"},
                              {"_is_deleted", "UInt8"}});
  PlanOptions options = Options(TableMode::kReplica);
  options.key_columns = {"id"};
  ConversionPlan plan = ConversionPlan::Build(source, target, options);
  TargetBlock block = plan.NewBlock();
  for (RowKind kind : {RowKind::kUpdate, RowKind::kInsert}) {
    try {
      plan.AppendRow(Row(source, {"1", "-", "-"}).cells, block, {kind, 1});
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kConfig);
      EXPECT_NE(std::string(e.what()).find("binlog_row_image"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("lacks column(s) a, b"), std::string::npos) << e.what();
    }
    block.Clear();
  }
  // A delete without its key is refused too.
  EXPECT_THROW(plan.AppendRow(Row(source, {"-", "1", "2"}).cells, block, {RowKind::kDelete, 1}),
               Error);
}

TEST(MappingPlan, ChangelogFillsColumnsMissingFromTheImageWithDefaults) {
  const auto source = Source({{"id", "INT NOT NULL"}, {"a", "INT"}, {"s", "VARCHAR(4)"}});
  const auto target = Target({{"id", "Int32"},
                              {"a", "Nullable(Int32)"},
                              {"s", "LowCardinality(Nullable(String))"},
                              {"_event_type", "Enum8('insert' = 1, 'update' = 2, 'delete' = 3)"},
                              {"_version", "Int64"}});
  ConversionPlan plan = ConversionPlan::Build(source, target, Options(TableMode::kChangelog));
  TargetBlock block = plan.NewBlock();
  plan.AppendRow(Row(source, {"5", "-", "-"}).cells, block, {RowKind::kDelete, 3});
  plan.AppendRow(Row(source, {"6", "1", "NULL"}).cells, block, {RowKind::kInsert, 4});
  EXPECT_EQ(RowText(block, 0), (std::vector<std::string>{"5", "\\N", "\\N", "delete", "3"}));
  EXPECT_EQ(RowText(block, 1), (std::vector<std::string>{"6", "1", "\\N", "insert", "4"}));
  // A version past Int64 cannot be stored.
  EXPECT_THROW(plan.AppendRow(Row(source, {"7", "1", "x"}).cells, block,
                              {RowKind::kInsert, uint64_t{1} << 63}),
               Error);
}

TEST(MappingPlan, NullIntoNotNullableFollowsItsRule) {
  const auto source = Source({{"id", "INT"}, {"d", "DATE"}});
  const auto target = Target({{"id", "Int32"},
                              {"d", "Date"},
                              {"_event_type", "LowCardinality(String)"},
                              {"_version", "UInt64"}});
  PlanOptions options = Options(TableMode::kChangelog);
  ConversionPlan plan = ConversionPlan::Build(source, target, options);
  TargetBlock block = plan.NewBlock();
  plan.AppendRow(Row(source, {"NULL", "NULL"}).cells, block, {RowKind::kInsert, 1});
  EXPECT_EQ(RowText(block, 0), (std::vector<std::string>{"0", "1970-01-01", "insert", "1"}));
  EXPECT_EQ(options.converter.counters->Count("db.t.id", RangeRule::kNullIntoNotNull), 1u);
  EXPECT_EQ(options.converter.counters->Count("db.t.d", RangeRule::kNullIntoNotNull), 1u);

  options.converter.policies.Set(RangeRule::kNullIntoNotNull, RangePolicy::kError);
  ConversionPlan strict = ConversionPlan::Build(source, target, options);
  TargetBlock strict_block = strict.NewBlock();
  try {
    strict.AppendRow(Row(source, {"NULL", "NULL"}).cells, strict_block, {RowKind::kInsert, 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConversion);
    EXPECT_NE(std::string(e.what()).find("db.t.id value 'NULL'"), std::string::npos) << e.what();
  }
}

TEST(MappingPlan, IncludeExcludeAndCaseInsensitiveNames) {
  const auto source = Source({{"ID", "INT"}, {"secret", "VARCHAR(4)"}, {"x", "INT"}});
  const auto target =
      Target({{"id", "Int64"}, {"x", "Int64"}, {"_event_type", "String"}, {"_version", "UInt64"}});
  PlanOptions options = Options(TableMode::kChangelog);
  options.exclude_columns = {"secret"};
  ConversionPlan plan = ConversionPlan::Build(source, target, options);
  EXPECT_EQ(plan.insert_columns().size(), 4u);
  EXPECT_EQ(plan.insert_columns()[0].name, "id");
  options.exclude_columns.clear();
  options.include_columns = {"ID"};
  ConversionPlan only_id = ConversionPlan::Build(source, target, options);
  EXPECT_EQ(only_id.insert_columns().size(), 3u);
  TargetBlock block = only_id.NewBlock();
  only_id.AppendRow(Row(source, {"9", "pw", "3"}).cells, block, {RowKind::kInsert, 1});
  EXPECT_EQ(RowText(block, 0), (std::vector<std::string>{"9", "insert", "1"}));
}

TEST(MappingPlan, UnnamedColumnsAndMetaNameClashes) {
  auto source = Source({{"id", "INT"}, {"_version", "INT"}});
  source[0].name.clear();
  const auto target = Target({{"_version", "UInt64"}, {"_is_deleted", "UInt8"}});
  try {
    ConversionPlan::Build(source, target, Options(TableMode::kReplica));
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("column #1 has no name"), std::string::npos) << m;
    EXPECT_NE(m.find("db.t._version: the source column has the name of the meta column"),
              std::string::npos)
        << m;
  }
}

TEST(MappingPlan, TargetColumnsFromASampleBlock) {
  clickhouse::Block sample;
  sample.AddColumn("a", clickhouse::CreateColumn("Nullable(Int32)"));
  sample.AddColumn("b", clickhouse::CreateColumn("LowCardinality(String)"));
  const auto columns = TargetColumnsFromBlock(sample);
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].type.name, "Nullable(Int32)");
  EXPECT_EQ(columns[1].type.code, clickhouse::TypeCode::kLowCardinality);
}

}  // namespace
}  // namespace rowbridge::mapping
