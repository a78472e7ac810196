// Text-protocol fields become the same cell bytes a row event carries for the same value: checked
// against the mapping tests' independent cell encoder (EncodeCellValue), against MySQL's text of
// the cell (AppendMysqlText), and through whole converters into ClickHouse columns.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>

#include "binlog/decimal.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/type_name.h"
#include "clickhouse/wire.h"
#include "common/error.h"
#include "mapping/converter.h"
#include "mapping/mysql_text.h"
#include "mapping/text_cell.h"
#include "unit/mapping_cells.h"

namespace rowbridge::mapping {
namespace {

struct Case {
  const char* type;
  const char* text;  // as the text protocol sends it (for the TextSelectExpression)
  // The same value in EncodeCellValue's notation; nullptr where that helper cannot write it
  // (negative fractional TIME, DECIMAL without integer digits): the decoder's text checks those.
  const char* cell_value;
  const char* mysql_text;  // what AppendMysqlText prints for the binlog cell
};

const Case kCases[] = {
    {"TINYINT", "-128", "-128", "-128"},
    {"TINYINT UNSIGNED", "255", "255", "255"},
    {"SMALLINT", "-32768", "-32768", "-32768"},
    {"MEDIUMINT", "-8388608", "-8388608", "-8388608"},
    {"MEDIUMINT UNSIGNED", "16777215", "16777215", "16777215"},
    {"INT", "2147483647", "2147483647", "2147483647"},
    {"INT UNSIGNED", "4294967295", "4294967295", "4294967295"},
    {"BIGINT", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808"},
    {"BIGINT UNSIGNED", "18446744073709551615", "18446744073709551615", "18446744073709551615"},
    {"YEAR", "2155", "2155", "2155"},
    {"YEAR", "0000", "0", "0000"},
    {"FLOAT", "1.100000023841858", "1.1", "1.1"},
    {"FLOAT", "123456792", "123456789", "123456792"},
    {"FLOAT", "-3.3999999521443642e38", "-3.4e38", "-3.4e+38"},
    {"DOUBLE", "0.30000000000000004", "0.30000000000000004", "0.30000000000000004"},
    {"DOUBLE", "1.7976931348623157e308", "1.7976931348623157e308", "1.7976931348623157e+308"},
    {"DOUBLE", "5e-324", "5e-324", "5e-324"},
    {"DECIMAL(10,2)", "-12345678.90", "-12345678.90", "-12345678.90"},
    {"DECIMAL(10,2)", "0.05", "0.05", "0.05"},
    {"DECIMAL(10,2)", "-0.50", "-0.50", "-0.50"},
    {"DECIMAL(10,0)", "9999999999", "9999999999", "9999999999"},
    {"DECIMAL(65,30)", "-12345678901234567890123456789012345.123456789012345678901234567890",
     "-12345678901234567890123456789012345.123456789012345678901234567890",
     "-12345678901234567890123456789012345.123456789012345678901234567890"},
    {"DECIMAL(20,10)", "0.0000000001", "0.0000000001", "0.0000000001"},
    {"DECIMAL(5,5)", "-0.12345", nullptr, "-0.12345"},
    {"BIT(1)", "1", "1", "1"},
    {"BIT(10)", "1023", "1023", "1023"},
    {"BIT(64)", "18446744073709551615", "18446744073709551615", "18446744073709551615"},
    {"ENUM('a','b','c')", "3", "3", "c"},
    {"ENUM('a','b','c')", "0", "0", ""},
    {"SET('x','y','z')", "5", "5", "x,z"},
    {"SET('x','y','z')", "0", "0", ""},
    {"DATE", "2024-02-29", "2024-02-29", "2024-02-29"},
    {"DATE", "0000-00-00", "0000-00-00", "0000-00-00"},
    {"DATE", "2020-00-15", "2020-00-15", "2020-00-15"},
    {"DATETIME", "9999-12-31 23:59:59", "9999-12-31 23:59:59", "9999-12-31 23:59:59"},
    {"DATETIME(6)", "2024-01-02 03:04:05.000006", "2024-01-02 03:04:05.000006",
     "2024-01-02 03:04:05.000006"},
    {"DATETIME(3)", "2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123",
     "2024-01-02 03:04:05.123"},
    {"DATETIME(1)", "0000-00-00 00:00:00.0", "0000-00-00 00:00:00.0", "0000-00-00 00:00:00.0"},
    {"TIMESTAMP", "2038-01-19 03:14:07", "2038-01-19 03:14:07", "2038-01-19 03:14:07"},
    {"TIMESTAMP(6)", "1970-01-01 00:00:01.999999", "1970-01-01 00:00:01.999999",
     "1970-01-01 00:00:01.999999"},
    {"TIMESTAMP(2)", "0000-00-00 00:00:00.00", "0", "0000-00-00 00:00:00.00"},
    {"TIME", "-838:59:59", "-838:59:59", "-838:59:59"},
    {"TIME", "00:00:00", "00:00:00", "00:00:00"},
    {"TIME(1)", "-00:00:01.5", nullptr, "-00:00:01.5"},
    {"TIME(2)", "-00:00:00.01", nullptr, "-00:00:00.01"},
    {"TIME(4)", "-12:34:56.7891", nullptr, "-12:34:56.7891"},
    {"TIME(6)", "-838:59:58.999999", "-838:59:58.999999", "-838:59:58.999999"},
    {"TIME(3)", "100:00:00.500", "100:00:00.500", "100:00:00.500"},
    {"VARCHAR(20)", "héllo", "héllo", "héllo"},
    {"BINARY(4)", std::string_view("ab\0\0", 4).data(), "ab", "ab"},
    {"BLOB", "", "", ""},
};

class TextCellTest : public ::testing::TestWithParam<Case> {};

TEST_P(TextCellTest, SameBytesAsTheBinlog) {
  const Case& c = GetParam();
  const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(c.type);
  std::string_view text = c.text;
  if (std::string_view(c.type) == "BINARY(4)") text = std::string_view(c.text, 4);
  std::array<uint8_t, kTextCellBufferSize> buffer{};
  binlog::Cell cell;
  EncodeTextCell(column, 3, text, buffer, "db.t.c", cell);
  EXPECT_EQ(cell.index, 3u);
  EXPECT_FALSE(cell.is_null);
  if (c.cell_value != nullptr) {
    const std::string expected = rowbridge::testing::EncodeCellValue(column, c.cell_value);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(cell.data), cell.size), expected)
        << c.type << " " << c.text;
  }
  std::string shown;
  AppendMysqlText(cell, *TimeZone::Utc(), shown);
  EXPECT_EQ(shown, c.mysql_text);
}

INSTANTIATE_TEST_SUITE_P(Types, TextCellTest, ::testing::ValuesIn(kCases));

TEST(TextCell, NullIsNullCell) {
  const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType("INT");
  std::array<uint8_t, kTextCellBufferSize> buffer{};
  binlog::Cell cell;
  EncodeTextCell(column, 0, std::nullopt, buffer, "db.t.c", cell);
  EXPECT_TRUE(cell.is_null);
  EXPECT_EQ(cell.size, 0u);
}

TEST(TextCell, BadTextNamesTheColumn) {
  std::array<uint8_t, kTextCellBufferSize> buffer{};
  binlog::Cell cell;
  const std::pair<const char*, const char*> bad[] = {
      {"TINYINT", "128"},         {"INT UNSIGNED", "-1"},    {"INT", "12x"},
      {"DECIMAL(5,2)", "1234.5"}, {"DECIMAL(5,2)", "1.234"}, {"DATE", "2024-13-01"},
      {"DATETIME", "2024-01-01"}, {"TIME", "12:60:00"},      {"BIT(3)", "8"},
      {"FLOAT", "0.1"},           {"YEAR", "1900"},          {"TIMESTAMP", "abc"},
  };
  for (auto [type, text] : bad) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(type);
    try {
      EncodeTextCell(column, 0, std::string_view(text), buffer, "db.t.c", cell);
      ADD_FAILURE() << type << " accepted '" << text << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kProtocol) << type;
      EXPECT_NE(std::string(e.what()).find("db.t.c"), std::string::npos) << e.what();
    }
  }
}

TEST(TextCell, SelectExpressions) {
  EXPECT_EQ(TextSelectExpression(rowbridge::testing::ParseMysqlType("BIT(3)"), "`b`"),
            "CAST(`b` AS UNSIGNED) AS `b`");
  EXPECT_EQ(TextSelectExpression(rowbridge::testing::ParseMysqlType("ENUM('a')"), "`e`"),
            "CAST(`e` AS UNSIGNED) AS `e`");
  EXPECT_EQ(TextSelectExpression(rowbridge::testing::ParseMysqlType("FLOAT"), "`f`"),
            "(`f` + 0e0) AS `f`");
  EXPECT_EQ(TextSelectExpression(rowbridge::testing::ParseMysqlType("DOUBLE(9,2)"), "`d`"),
            "(`d` + 0e0) AS `d`");
  EXPECT_EQ(TextSelectExpression(rowbridge::testing::ParseMysqlType("DATETIME"), "`d`"), "`d`");
}

// Whole converters: the same ClickHouse column bytes from the text cell and the binlog cell.
TEST(TextCell, ConvertersWriteTheSameColumns) {
  const std::tuple<const char*, const char*, const char*, const char*> cases[] = {
      {"DECIMAL(12,4)", "Decimal(18, 6)", "-1234.5678", "-1234.5678"},
      {"DATETIME(6)", "DateTime64(6)", "2024-01-02 03:04:05.000006", "2024-01-02 03:04:05.000006"},
      {"TIMESTAMP(3)", "DateTime64(3)", "2001-02-03 04:05:06.789", "2001-02-03 04:05:06.789"},
      {"TIME(6)", "String", "-01:02:03.450000", "-01:02:03.450000"},
      {"TIME(1)", "String", "-00:00:01.5", "hex:7ffffece"},
      {"ENUM('x','y')", "Enum8('x' = 1, 'y' = 2)", "2", "2"},
      {"SET('x','y')", "String", "3", "3"},
      {"BIT(12)", "UInt16", "4095", "4095"},
      {"FLOAT", "Float64", "1.100000023841858", "1.1"},
      {"DATE", "Date", "0000-00-00", "0000-00-00"},
      {"YEAR", "UInt16", "2024", "2024"},
  };
  for (auto [mysql, ch, text, value] : cases) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(mysql);
    const clickhouse::TypeDesc target = clickhouse::ParseTypeName(ch);
    ConverterSettings settings;
    std::string why;
    Converter conv = SelectConverter(column, target, ColumnName{"db", "t", "c"}, settings, why);
    ASSERT_NE(conv.fn, nullptr) << mysql << " -> " << ch << ": " << why;
    auto from_text = clickhouse::CreateColumn(target);
    auto from_binlog = clickhouse::CreateColumn(target);
    ConvertScratch scratch;
    std::array<uint8_t, kTextCellBufferSize> buffer{};
    binlog::Cell text_cell;
    EncodeTextCell(column, 0, std::string_view(text), buffer, "db.t.c", text_cell);
    conv.Append(text_cell, *from_text, scratch);
    std::string storage;
    conv.Append(rowbridge::testing::MakeCell(column, value, storage), *from_binlog, scratch);
    clickhouse::WireWriter a, b;
    from_text->WriteData(a);
    from_binlog->WriteData(b);
    EXPECT_EQ(a.data(), b.data()) << mysql << " -> " << ch;
    EXPECT_EQ(from_text->Size(), 1u);
  }
}

// The cases of rowbridge check's own text encoder, which this one replaced: every encoded cell must
// decode, with the binlog module's own decoders, to the value the text named.
class CellOf {
 public:
  binlog::Cell operator()(const binlog::ColumnDef& column, std::optional<std::string_view> text) {
    binlog::Cell cell;
    EncodeTextCell(column, 0, text, buffer_, "db.t.c", cell);
    return cell;
  }

 private:
  std::array<uint8_t, kTextCellBufferSize> buffer_{};
};

binlog::ColumnDef Def(binlog::ColumnType type, uint32_t meta = 0, uint8_t precision = 0,
                      uint8_t scale = 0, bool is_unsigned = false) {
  binlog::ColumnDef c;
  c.type = type;
  c.meta = meta;
  c.precision = precision;
  c.scale = scale;
  c.is_unsigned = is_unsigned;
  c.name = "c";
  return c;
}

using binlog::ColumnType;

TEST(TextCellDecodes, Integers) {
  CellOf e;
  EXPECT_EQ(binlog::CellInt8(e(Def(ColumnType::kTiny), "-128")), -128);
  EXPECT_EQ(binlog::CellUInt8(e(Def(ColumnType::kTiny, 0, 0, 0, true), "255")), 255);
  EXPECT_EQ(binlog::CellInt24(e(Def(ColumnType::kInt24), "-8388608")), -8388608);
  const binlog::ColumnDef big = Def(ColumnType::kLongLong);
  const binlog::ColumnDef big_unsigned = Def(ColumnType::kLongLong, 0, 0, 0, true);
  EXPECT_EQ(binlog::CellUInt64(e(big_unsigned, "18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(binlog::CellInt64(e(big, "-9223372036854775808")), INT64_MIN);
  EXPECT_THROW(e(big, "12x"), Error);
  EXPECT_TRUE(e(big, std::nullopt).is_null);
}

TEST(TextCellDecodes, FloatsAreExactFromFullText) {
  CellOf e;
  EXPECT_EQ(binlog::CellFloat(e(Def(ColumnType::kFloat, 4), "1.100000023841858")), 1.1f);
  EXPECT_EQ(binlog::CellDouble(e(Def(ColumnType::kDouble, 8), "-2.25e-300")), -2.25e-300);
}

TEST(TextCellDecodes, DecimalsRoundTripThroughTheBinlogDecoder) {
  CellOf e;
  struct DecimalCase {
    int precision, scale;
    const char* text;
  } cases[] = {{9, 2, "-1234567.89"},
               {9, 2, "0.00"},
               {9, 2, "-0.50"},
               {10, 0, "-12"},
               {2, 2, "0.01"},
               {18, 9, "123456789.123456789"},
               {30, 10, "-12345678901234567890.0123456789"},
               {65, 30, "0.000000000000000000000000000001"},
               {65, 0, "99999999999999999999999999999999999999999999999999999999999999999"}};
  for (const DecimalCase& c : cases) {
    const binlog::ColumnDef def = Def(ColumnType::kNewDecimal, 0, static_cast<uint8_t>(c.precision),
                                      static_cast<uint8_t>(c.scale));
    const binlog::Cell cell = e(def, c.text);
    ASSERT_EQ(cell.size, binlog::DecimalBinarySize(c.precision, c.scale)) << c.text;
    EXPECT_EQ(binlog::DecimalText(cell.data, cell.size, c.precision, c.scale), c.text);
  }
  EXPECT_THROW(e(Def(ColumnType::kNewDecimal, 0, 4, 2), "123.45"), Error);
}

TEST(TextCellDecodes, Temporals) {
  CellOf e;
  binlog::Cell cell = e(Def(ColumnType::kDate), "2020-02-29");
  EXPECT_EQ(binlog::DecodeDate(cell.data, cell.size), (binlog::TemporalParts{2020, 2, 29}));

  for (uint32_t fsp : {0u, 1u, 3u, 6u}) {
    const binlog::ColumnDef def = Def(ColumnType::kDateTime2, fsp);
    const char* text = fsp == 0   ? "1999-12-31 23:59:59"
                       : fsp == 1 ? "1999-12-31 23:59:59.9"
                       : fsp == 3 ? "1999-12-31 23:59:59.999"
                                  : "1999-12-31 23:59:59.999999";
    cell = e(def, text);
    ASSERT_EQ(cell.size, binlog::DateTime2Bytes(fsp));
    std::string out;
    binlog::AppendDateTimeText(binlog::DecodeDateTime2(cell.data, cell.size, fsp), fsp, out);
    EXPECT_EQ(out, text);
  }

  struct TimeCase {
    uint32_t fsp;
    const char* text;
  } times[] = {{0, "00:00:00"},      {0, "-838:59:59"},       {3, "-838:59:59.000"},
               {3, "-00:00:00.500"}, {3, "12:34:56.789"},     {1, "-00:00:01.5"},
               {2, "-10:00:00.01"},  {6, "-01:00:00.000001"}, {5, "23:59:59.99999"},
               {4, "-00:00:00.0001"}};
  for (const TimeCase& t : times) {
    cell = e(Def(ColumnType::kTime2, t.fsp), t.text);
    ASSERT_EQ(cell.size, binlog::Time2Bytes(t.fsp)) << t.text;
    std::string out;
    binlog::AppendTimeText(binlog::DecodeTime2(cell.data, cell.size, t.fsp), t.fsp, out);
    EXPECT_EQ(out, t.text) << "fsp " << t.fsp;
  }

  // check selected TIMESTAMPs as UNIX_TIMESTAMP(c) ("1577836800.123", "0"); the copy's encoder
  // reads the same instants as a time_zone '+00:00' session prints them.
  cell = e(Def(ColumnType::kTimestamp2, 3), "2020-01-01 00:00:00.123");
  EXPECT_EQ(binlog::DecodeTimestamp2(cell.data, cell.size, 3),
            (binlog::TimestampValue{1577836800, 123000}));
  cell = e(Def(ColumnType::kTimestamp2, 0), "0000-00-00 00:00:00");
  EXPECT_EQ(binlog::DecodeTimestamp2(cell.data, cell.size, 0), (binlog::TimestampValue{0, 0}));

  EXPECT_EQ(binlog::CellYear(e(Def(ColumnType::kYear), "2155")), 2155);
  EXPECT_EQ(binlog::CellYear(e(Def(ColumnType::kYear), "0")), 0);
  EXPECT_THROW(e(Def(ColumnType::kDate), "2020-2-29"), Error);
}

TEST(TextCellDecodes, BitEnumSetAndStrings) {
  CellOf e;
  binlog::Cell cell = e(Def(ColumnType::kBit, 10), "1023");
  EXPECT_EQ(cell.size, 2u);
  EXPECT_EQ(binlog::CellBit(cell), 1023u);
  EXPECT_EQ(binlog::CellEnumIndex(e(Def(ColumnType::kEnum, 1), "2")), 2);
  EXPECT_EQ(binlog::CellSetBits(e(Def(ColumnType::kSet, 1), "5")), 5u);
  const std::string text("a\0b", 3);
  cell = e(Def(ColumnType::kBlob, 2), std::string_view(text));
  EXPECT_EQ(binlog::CellBytes(cell), std::string_view(text));
  // (check's encoder also refused JSON; that is check's choice of columns now:
  // check_source_types_test.cpp.)
}

TEST(TextCellDecodes, SelectExpressionsOfCheck) {
  EXPECT_EQ(TextSelectExpression(Def(ColumnType::kFloat, 4), "`f`"), "(`f` + 0e0) AS `f`");
  EXPECT_EQ(TextSelectExpression(Def(ColumnType::kTimestamp2, 2), "`t`"), "`t`");
  EXPECT_EQ(TextSelectExpression(Def(ColumnType::kSet, 1), "`s`"), "CAST(`s` AS UNSIGNED) AS `s`");
  EXPECT_EQ(TextSelectExpression(Def(ColumnType::kVarchar, 80), "`v`"), "`v`");
}

}  // namespace
}  // namespace rowbridge::mapping
