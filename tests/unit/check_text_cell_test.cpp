// rowbridge check's text → binlog cell encoding: every encoded cell must decode, with the binlog
// module's own decoders, to the value the text named.
#include <gtest/gtest.h>

#include "binlog/decimal.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "check/source_table.h"
#include "check/text_cell.h"
#include "common/error.h"

namespace rowbridge::check {
namespace {

using binlog::ColumnDef;
using binlog::ColumnType;

ColumnDef Def(ColumnType type, uint32_t meta = 0, uint8_t precision = 0, uint8_t scale = 0) {
  ColumnDef c;
  c.type = type;
  c.meta = meta;
  c.precision = precision;
  c.scale = scale;
  c.name = "c";
  return c;
}

TEST(CheckTextCell, Integers) {
  TextCellEncoder e;
  const ColumnDef tiny = Def(ColumnType::kTiny);
  EXPECT_EQ(binlog::CellInt8(e.Encode(tiny, 0, "-128")), -128);
  EXPECT_EQ(binlog::CellUInt8(e.Encode(tiny, 0, "255")), 255);
  const ColumnDef medium = Def(ColumnType::kInt24);
  EXPECT_EQ(binlog::CellInt24(e.Encode(medium, 0, "-8388608")), -8388608);
  const ColumnDef big = Def(ColumnType::kLongLong);
  EXPECT_EQ(binlog::CellUInt64(e.Encode(big, 0, "18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(binlog::CellInt64(e.Encode(big, 0, "-9223372036854775808")), INT64_MIN);
  EXPECT_THROW(e.Encode(big, 0, "12x"), Error);
  EXPECT_TRUE(e.Encode(big, 0, std::nullopt).is_null);
}

TEST(CheckTextCell, FloatsAreExactFromFullText) {
  TextCellEncoder e;
  EXPECT_EQ(binlog::CellFloat(e.Encode(Def(ColumnType::kFloat, 4), 0, "1.100000023841858")), 1.1f);
  EXPECT_EQ(binlog::CellDouble(e.Encode(Def(ColumnType::kDouble, 8), 0, "-2.25e-300")), -2.25e-300);
}

TEST(CheckTextCell, DecimalsRoundTripThroughTheBinlogDecoder) {
  TextCellEncoder e;
  struct Case {
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
  for (const Case& c : cases) {
    const ColumnDef def = Def(ColumnType::kNewDecimal, 0, static_cast<uint8_t>(c.precision),
                              static_cast<uint8_t>(c.scale));
    const binlog::Cell cell = e.Encode(def, 0, c.text);
    ASSERT_EQ(cell.size, binlog::DecimalBinarySize(c.precision, c.scale)) << c.text;
    EXPECT_EQ(binlog::DecimalText(cell.data, cell.size, c.precision, c.scale), c.text);
  }
  EXPECT_THROW(e.Encode(Def(ColumnType::kNewDecimal, 0, 4, 2), 0, "123.45"), Error);
}

TEST(CheckTextCell, Temporals) {
  TextCellEncoder e;
  binlog::Cell cell = e.Encode(Def(ColumnType::kDate), 0, "2020-02-29");
  EXPECT_EQ(binlog::DecodeDate(cell.data, cell.size), (binlog::TemporalParts{2020, 2, 29}));

  for (uint32_t fsp : {0u, 1u, 3u, 6u}) {
    const ColumnDef def = Def(ColumnType::kDateTime2, fsp);
    const char* text = fsp == 0   ? "1999-12-31 23:59:59"
                       : fsp == 1 ? "1999-12-31 23:59:59.9"
                       : fsp == 3 ? "1999-12-31 23:59:59.999"
                                  : "1999-12-31 23:59:59.999999";
    cell = e.Encode(def, 0, text);
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
    cell = e.Encode(Def(ColumnType::kTime2, t.fsp), 0, t.text);
    ASSERT_EQ(cell.size, binlog::Time2Bytes(t.fsp)) << t.text;
    std::string out;
    binlog::AppendTimeText(binlog::DecodeTime2(cell.data, cell.size, t.fsp), t.fsp, out);
    EXPECT_EQ(out, t.text) << "fsp " << t.fsp;
  }

  cell = e.Encode(Def(ColumnType::kTimestamp2, 3), 0, "1577836800.123");
  EXPECT_EQ(binlog::DecodeTimestamp2(cell.data, cell.size, 3),
            (binlog::TimestampValue{1577836800, 123000}));
  cell = e.Encode(Def(ColumnType::kTimestamp2, 0), 0, "0");
  EXPECT_EQ(binlog::DecodeTimestamp2(cell.data, cell.size, 0), (binlog::TimestampValue{0, 0}));

  EXPECT_EQ(binlog::CellYear(e.Encode(Def(ColumnType::kYear), 0, "2155")), 2155);
  EXPECT_EQ(binlog::CellYear(e.Encode(Def(ColumnType::kYear), 0, "0")), 0);
  EXPECT_THROW(e.Encode(Def(ColumnType::kDate), 0, "2020-2-29"), Error);
}

TEST(CheckTextCell, BitEnumSetAndStrings) {
  TextCellEncoder e;
  binlog::Cell cell = e.Encode(Def(ColumnType::kBit, 10), 0, "1023");
  EXPECT_EQ(cell.size, 2u);
  EXPECT_EQ(binlog::CellBit(cell), 1023u);
  EXPECT_EQ(binlog::CellEnumIndex(e.Encode(Def(ColumnType::kEnum, 1), 0, "2")), 2);
  EXPECT_EQ(binlog::CellSetBits(e.Encode(Def(ColumnType::kSet, 1), 0, "5")), 5u);
  const std::string text("a\0b", 3);
  cell = e.Encode(Def(ColumnType::kBlob, 2), 0, std::string_view(text));
  EXPECT_EQ(binlog::CellBytes(cell), std::string_view(text));
  EXPECT_THROW(e.Encode(Def(ColumnType::kJson, 4), 0, "{}"), Error);
}

TEST(CheckTextCell, SelectExpressions) {
  EXPECT_EQ(SourceSelectExpression(Def(ColumnType::kFloat, 4), "`f`"), "`f` + 0e0");
  EXPECT_EQ(SourceSelectExpression(Def(ColumnType::kTimestamp2, 2), "`t`"), "UNIX_TIMESTAMP(`t`)");
  EXPECT_EQ(SourceSelectExpression(Def(ColumnType::kSet, 1), "`s`"), "CAST(`s` AS UNSIGNED)");
  EXPECT_EQ(SourceSelectExpression(Def(ColumnType::kVarchar, 80), "`v`"), "`v`");
}

TEST(CheckSourceTable, EnumLabelsAndQuoting) {
  EXPECT_EQ(ParseEnumLabels("enum('a','it''s','')"), (std::vector<std::string>{"a", "it's", ""}));
  EXPECT_EQ(ParseEnumLabels("set('x,y','z')"), (std::vector<std::string>{"x,y", "z"}));
  EXPECT_THROW(ParseEnumLabels("enum(a)"), Error);
  EXPECT_EQ(QuoteMysqlName("a`b"), "`a``b`");
  EXPECT_EQ(QuoteMysqlString("it's\\"), "'it''s\\\\'");
}

}  // namespace
}  // namespace rowbridge::check
