// Binary-protocol values become the same cell bytes as the text protocol's text of the same value
// (text_cell.h, itself checked against the binlog's bytes): each case gives a value both ways.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>

#include "common/error.h"
#include "mapping/binary_cell.h"
#include "mapping/text_cell.h"
#include "unit/mapping_cells.h"

namespace rowbridge::mapping {
namespace {

constexpr uint8_t kTiny = 1, kShort = 2, kLong = 3, kFloat = 4, kDouble = 5, kTimestamp = 7,
                  kLongLong = 8, kInt24 = 9, kDate = 10, kTime = 11, kDateTime = 12, kYear = 13,
                  kBit = 16, kNewDecimal = 246, kVarString = 253, kString = 254, kBlob = 252;

std::string LittleEndian(uint64_t v, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}
std::string FloatBytes(float f) {
  return LittleEndian(std::bit_cast<uint32_t>(f), 4);
}
std::string DoubleBytes(double d) {
  return LittleEndian(std::bit_cast<uint64_t>(d), 8);
}
std::string Date(int y, int m, int d) {
  return LittleEndian(static_cast<uint64_t>(y), 2) + static_cast<char>(m) + static_cast<char>(d);
}
std::string DateTime(int y, int mo, int d, int h, int mi, int s, int us = -1) {
  std::string out =
      Date(y, mo, d) + static_cast<char>(h) + static_cast<char>(mi) + static_cast<char>(s);
  if (us >= 0) out += LittleEndian(static_cast<uint64_t>(us), 4);
  return out;
}
std::string Time(bool negative, int days, int h, int m, int s, int us = -1) {
  std::string out = std::string(1, negative ? '\1' : '\0') +
                    LittleEndian(static_cast<uint64_t>(days), 4) + static_cast<char>(h) +
                    static_cast<char>(m) + static_cast<char>(s);
  if (us >= 0) out += LittleEndian(static_cast<uint64_t>(us), 4);
  return out;
}

struct Case {
  std::string type;
  WireColumn wire;
  std::string value;  // binary-protocol bytes
  std::string text;   // the text protocol's text of the same value (TextSelectExpression)
};

std::vector<Case> Cases() {
  return {
      {"TINYINT", {kTiny, false}, LittleEndian(0x80, 1), "-128"},
      {"TINYINT UNSIGNED", {kTiny, true}, LittleEndian(255, 1), "255"},
      {"SMALLINT", {kShort, false}, LittleEndian(0x8000, 2), "-32768"},
      {"SMALLINT UNSIGNED", {kShort, true}, LittleEndian(65535, 2), "65535"},
      {"MEDIUMINT", {kInt24, false}, LittleEndian(0xff800000, 4), "-8388608"},
      {"MEDIUMINT", {kInt24, false}, LittleEndian(8388607, 4), "8388607"},
      {"MEDIUMINT UNSIGNED", {kInt24, true}, LittleEndian(16777215, 4), "16777215"},
      {"INT", {kLong, false}, LittleEndian(0x80000000, 4), "-2147483648"},
      {"INT UNSIGNED", {kLong, true}, LittleEndian(4294967295u, 4), "4294967295"},
      {"BIGINT", {kLongLong, false}, LittleEndian(uint64_t{1} << 63, 8), "-9223372036854775808"},
      {"BIGINT UNSIGNED", {kLongLong, true}, LittleEndian(~uint64_t{0}, 8), "18446744073709551615"},
      {"INT", {kLongLong, false}, LittleEndian(static_cast<uint64_t>(-5), 8), "-5"},
      {"YEAR", {kYear, true}, LittleEndian(2155, 2), "2155"},
      {"YEAR", {kYear, true}, LittleEndian(0, 2), "0000"},
      {"FLOAT", {kFloat, false}, FloatBytes(1.1f), "1.100000023841858"},
      {"FLOAT", {kFloat, false}, FloatBytes(-3.4e38f), "-3.3999999521443642e38"},
      {"DOUBLE", {kDouble, false}, DoubleBytes(7.6899999999999995), "7.6899999999999995"},
      {"DOUBLE", {kDouble, false}, DoubleBytes(5e-324), "5e-324"},
      {"DECIMAL(10,2)", {kNewDecimal, false}, "-12345678.90", "-12345678.90"},
      {"DECIMAL(5,5)", {kNewDecimal, false}, "-0.12345", "-0.12345"},
      {"BIT(1)", {kBit, true}, LittleEndian(1, 1), "1"},
      {"BIT(10)", {kBit, true}, std::string("\x03\xff", 2), "1023"},
      {"BIT(64)", {kBit, true}, std::string(8, '\xff'), "18446744073709551615"},
      {"ENUM('a','b','c')", {kLongLong, false}, LittleEndian(3, 8), "3"},
      {"ENUM('a','b','c')", {kLongLong, true}, LittleEndian(0, 8), "0"},
      {"SET('x','y','z')", {kLongLong, false}, LittleEndian(5, 8), "5"},
      {"SET('x','y','z')", {kLongLong, false}, LittleEndian(0, 8), "0"},
      {"DATE", {kDate, false}, Date(2024, 2, 29), "2024-02-29"},
      {"DATE", {kDate, false}, "", "0000-00-00"},
      {"DATE", {kDate, false}, Date(2020, 0, 15), "2020-00-15"},
      {"DATETIME", {kDateTime, false}, DateTime(9999, 12, 31, 23, 59, 59), "9999-12-31 23:59:59"},
      {"DATETIME", {kDateTime, false}, Date(2024, 1, 2), "2024-01-02 00:00:00"},
      {"DATETIME(6)",
       {kDateTime, false},
       DateTime(2024, 1, 2, 3, 4, 5, 6),
       "2024-01-02 03:04:05.000006"},
      {"DATETIME(3)",
       {kDateTime, false},
       DateTime(2024, 1, 2, 3, 4, 5, 123000),
       "2024-01-02 03:04:05.123"},
      {"DATETIME(1)", {kDateTime, false}, "", "0000-00-00 00:00:00.0"},
      {"TIMESTAMP", {kTimestamp, false}, DateTime(2038, 1, 19, 3, 14, 7), "2038-01-19 03:14:07"},
      {"TIMESTAMP(6)",
       {kTimestamp, false},
       DateTime(1970, 1, 1, 0, 0, 1, 999999),
       "1970-01-01 00:00:01.999999"},
      {"TIMESTAMP(2)", {kTimestamp, false}, "", "0000-00-00 00:00:00.00"},
      {"TIME", {kTime, false}, Time(true, 34, 22, 59, 59), "-838:59:59"},
      {"TIME", {kTime, false}, "", "00:00:00"},
      {"TIME", {kTime, false}, Time(false, 1, 1, 0, 0), "25:00:00"},
      {"TIME(1)", {kTime, false}, Time(true, 0, 0, 0, 1, 500000), "-00:00:01.5"},
      {"TIME(2)", {kTime, false}, Time(true, 0, 0, 0, 0, 10000), "-00:00:00.01"},
      {"TIME(4)", {kTime, false}, Time(true, 0, 12, 34, 56, 789100), "-12:34:56.7891"},
      {"TIME(6)", {kTime, false}, Time(true, 34, 22, 59, 58, 999999), "-838:59:58.999999"},
      {"TIME(3)", {kTime, false}, Time(false, 4, 4, 0, 0, 500000), "100:00:00.500"},
      {"VARCHAR(20)", {kVarString, false}, "héllo", "héllo"},
      {"BINARY(4)", {kString, false}, std::string("ab\0\0", 4), std::string("ab\0\0", 4)},
      {"BLOB", {kBlob, false}, "", ""},
      {"JSON", {kBlob, false}, "{\"a\": 1}", "{\"a\": 1}"},
  };
}

TEST(BinaryCell, SameBytesAsTheTextProtocol) {
  for (const Case& c : Cases()) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(c.type);
    CellBuffer binary_buffer{}, text_buffer{};
    binlog::Cell from_binary, from_text;
    EncodeBinaryCell(column, c.wire, 2, c.value, binary_buffer, "db.t.c", from_binary);
    EncodeTextCell(column, 2, std::string_view(c.text), text_buffer, "db.t.c", from_text);
    EXPECT_EQ(from_binary.index, 2u);
    EXPECT_FALSE(from_binary.is_null);
    EXPECT_EQ(from_binary.column, &column);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(from_binary.data), from_binary.size),
              std::string(reinterpret_cast<const char*>(from_text.data), from_text.size))
        << c.type << " " << c.text;
  }
}

TEST(BinaryCell, NullIsNullCell) {
  const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType("INT");
  CellBuffer buffer{};
  binlog::Cell cell;
  EncodeBinaryCell(column, {kLong, false}, 0, std::nullopt, buffer, "db.t.c", cell);
  EXPECT_TRUE(cell.is_null);
  EXPECT_EQ(cell.size, 0u);
}

TEST(BinaryCell, BadValuesNameTheColumn) {
  const std::vector<Case> bad = {
      {"TINYINT", {kLongLong, false}, LittleEndian(128, 8), ""},
      {"TINYINT UNSIGNED", {kTiny, false}, LittleEndian(0xff, 1), ""},  // -1
      {"INT UNSIGNED", {kLong, false}, LittleEndian(0xffffffff, 4), ""},
      {"BIGINT", {kLongLong, true}, LittleEndian(uint64_t{1} << 63, 8), ""},
      {"MEDIUMINT", {kInt24, false}, LittleEndian(8388608, 4), ""},
      {"INT", {kLong, false}, LittleEndian(1, 3), ""},  // wrong size
      {"DOUBLE", {kDouble, false}, LittleEndian(1, 4), ""},
      {"DECIMAL(5,2)", {kNewDecimal, false}, "1234.5", ""},
      {"DATE", {kDate, false}, DateTime(2024, 1, 1, 1, 0, 0), ""},
      {"DATE", {kDate, false}, Date(2024, 13, 1), ""},
      {"DATETIME", {kDateTime, false}, "abcde", ""},
      {"DATETIME", {kDateTime, false}, DateTime(2024, 1, 1, 24, 0, 0), ""},
      {"TIMESTAMP", {kTimestamp, false}, DateTime(1969, 12, 31, 23, 59, 59), ""},
      {"TIME", {kTime, false}, Time(false, 0, 24, 0, 0), ""},
      {"TIME", {kTime, false}, Time(false, 0, 1, 60, 0), ""},
      {"TIME", {kTime, false}, Time(false, 1000, 0, 0, 0), ""},
      {"TIME", {kTime, false}, Time(false, 0, 0, 0, 0).substr(0, 5), ""},
      {"BIT(3)", {kBit, true}, LittleEndian(8, 1), ""},
      {"BIT(10)", {kBit, true}, LittleEndian(1, 1), ""},
      {"YEAR", {kYear, true}, LittleEndian(1900, 2), ""},
      {"ENUM('a')", {kLongLong, true}, LittleEndian(256, 8), ""},
  };
  for (const Case& c : bad) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(c.type);
    CellBuffer buffer{};
    binlog::Cell cell;
    try {
      EncodeBinaryCell(column, c.wire, 0, c.value, buffer, "db.t.c", cell);
      ADD_FAILURE() << c.type << " accepted " << c.value.size() << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kProtocol) << c.type << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("db.t.c"), std::string::npos) << e.what();
    }
  }
}

TEST(BinaryCell, WireTypesThatCannotBeTheColumn) {
  const std::pair<const char*, WireColumn> bad[] = {
      {"DATE", {kLong, false}},           {"INT", {kDouble, false}},
      {"DOUBLE", {kFloat, false}},        {"ENUM('a')", {kString, false}},
      {"SET('a')", {kString, false}},     {"VARCHAR(3)", {kLong, false}},
      {"TIMESTAMP", {kDateTime, false}},  {"TIME", {kDateTime, false}},
      {"DECIMAL(5,2)", {kDouble, false}}, {"BIT(3)", {kLongLong, true}},
  };
  for (auto [type, wire] : bad) {
    const binlog::ColumnDef column = rowbridge::testing::ParseMysqlType(type);
    try {
      CheckWireColumn(column, wire, "db.t.c");
      ADD_FAILURE() << type << " accepted wire type " << int{wire.type};
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kProtocol) << e.what();
      EXPECT_NE(std::string(e.what()).find("db.t.c"), std::string::npos) << e.what();
    }
  }
}

TEST(BinaryCell, RowEncoderBindsAndEncodes) {
  const std::vector<binlog::ColumnDef> columns = {
      rowbridge::testing::ParseMysqlType("INT", "id"),
      rowbridge::testing::ParseMysqlType("VARCHAR(10)", "name")};
  BinaryRowEncoder encoder(columns, "db.t");
  const std::vector<std::optional<std::string_view>> fields = {std::nullopt, "x"};
  EXPECT_THROW(encoder.Encode(fields), Error);  // not bound
  const std::vector<WireColumn> wrong = {{kLong, false}};
  EXPECT_THROW(encoder.Bind(wrong), Error);
  const std::vector<WireColumn> wire = {{kLong, false}, {kVarString, false}};
  encoder.Bind(wire);
  std::span<const binlog::Cell> cells = encoder.Encode(fields);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_TRUE(cells[0].is_null);
  EXPECT_EQ(cells[1].size, 1u);
  EXPECT_EQ(cells[1].index, 1u);
}

TEST(BinaryCell, SelectExpressions) {
  EXPECT_EQ(BinarySelectExpression(rowbridge::testing::ParseMysqlType("ENUM('a')"), "`e`"),
            "CAST(`e` AS UNSIGNED) AS `e`");
  EXPECT_EQ(BinarySelectExpression(rowbridge::testing::ParseMysqlType("SET('a')"), "`s`"),
            "CAST(`s` AS UNSIGNED) AS `s`");
  EXPECT_EQ(BinarySelectExpression(rowbridge::testing::ParseMysqlType("DOUBLE(9,2)"), "`d`"),
            "`d`");
  EXPECT_EQ(BinarySelectExpression(rowbridge::testing::ParseMysqlType("FLOAT"), "`f`"), "`f`");
  EXPECT_EQ(BinarySelectExpression(rowbridge::testing::ParseMysqlType("BIT(3)"), "`b`"), "`b`");
}

}  // namespace
}  // namespace rowbridge::mapping
