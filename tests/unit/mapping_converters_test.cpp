// Every converter, data-driven: one line per case = {MySQL type, value, ClickHouse target type,
// expected ClickHouse text, out-of-range rule expected (or none)}. Each case runs twice: under
// policy clamp (the text must match and the rule's counter must be 1, or no counter moves) and
// under policy error (a case with a rule must throw Error(kConversion) naming the column, the
// value and the rule; a case without one must give the same text).
#include <gtest/gtest.h>

#include <optional>

#include "clickhouse/columns/factory.h"
#include "common/error.h"
#include "mapping/converter.h"
#include "mapping/time_zone.h"
#include "mapping_cells.h"

namespace rowbridge::mapping {
namespace {

using testing::MakeCell;
using testing::ParseMysqlType;

struct Case {
  const char* mysql;
  const char* value;
  const char* target;
  const char* expected;   // ClickHouse text; bytes < 0x20 written as \xNN
  const char* rule = "";  // RangeRuleName, or "" for none
  const char* zone = "";  // converter time zone; "" = UTC
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.mysql << " '" << c.value << "' -> " << c.target;
}

std::string Printable(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto b = static_cast<unsigned char>(ch);
    if (b < 0x20) {
      out += fmt::format("\\x{:02X}", b);
    } else {
      out += ch;
    }
  }
  return out;
}

const Case kCases[] = {
    // ---- integers into integers: widening, narrowing, signedness ----
    {"TINYINT", "-1", "Int8", "-1"},
    {"TINYINT", "-128", "Int64", "-128"},
    {"TINYINT UNSIGNED", "255", "UInt8", "255"},
    {"TINYINT UNSIGNED", "255", "Int16", "255"},
    {"TINYINT UNSIGNED", "255", "Int8", "127", "integer_overflow"},
    {"TINYINT", "-5", "UInt8", "0", "negative_to_unsigned"},
    {"SMALLINT", "-32768", "Int16", "-32768"},
    {"SMALLINT", "300", "Int8", "127", "integer_overflow"},
    {"SMALLINT", "-300", "Int8", "-128", "integer_overflow"},
    {"SMALLINT UNSIGNED", "65535", "UInt16", "65535"},
    {"MEDIUMINT", "-8388608", "Int32", "-8388608"},
    {"MEDIUMINT UNSIGNED", "16777215", "UInt32", "16777215"},
    {"MEDIUMINT", "-3", "Int32", "-3"},
    {"INT", "-2147483648", "Int32", "-2147483648"},
    {"INT", "-4", "Int64", "-4"},
    {"INT UNSIGNED", "4294967295", "UInt32", "4294967295"},
    {"INT UNSIGNED", "4294967295", "Int32", "2147483647", "integer_overflow"},
    {"INT UNSIGNED", "4294967295", "UInt16", "65535", "integer_overflow"},
    {"BIGINT", "-9223372036854775808", "Int64", "-9223372036854775808"},
    {"BIGINT", "-1", "UInt64", "0", "negative_to_unsigned"},
    {"BIGINT UNSIGNED", "18446744073709551615", "UInt64", "18446744073709551615"},
    {"BIGINT UNSIGNED", "18446744073709551615", "Int64", "9223372036854775807", "integer_overflow"},
    {"BIGINT UNSIGNED", "18446744073709551615", "Int128", "18446744073709551615"},
    {"BIGINT", "-5", "Int128", "-5"},
    {"BIGINT", "-5", "Int256", "-5"},
    {"BIGINT UNSIGNED", "18446744073709551615", "UInt256", "18446744073709551615"},
    {"BIGINT", "-7", "UInt128", "0", "negative_to_unsigned"},
    // ---- integers into other types ----
    {"INT", "-42", "String", "-42"},
    {"BIGINT UNSIGNED", "18446744073709551615", "String", "18446744073709551615"},
    {"SMALLINT", "12", "LowCardinality(String)", "12"},
    {"SMALLINT", "12", "LowCardinality(Nullable(String))", "12"},
    {"INT", "123456", "FixedString(4)", "1234", "string_too_long"},
    {"INT", "12", "FixedString(4)", "12\\x00\\x00"},
    {"MEDIUMINT", "-8388608", "Float32", "-8388608"},
    {"INT", "2147483647", "Float64", "2147483647"},
    {"INT", "-12", "Decimal(9, 2)", "-12.00"},
    {"BIGINT", "123", "Decimal(76, 10)", "123.0000000000"},
    {"INT", "12345", "Decimal(5, 2)", "999.99", "decimal_overflow"},
    {"INT", "-12345", "Decimal(5, 2)", "-999.99", "decimal_overflow"},
    {"TINYINT", "0", "Bool", "false"},
    {"TINYINT", "1", "Bool", "true"},
    {"TINYINT", "-3", "Bool", "true"},
    {"TINYINT", "1", "Int8", "1"},  // TINYINT(1) / BOOL → Int8 (the seed's testbool)
    // ---- YEAR ----
    {"YEAR", "1989", "UInt16", "1989"},
    {"YEAR", "1989", "Int16", "1989"},
    {"YEAR", "2155", "Int16", "2155"},
    {"YEAR", "0", "UInt16", "0"},
    {"YEAR", "1901", "String", "1901"},
    {"YEAR", "0", "String", "0000"},
    {"YEAR", "2100", "UInt8", "255", "integer_overflow"},
    // ---- BIT ----
    {"BIT(1)", "1", "UInt8", "1"},
    {"BIT(1)", "1", "Bool", "true"},
    {"BIT(10)", "1023", "UInt16", "1023"},
    {"BIT(10)", "1023", "UInt8", "255", "integer_overflow"},
    {"BIT(64)", "0", "Int64", "0"},
    {"BIT(64)", "18446744073709551615", "Int64", "-1"},  // bits kept (the seed's testbit)
    {"BIT(64)", "9223372036854775808", "Int64", "-9223372036854775808"},
    {"BIT(64)", "18446744073709551615", "UInt64", "18446744073709551615"},
    {"BIT(8)", "255", "Int8", "-1"},
    {"BIT(9)", "511", "Int16", "511"},
    {"BIT(5)", "21", "String", "21"},
    // ---- FLOAT / DOUBLE ----
    {"FLOAT", "1.1", "Float32", "1.1"},
    {"FLOAT", "1.1", "Float64", "1.1"},  // via the shortest text, not 1.100000023841858
    {"FLOAT", "-0.25", "Float64", "-0.25"},
    {"FLOAT", "3.4028235e38", "Float64", "3.4028235e38"},
    {"FLOAT", "1.1", "String", "1.1"},
    {"DOUBLE", "0.1", "Float64", "0.1"},
    {"DOUBLE", "-1.5e300", "Float64", "-1.5e300"},
    {"DOUBLE", "123.45", "String", "123.45"},
    {"DOUBLE", "1e20", "String", "1e+20"},
    // ---- DECIMAL ----
    {"DECIMAL(9,2)", "1234567.89", "Decimal(9, 2)", "1234567.89"},
    {"DECIMAL(9,2)", "-0.5", "Decimal(9, 2)", "-0.50"},
    {"DECIMAL(9,2)", "-0.5", "Decimal(18, 4)", "-0.5000"},
    {"DECIMAL(9,2)", "1234567.89", "Decimal(6, 2)", "9999.99", "decimal_overflow"},
    {"DECIMAL(9,2)", "-1234567.89", "Decimal(6, 2)", "-9999.99", "decimal_overflow"},
    {"DECIMAL(38,0)", "99999999999999999999999999999999999999", "Decimal(38, 0)",
     "99999999999999999999999999999999999999"},
    {"DECIMAL(65,30)", "-12345678901234567890123456789012345.123456789012345678901234567890",
     "Decimal(76, 30)", "-12345678901234567890123456789012345.123456789012345678901234567890"},
    {"DECIMAL(65,30)", "-12345678901234567890123456789012345.123456789012345678901234567890",
     "String", "-12345678901234567890123456789012345.123456789012345678901234567890"},
    {"DECIMAL(9,2)", "0", "String", "0.00"},
    {"DECIMAL(9,2)", "-0.05", "String", "-0.05"},  // the seed's testdecimal
    {"DECIMAL(9,2)", "12.5", "Float64", "12.5"},
    {"DECIMAL(10,0)", "-1234567890", "Int64", "-1234567890"},
    {"DECIMAL(10,0)", "1234567890", "Int16", "32767", "integer_overflow"},
    {"DECIMAL(10,0)", "-5", "UInt32", "0", "negative_to_unsigned"},
    {"DECIMAL(65,0)", "99999999999999999999999999999999999999999999999999999999999999999", "Int128",
     "170141183460469231731687303715884105727", "integer_overflow"},
    // ---- DATE ----
    {"DATE", "2024-02-29", "Date", "2024-02-29"},
    {"DATE", "2024-02-29", "Date32", "2024-02-29"},
    {"DATE", "1970-01-01", "Date", "1970-01-01"},
    {"DATE", "2105-12-31", "Date", "2105-12-31"},
    {"DATE", "2106-01-01", "Date", "2105-12-31", "date_after_range"},
    {"DATE", "1969-12-31", "Date", "1970-01-01", "date_before_range"},
    {"DATE", "1000-01-01", "Date32", "1900-01-01", "date_before_range"},
    {"DATE", "1900-01-01", "Date32", "1900-01-01"},
    {"DATE", "1965-03-04", "Date32", "1965-03-04"},
    {"DATE", "2299-12-31", "Date32", "2299-12-31"},
    {"DATE", "9999-12-31", "Date32", "2299-12-31", "date_after_range"},
    {"DATE", "0000-00-00", "Date", "1970-01-01", "zero_date"},
    {"DATE", "2020-00-15", "Date32", "1970-01-01", "zero_date"},
    {"DATE", "2021-02-30", "Date", "1970-01-01", "zero_date"},
    {"DATE", "0000-00-00", "String", "0000-00-00"},
    {"DATE", "2024-02-29", "String", "2024-02-29"},
    {"DATE", "2024-02-29", "DateTime", "2024-02-29 00:00:00"},
    {"DATE", "2024-07-01", "DateTime('Europe/Berlin')", "2024-06-30 22:00:00", "", "Europe/Berlin"},
    {"DATE", "2024-02-29", "DateTime64(3)", "2024-02-29 00:00:00.000"},
    {"DATE", "1969-07-20", "DateTime64(0)", "1969-07-20 00:00:00"},
    {"DATE", "1969-07-20", "DateTime", "1970-01-01 00:00:00", "date_before_range"},
    // ---- DATETIME (wall time) ----
    {"DATETIME", "2024-01-02 03:04:05", "DateTime", "2024-01-02 03:04:05"},
    {"DATETIME", "1970-01-01 00:00:00", "DateTime", "1970-01-01 00:00:00"},  // seed default
    {"DATETIME(6)", "2024-01-02 03:04:05.123456", "DateTime", "2024-01-02 03:04:05"},
    {"DATETIME(6)", "2024-01-02 03:04:05.123456", "DateTime64(6)", "2024-01-02 03:04:05.123456"},
    {"DATETIME(6)", "2024-01-02 03:04:05.123456", "DateTime64(3)", "2024-01-02 03:04:05.123"},
    {"DATETIME(2)", "2024-01-02 03:04:05.12", "DateTime64(9)", "2024-01-02 03:04:05.120000000"},
    {"DATETIME(3)", "1960-05-06 07:08:09.5", "DateTime64(3)", "1960-05-06 07:08:09.500"},
    {"DATETIME", "1960-01-01 12:00:00", "DateTime64(0)", "1960-01-01 12:00:00"},
    {"DATETIME", "2150-01-01 00:00:00", "DateTime64(0)", "2150-01-01 00:00:00"},
    {"DATETIME", "2024-01-02 03:04:05", "Date", "2024-01-02"},
    {"DATETIME", "2024-01-02 03:04:05", "Date32", "2024-01-02"},
    {"DATETIME(3)", "2024-01-02 03:04:05.120", "String", "2024-01-02 03:04:05.120"},
    {"DATETIME", "0000-00-00 00:00:00", "String", "0000-00-00 00:00:00"},
    {"DATETIME", "0000-00-00 00:00:00", "DateTime", "1970-01-01 00:00:00", "zero_date"},
    {"DATETIME", "0000-00-00 00:00:00", "DateTime64(3)", "1970-01-01 00:00:00.000", "zero_date"},
    {"DATETIME", "1969-12-31 23:59:59", "DateTime", "1970-01-01 00:00:00", "date_before_range"},
    {"DATETIME", "2106-01-01 00:00:00", "DateTime", "2105-12-31 23:59:59", "date_after_range"},
    {"DATETIME", "2300-01-01 00:00:00", "DateTime64(0)", "2299-12-31 23:59:59", "date_after_range"},
    {"DATETIME", "1899-12-31 23:59:59", "DateTime64(0)", "1900-01-01 00:00:00",
     "date_before_range"},
    {"DATETIME", "2262-04-12 00:00:00", "DateTime64(9)", "2262-04-11 23:47:15.000000000",
     "date_after_range"},
    {"OLDDATETIME", "2001-02-03 04:05:06", "DateTime", "2001-02-03 04:05:06"},
    // DATETIME in a zone: wall time → UTC instant; DST gap and overlap rules.
    {"DATETIME", "2024-07-01 12:00:00", "DateTime", "2024-07-01 10:00:00", "", "Europe/Berlin"},
    {"DATETIME", "2024-01-01 12:00:00", "DateTime", "2024-01-01 11:00:00", "", "Europe/Berlin"},
    {"DATETIME", "2024-03-31 02:30:00", "DateTime", "2024-03-31 01:30:00", "", "Europe/Berlin"},
    {"DATETIME", "2024-10-27 02:30:00", "DateTime", "2024-10-27 00:30:00", "", "Europe/Berlin"},
    {"DATETIME", "2060-07-01 12:00:00", "DateTime", "2060-07-01 10:00:00", "", "Europe/Berlin"},
    {"DATETIME", "2024-07-01 12:00:00", "DateTime", "2024-07-01 16:00:00", "", "America/New_York"},
    {"DATETIME", "2024-07-01 12:00:00", "String", "2024-07-01 12:00:00", "", "Europe/Berlin"},
    {"DATETIME", "2024-07-01 12:00:00", "Date", "2024-07-01", "", "Asia/Tokyo"},
    // ---- TIMESTAMP (instant) ----
    {"TIMESTAMP", "2024-01-02 03:04:05", "DateTime", "2024-01-02 03:04:05"},
    {"TIMESTAMP", "2024-01-02 03:04:05", "DateTime", "2024-01-02 03:04:05", "", "Europe/Berlin"},
    {"TIMESTAMP(3)", "2024-01-02 03:04:05.678", "DateTime64(3)", "2024-01-02 03:04:05.678"},
    {"TIMESTAMP(6)", "2038-01-19 03:14:07.999999", "DateTime64(6)", "2038-01-19 03:14:07.999999"},
    {"TIMESTAMP", "2024-01-02 03:04:05", "String", "2024-01-02 03:04:05"},
    {"TIMESTAMP", "2024-01-02 03:04:05", "String", "2024-01-02 04:04:05", "", "Europe/Berlin"},
    {"TIMESTAMP(2)", "2024-01-02 03:04:05.5", "String", "2024-01-02 03:04:05.50"},
    {"TIMESTAMP", "2024-01-01 23:30:00", "Date", "2024-01-02", "", "Europe/Berlin"},
    {"TIMESTAMP", "2024-01-01 23:30:00", "Date32", "2024-01-01"},
    {"TIMESTAMP", "0", "DateTime", "1970-01-01 00:00:00", "zero_date"},
    {"TIMESTAMP", "0", "String", "0000-00-00 00:00:00"},
    {"TIMESTAMP(3)", "0", "String", "0000-00-00 00:00:00.000"},
    {"TIMESTAMP", "2024-01-02 03:04:05", "UInt32", "1704164645"},
    {"TIMESTAMP", "2024-01-02 03:04:05", "Int64", "1704164645"},
    {"OLDTIMESTAMP", "2001-02-03 04:05:06", "DateTime", "2001-02-03 04:05:06"},
    // ---- TIME ----
    {"TIME", "00:00:01", "String", "00:00:01"},  // the seed's testtime default
    {"TIME", "-838:59:59", "String", "-838:59:59"},
    {"TIME", "838:59:59", "String", "838:59:59"},
    {"TIME(6)", "-00:00:00.000001", "String", "-00:00:00.000001"},
    {"TIME(3)", "12:34:56.789", "String", "12:34:56.789"},
    {"TIME(6)", "-01:02:03.000004", "Int64", "-3723000004"},
    {"TIME", "12:00:00", "Int64", "43200000000"},
    {"TIME", "12:34:56", "DateTime", "1970-01-01 12:34:56"},
    {"TIME(6)", "12:34:56.5", "DateTime64(3)", "1970-01-01 12:34:56.500"},
    {"TIME", "25:00:00", "DateTime", "1970-01-01 23:59:59", "time_out_of_range"},
    {"TIME", "-01:00:00", "DateTime", "1970-01-01 00:00:00", "time_out_of_range"},
    {"TIME(6)", "24:00:00", "DateTime64(6)", "1970-01-01 23:59:59.999999", "time_out_of_range"},
    {"OLDTIME", "-12:34:56", "String", "-12:34:56"},
    // ---- strings ----
    {"VARCHAR(400)", "hello, world", "String", "hello, world"},
    {"VARCHAR(400)", "", "String", ""},
    {"VARCHAR(10)", "héllo", "LowCardinality(String)", "héllo"},
    {"CHAR(2)", "ab", "String", "ab"},
    {"CHAR(2)", "ab", "FixedString(2)", "ab"},
    {"VARCHAR(10)", "abc", "FixedString(5)", "abc\\x00\\x00"},
    {"VARCHAR(10)", "abcdef", "FixedString(3)", "abc", "string_too_long"},
    {"TEXT", "line1\nline2", "String", "line1\\x0Aline2"},
    {"BLOB", "hex:00ff10", "String", "\\x00\xff\\x10"},
    {"BINARY(4)", "hex:6100", "String", "a\\x00\\x00\\x00"},
    {"BINARY(4)", "hex:61626364", "String", "abcd"},
    {"VARBINARY(4)", "hex:6100", "String", "a\\x00"},
    {"BINARY(16)", "hex:00112233445566778899aabbccddeeff", "UUID",
     "00112233-4455-6677-8899-aabbccddeeff"},
    {"BINARY(16)", "hex:001122334455667788990000000000", "UUID",
     "00112233-4455-6677-8899-000000000000"},
    {"CHAR(36)", "00112233-4455-6677-8899-AABBCCDDEEFF", "UUID",
     "00112233-4455-6677-8899-aabbccddeeff"},
    {"JSON", "hex:050100", "String", "1"},
    {"JSON", "hex:0c026869", "String", "\"hi\""},
    {"GEOMETRY", "hex:00000000010100000000000000000000000000000000000040", "String",
     "\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
     "\\x00\\x00@"},
    // ---- ENUM / SET ----
    {"ENUM('en1','en2','en3')", "1", "String", "en1"},  // the seed's testenum
    {"ENUM('en1','en2','en3')", "3", "LowCardinality(String)", "en3"},
    {"ENUM('en1','en2','en3')", "0", "String", ""},
    {"ENUM('en1','en2','en3')", "2", "Enum8('en1' = 1, 'en2' = 2, 'en3' = 3)", "en2"},
    {"ENUM('en1','en2','en3')", "2", "Enum16('en3' = -5, 'en2' = 7, 'en1' = 100)", "en2"},
    {"ENUM('en1','en2','en3')", "0", "Enum8('' = 0, 'en1' = 1, 'en2' = 2, 'en3' = 3)", ""},
    {"ENUM('en1','en2','en3')", "0", "Enum8('en1' = 1, 'en2' = 2, 'en3' = 3)", "en1",
     "invalid_enum"},
    {"ENUM('en1','en2','en3')", "2", "UInt8", "2"},
    {"ENUM('en1','en2','en3')", "2", "Int16", "2"},
    {"SET('set1','set2','set3')", "1", "String", "set1"},  // the seed's testset
    {"SET('set1','set2','set3')", "5", "String", "set1,set3"},
    {"SET('set1','set2','set3')", "0", "String", ""},
    {"SET('set1','set2','set3')", "9", "String", "set1"},  // bit 3 is no member
    {"SET('a','b','c','d','e','f','g','h')", "255", "String", "a,b,c,d,e,f,g,h"},
    {"SET('a','b','c','d','e','f','g','h')", "130", "String", "b,h"},
    {"SET('a','b','c','d','e','f','g','h','i')", "511", "String", "a,b,c,d,e,f,g,h,i"},
    {"SET('a','b','c','d','e','f','g','h','i')", "257", "String", "a,i"},
    {"SET('set1','set2','set3')", "7", "LowCardinality(String)", "set1,set2,set3"},
    {"SET('set1','set2','set3')", "6", "Array(String)", "['set2','set3']"},
    {"SET('set1','set2','set3')", "6", "UInt64", "6"},
    {"SET('a','b','c','d','e','f','g','h','i')", "511", "UInt8", "255", "integer_overflow"},
    // ---- VECTOR ----
    {"VECTOR(3)", "1.5,-2,0.25", "Array(Float32)", "[1.5,-2,0.25]"},
    {"VECTOR(2)", "1.5,0.1", "Array(Float64)", "[1.5,0.10000000149011612]"},
    {"VECTOR(2)", "1.5,0.1", "String", "[1.5,0.1]"},
    // ---- Nullable targets (the converter writes the nested column) ----
    {"INT", "7", "Nullable(Int64)", "7"},
    {"DATE", "2024-01-01", "Nullable(Date)", "2024-01-01"},
};

class ConverterCase : public ::testing::TestWithParam<Case> {};

clickhouse::TypeDesc ValueType(const clickhouse::TypeDesc& t) {
  return t.code == clickhouse::TypeCode::kNullable ? t.nested.at(0) : t;
}

TEST_P(ConverterCase, ClampAndError) {
  const Case& tc = GetParam();
  const binlog::ColumnDef def = ParseMysqlType(tc.mysql, "c");
  const clickhouse::TypeDesc target = clickhouse::ParseTypeName(tc.target);
  std::string storage;
  const binlog::Cell cell = MakeCell(def, tc.value, storage);

  ConverterSettings settings;
  settings.zone = TimeZone::Load(tc.zone);
  settings.counters = std::make_shared<ConversionCounters>();
  std::string why_not;
  const Converter clamp =
      SelectConverter(def, target, ColumnName{"db", "t", "c"}, settings, why_not);
  ASSERT_NE(clamp.fn, nullptr) << why_not;

  ConvertScratch scratch;
  clickhouse::ColumnPtr column = clickhouse::CreateColumn(ValueType(target));
  clamp.Append(cell, *column, scratch);
  ASSERT_EQ(column->Size(), 1u);
  EXPECT_EQ(Printable(column->Text(0)), tc.expected);

  const auto counts = settings.counters->Snapshot();
  if (*tc.rule == '\0') {
    EXPECT_TRUE(counts.empty()) << "unexpected clamp under rule "
                                << RangeRuleName(counts.front().rule);
  } else {
    ASSERT_EQ(counts.size(), 1u) << "expected exactly one clamp under " << tc.rule;
    EXPECT_EQ(RangeRuleName(counts[0].rule), tc.rule);
    EXPECT_EQ(counts[0].count, 1u);
    EXPECT_EQ(counts[0].column, "db.t.c");
  }

  settings.policies = RangePolicies::AllError();
  const Converter strict =
      SelectConverter(def, target, ColumnName{"db", "t", "c"}, settings, why_not);
  ASSERT_NE(strict.fn, nullptr);
  clickhouse::ColumnPtr strict_column = clickhouse::CreateColumn(ValueType(target));
  if (*tc.rule == '\0') {
    strict.Append(cell, *strict_column, scratch);
    EXPECT_EQ(Printable(strict_column->Text(0)), tc.expected);
  } else {
    try {
      strict.Append(cell, *strict_column, scratch);
      ADD_FAILURE() << "policy error did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kConversion);
      const std::string message = e.what();
      EXPECT_NE(message.find("db.t.c"), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("rule ") + tc.rule), std::string::npos) << message;
      EXPECT_NE(message.find(tc.target), std::string::npos) << message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Mapping, ConverterCase, ::testing::ValuesIn(kCases));

// Pairs that must be refused at plan time, with a word of the reason.
struct Refused {
  const char* mysql;
  const char* target;
  const char* reason;
};

const Refused kRefused[] = {
    {"DOUBLE", "Float32", "exactly"},
    {"BIGINT", "Float64", "exactly"},
    {"INT", "Float32", "exactly"},
    {"FLOAT", "Int32", "does not take"},
    {"DECIMAL(9,2)", "Decimal(9, 1)", "lose digits"},
    {"DECIMAL(9,2)", "Int64", "fraction"},
    {"DECIMAL(9,2)", "Float32", "does not take"},
    {"DATE", "Int32", "does not take"},
    {"DATETIME", "UInt32", "does not take"},
    {"TIME", "Date", "does not take"},
    {"TIME", "Int32", "does not take"},
    {"VARCHAR(10)", "Int32", "does not take"},
    {"JSON", "UUID", "does not take"},
    {"ENUM('a','b')", "Enum8('a' = 1)", "lacks the label(s) 'b'"},
    {"ENUM('a','b')", "Array(String)", "does not take"},
    {"SET('a','b')", "Enum8('a' = 1, 'b' = 2)", "does not take"},
    {"SMALLINT", "Bool", "Bool"},
    {"BIT(2)", "Bool", "Bool"},
    {"INT", "Date", "does not take"},
    {"VECTOR(2)", "Array(Int32)", "does not take"},
    {"GEOMETRY", "UUID", "does not take"},
};

class RefusedPair : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedPair, IsReportedWithAReason) {
  const Refused& tc = GetParam();
  const binlog::ColumnDef def = ParseMysqlType(tc.mysql);
  std::string why_not;
  const clickhouse::TypeDesc target = clickhouse::ParseTypeName(tc.target);
  const Converter c = SelectConverter(def, target, ColumnName{"db", "t", "c"}, {}, why_not);
  EXPECT_EQ(c.fn, nullptr);
  EXPECT_NE(why_not.find(tc.reason), std::string::npos) << why_not;
}

INSTANTIATE_TEST_SUITE_P(Mapping, RefusedPair, ::testing::ValuesIn(kRefused));

TEST(MappingConverters, LabelsUnknownAreRefusedNamingTheSetting) {
  binlog::ColumnDef def = ParseMysqlType("ENUM('a')");
  def.enum_values.clear();
  std::string why_not;
  const Converter c = SelectConverter(def, clickhouse::ParseTypeName("String"),
                                      ColumnName{"db", "t", "c"}, {}, why_not);
  EXPECT_EQ(c.fn, nullptr);
  EXPECT_NE(why_not.find("binlog_row_metadata=FULL"), std::string::npos) << why_not;
}

TEST(MappingConverters, ClampIsCountedPerColumnAndLoggedOnce) {
  const binlog::ColumnDef def = ParseMysqlType("SMALLINT");
  ConverterSettings settings;
  settings.counters = std::make_shared<ConversionCounters>();
  std::string why_not;
  const Converter c = SelectConverter(def, clickhouse::ParseTypeName("Int8"),
                                      ColumnName{"db", "t", "small"}, settings, why_not);
  ASSERT_NE(c.fn, nullptr);
  clickhouse::ColumnPtr column = clickhouse::CreateColumn("Int8");
  ConvertScratch scratch;
  for (const char* v : {"1000", "-1000", "5", "200"}) {
    std::string storage;
    c.Append(MakeCell(def, v, storage), *column, scratch);
  }
  EXPECT_EQ(settings.counters->Count("db.t.small", RangeRule::kIntegerOverflow), 3u);
  EXPECT_EQ(column->Text(0), "127");
  EXPECT_EQ(column->Text(1), "-128");
  EXPECT_EQ(column->Text(2), "5");
  EXPECT_EQ(column->Text(3), "127");
}

TEST(MappingConverters, ClampsGoToTheExporterFromTheFirstOneOn) {
  const binlog::ColumnDef def = ParseMysqlType("SMALLINT");
  std::vector<std::pair<ColumnName, RangeRule>> exported;
  uint64_t sunk = 0;
  ConverterSettings settings;
  settings.counters = std::make_shared<ConversionCounters>(
      [&](const ColumnName& name, RangeRule rule) -> ConversionCounters::Sink {
        exported.emplace_back(name, rule);
        return [&](uint64_t n) { sunk += n; };
      });
  std::string why_not;
  // A name with a dot keeps its parts apart.
  const Converter c = SelectConverter(def, clickhouse::ParseTypeName("Int8"),
                                      ColumnName{"d.b", "t", "small"}, settings, why_not);
  const Converter quiet = SelectConverter(def, clickhouse::ParseTypeName("Int16"),
                                          ColumnName{"d.b", "t", "fits"}, settings, why_not);
  ASSERT_NE(c.fn, nullptr);
  ASSERT_NE(quiet.fn, nullptr);
  EXPECT_TRUE(exported.empty()) << "nothing is exported before a value is clamped";
  clickhouse::ColumnPtr column = clickhouse::CreateColumn("Int8");
  clickhouse::ColumnPtr wide = clickhouse::CreateColumn("Int16");
  ConvertScratch scratch;
  for (const char* v : {"1000", "5", "-1000", "300"}) {
    std::string storage;
    c.Append(MakeCell(def, v, storage), *column, scratch);
    quiet.Append(MakeCell(def, v, storage), *wide, scratch);
  }
  ASSERT_EQ(exported.size(), 1u);
  EXPECT_EQ(exported[0].first, (ColumnName{"d.b", "t", "small"}));
  EXPECT_EQ(exported[0].second, RangeRule::kIntegerOverflow);
  EXPECT_EQ(sunk, 3u);
}

TEST(MappingConverters, ConvertingAllocatesNothingPerValueAfterWarmUp) {
  // The text scratch keeps its capacity: converting many DECIMAL values into String reuses it.
  const binlog::ColumnDef def = ParseMysqlType("DECIMAL(20,4)");
  std::string why_not;
  const Converter c = SelectConverter(def, clickhouse::ParseTypeName("String"),
                                      ColumnName{"db", "t", "d"}, {}, why_not);
  ASSERT_NE(c.fn, nullptr);
  clickhouse::ColumnPtr column = clickhouse::CreateColumn("String");
  ConvertScratch scratch;
  std::string storage;
  const binlog::Cell cell = MakeCell(def, "-1234567890123456.7891", storage);
  c.Append(cell, *column, scratch);
  const auto* buffer = scratch.text.data();
  for (int i = 0; i < 1000; ++i) c.Append(cell, *column, scratch);
  EXPECT_EQ(scratch.text.data(), buffer);
  EXPECT_EQ(column->Text(1000), "-1234567890123456.7891");
}

}  // namespace
}  // namespace rowbridge::mapping
