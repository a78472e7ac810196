// Column DEFAULTs from the DDL's text and from information_schema into the schema history's form
// (schema::CanonicalDefault, tables::DefaultFromInformationSchema), and from there into the
// ClickHouse DEFAULT of a target column (mapping::ClickHouseDefault) or the reason it is not
// carried.
#include "mapping/column_default.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "binlog/table_map.h"
#include "clickhouse/type_name.h"
#include "schema/column_spec.h"
#include "tables/source_schema.h"

namespace rowbridge {
namespace {

using binlog::ColumnDef;
using binlog::ColumnType;
using std::optional;
using std::string;

TEST(CanonicalDefault, LiteralsTakeOneForm) {
  EXPECT_EQ(std::nullopt, schema::CanonicalDefault("NULL"));
  EXPECT_EQ(std::nullopt, schema::CanonicalDefault("null"));
  EXPECT_EQ(std::nullopt, schema::CanonicalDefault("(NULL)"));
  EXPECT_EQ(optional<string>("5"), schema::CanonicalDefault("5"));
  EXPECT_EQ(optional<string>("5"), schema::CanonicalDefault("+5"));
  EXPECT_EQ(optional<string>("-5"), schema::CanonicalDefault("- 5"));
  EXPECT_EQ(optional<string>("1.50"), schema::CanonicalDefault("1.50"));
  EXPECT_EQ(optional<string>("7"), schema::CanonicalDefault("(7)"));
  EXPECT_EQ(optional<string>("1"), schema::CanonicalDefault("TRUE"));
  EXPECT_EQ(optional<string>("0"), schema::CanonicalDefault("false"));
  EXPECT_EQ(optional<string>("'abc'"), schema::CanonicalDefault("'abc'"));
  EXPECT_EQ(optional<string>("'abc'"), schema::CanonicalDefault("\"abc\""));
  EXPECT_EQ(optional<string>("'it''s here'"), schema::CanonicalDefault("_utf8mb4'it\\'s' ' here'"));
  EXPECT_EQ(optional<string>("'a\\b'"), schema::CanonicalDefault("'a\\\\b'"));
  EXPECT_EQ(optional<string>("'2020-01-02'"), schema::CanonicalDefault("DATE '2020-01-02'"));
  EXPECT_EQ(optional<string>("0x41"), schema::CanonicalDefault("0x41"));
  EXPECT_EQ(optional<string>("b'101'"), schema::CanonicalDefault("b'101'"));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"), schema::CanonicalDefault("current_timestamp()"));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"),
            schema::CanonicalDefault("CURRENT_TIMESTAMP(3)"));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"), schema::CanonicalDefault("now()"));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"), schema::CanonicalDefault("LOCALTIMESTAMP"));
}

TEST(CanonicalDefault, ExpressionsStayAsWritten) {
  EXPECT_EQ(optional<string>("(uuid())"), schema::CanonicalDefault(" (uuid()) "));
  EXPECT_EQ(optional<string>("uuid()"), schema::CanonicalDefault("uuid()"));
  EXPECT_EQ(optional<string>("(1)+(2)"), schema::CanonicalDefault("(1)+(2)"));
  EXPECT_EQ(optional<string>("-x"), schema::CanonicalDefault("-x"));
}

ColumnDef Column(ColumnType type) {
  ColumnDef c;
  c.type = type;
  c.wire_type = type;
  c.name = "c";
  c.default_known = true;
  return c;
}

TEST(DefaultFromInformationSchema, MariadbWritesSqlText) {
  const ColumnDef text = Column(ColumnType::kVarchar);
  const ColumnDef number = Column(ColumnType::kLong);
  EXPECT_EQ(optional<string>("'it''s'"),
            tables::DefaultFromInformationSchema(string("'it''s'"), "", text, true));
  EXPECT_EQ(std::nullopt, tables::DefaultFromInformationSchema(string("NULL"), "", text, true));
  EXPECT_EQ(std::nullopt, tables::DefaultFromInformationSchema(std::nullopt, "", number, true));
  EXPECT_EQ(optional<string>("5"),
            tables::DefaultFromInformationSchema(string("5"), "", number, true));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"),
            tables::DefaultFromInformationSchema(string("current_timestamp()"), "",
                                                 Column(ColumnType::kTimestamp2), true));
  EXPECT_EQ(optional<string>("uuid()"),
            tables::DefaultFromInformationSchema(string("uuid()"), "", text, true));
}

TEST(DefaultFromInformationSchema, MysqlWritesRawValues) {
  const ColumnDef text = Column(ColumnType::kVarchar);
  const ColumnDef number = Column(ColumnType::kLong);
  // The string NULL is a value on MySQL; SQL NULL is no default.
  EXPECT_EQ(optional<string>("'NULL'"),
            tables::DefaultFromInformationSchema(string("NULL"), "", text, false));
  EXPECT_EQ(optional<string>("'it''s'"),
            tables::DefaultFromInformationSchema(string("it's"), "", text, false));
  EXPECT_EQ(std::nullopt, tables::DefaultFromInformationSchema(std::nullopt, "", text, false));
  EXPECT_EQ(optional<string>("-5"),
            tables::DefaultFromInformationSchema(string("-5"), "", number, false));
  EXPECT_EQ(optional<string>("'2020-01-02'"),
            tables::DefaultFromInformationSchema(string("2020-01-02"), "",
                                                 Column(ColumnType::kDate), false));
  EXPECT_EQ(optional<string>("b'101'"), tables::DefaultFromInformationSchema(
                                            string("b'101'"), "", Column(ColumnType::kBit), false));
  EXPECT_EQ(optional<string>("CURRENT_TIMESTAMP"),
            tables::DefaultFromInformationSchema(string("CURRENT_TIMESTAMP"), "DEFAULT_GENERATED",
                                                 Column(ColumnType::kTimestamp2), false));
  EXPECT_EQ(optional<string>("(uuid())"), tables::DefaultFromInformationSchema(
                                              string("uuid()"), "DEFAULT_GENERATED", text, false));
}

mapping::TargetDefault Carry(ColumnDef column, const char* value, const char* target) {
  if (value != nullptr) column.default_value = value;
  return mapping::ClickHouseDefault(column, clickhouse::ParseTypeName(target));
}

optional<string> Expression(const ColumnDef& column, const char* value, const char* target) {
  mapping::TargetDefault d = Carry(column, value, target);
  EXPECT_EQ("", d.problem) << value << " into " << target;
  return d.expression;
}

string Problem(const ColumnDef& column, const char* value, const char* target) {
  mapping::TargetDefault d = Carry(column, value, target);
  EXPECT_EQ(std::nullopt, d.expression) << value << " into " << target;
  EXPECT_NE("", d.problem) << value << " into " << target;
  return d.problem;
}

TEST(ClickHouseDefault, NoDefaultOrNullIsNoClause) {
  EXPECT_EQ(std::nullopt, Expression(Column(ColumnType::kLong), nullptr, "Nullable(Int32)"));
}

TEST(ClickHouseDefault, NumbersFollowTheTargetType) {
  const ColumnDef i = Column(ColumnType::kLong);
  EXPECT_EQ(optional<string>("-5"), Expression(i, "-5", "Int32"));
  EXPECT_EQ(optional<string>("5"), Expression(i, "'5'", "Nullable(Int32)"));
  EXPECT_NE(string::npos, Problem(i, "300", "UInt8").find("outside the range of UInt8"));
  EXPECT_NE(string::npos, Problem(i, "-1", "UInt32").find("outside the range"));
  EXPECT_NE(string::npos, Problem(i, "1.5", "Int32").find("not an integer"));
  const ColumnDef d = Column(ColumnType::kNewDecimal);
  EXPECT_EQ(optional<string>("'1.50'"), Expression(d, "1.50", "Decimal(10, 2)"));
  EXPECT_EQ(optional<string>("1.5"), Expression(Column(ColumnType::kDouble), "1.5", "Float64"));
  EXPECT_EQ(optional<string>("5"), Expression(Column(ColumnType::kBit), "b'101'", "UInt8"));
  EXPECT_EQ(optional<string>("65"), Expression(Column(ColumnType::kBit), "0x41", "UInt64"));
  EXPECT_EQ(optional<string>("2020"), Expression(Column(ColumnType::kYear), "2020", "UInt16"));
}

TEST(ClickHouseDefault, StringsAreQuotedForClickHouse) {
  const ColumnDef s = Column(ColumnType::kVarchar);
  EXPECT_EQ(optional<string>("'it\\'s \\\\ x'"), Expression(s, "'it''s \\ x'", "String"));
  EXPECT_EQ(optional<string>("'5'"), Expression(s, "5", "Nullable(String)"));
  EXPECT_EQ(optional<string>("'ab'"), Expression(s, "'ab'", "FixedString(4)"));
  EXPECT_NE(string::npos, Problem(s, "'ab'", "Int32").find("type Int32"));
  EXPECT_NE(string::npos, Problem(s, "'caf\xc3\xa9'", "String").find("not ASCII"));
}

TEST(ClickHouseDefault, EnumAndSetTakeTheirLabels) {
  ColumnDef e = Column(ColumnType::kEnum);
  e.enum_values = {"small", "Big"};
  EXPECT_EQ(optional<string>("'Big'"),
            Expression(e, "'big'", "Enum8('' = 0, 'small' = 1, 'Big' = 2)"));
  EXPECT_EQ(optional<string>("'small'"), Expression(e, "1", "LowCardinality(String)"));
  EXPECT_NE(string::npos, Problem(e, "'huge'", "String").find("labels"));
  ColumnDef s = Column(ColumnType::kSet);
  s.set_values = {"a", "b", "c"};
  EXPECT_EQ(optional<string>("'a,c'"), Expression(s, "'c,A'", "String"));
  EXPECT_EQ(optional<string>("''"), Expression(s, "''", "String"));
}

TEST(ClickHouseDefault, DatesOnlyInTheTargetsRange) {
  const ColumnDef d = Column(ColumnType::kDate);
  EXPECT_EQ(optional<string>("'2020-01-02'"), Expression(d, "'2020-01-02'", "Date"));
  EXPECT_NE(string::npos, Problem(d, "'0000-00-00'", "Date").find("zero dates"));
  EXPECT_NE(string::npos, Problem(d, "'1960-01-01'", "Date").find("outside the range"));
  EXPECT_EQ(optional<string>("'1960-01-01'"), Expression(d, "'1960-01-01'", "Date32"));
  const ColumnDef dt = Column(ColumnType::kDateTime2);
  EXPECT_EQ(optional<string>("'2020-01-02 03:04:05'"),
            Expression(dt, "'2020-01-02 03:04:05'", "DateTime('UTC')"));
  EXPECT_EQ(optional<string>("'2020-01-02 03:04:05.250'"),
            Expression(dt, "'2020-01-02 03:04:05.250'", "DateTime64(3, 'UTC')"));
  EXPECT_NE(string::npos, Problem(dt, "'2020-01-02 03:04:05'", "DateTime").find("time zone"));
  EXPECT_NE(string::npos,
            Problem(dt, "'2020-01-02 03:04:05.5'", "DateTime('UTC')").find("whole seconds"));
  EXPECT_NE(string::npos,
            Problem(Column(ColumnType::kTimestamp2), "'2020-01-02 03:04:05'", "DateTime('UTC')")
                .find("time zone"));
}

TEST(ClickHouseDefault, ExpressionsAndNowAreNotCarried) {
  const ColumnDef s = Column(ColumnType::kVarchar);
  EXPECT_NE(string::npos, Problem(s, "(uuid())", "String").find("expression"));
  EXPECT_NE(string::npos,
            Problem(Column(ColumnType::kDouble), "(rand())", "Float64").find("expression"));
  EXPECT_NE(string::npos,
            Problem(Column(ColumnType::kDateTime2), "CURRENT_TIMESTAMP", "DateTime('UTC')")
                .find("now()"));
  EXPECT_NE(string::npos, Problem(Column(ColumnType::kJson), "'{}'", "String").find("JSON"));
}

}  // namespace
}  // namespace rowbridge
