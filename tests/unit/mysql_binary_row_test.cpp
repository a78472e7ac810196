// Binary-protocol rows (COM_STMT_EXECUTE results): values per wire type, the NULL bitmap's offset
// of 2, and malformed rows rejected with an error naming the column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "mysql/binary_row.h"

namespace rowbridge::mysql {
namespace {

ColumnDefinition Column(std::string name, uint8_t type) {
  ColumnDefinition c;
  c.name = std::move(name);
  c.type = type;
  return c;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

struct Parsed {
  std::vector<std::string_view> fields;
  std::vector<uint8_t> nulls;
};

Parsed Parse(const std::string& payload, const std::vector<ColumnDefinition>& columns) {
  Parsed p;
  p.fields.resize(columns.size());
  p.nulls.resize(columns.size());
  ParseBinaryRow(payload, columns, p.fields, p.nulls, "127.0.0.1:3306");
  return p;
}

TEST(MysqlBinaryRow, ValuesOfEveryForm) {
  const std::vector<ColumnDefinition> columns = {
      Column("tiny", 1),     Column("short", 2),     Column("int24", 9),  Column("long", 3),
      Column("longlong", 8), Column("float", 4),     Column("double", 5), Column("year", 13),
      Column("date", 10),    Column("datetime", 12), Column("time", 11),  Column("ts", 7),
      Column("dec", 246),    Column("varchar", 253), Column("bit", 16),   Column("nul", 6),
  };
  std::string row = Bytes({0x00, 0x00, 0x00, 0x00});  // header, bitmap of (16 + 9) / 8 = 3 bytes
  row += Bytes({0xff});                               // tiny
  row += Bytes({0x34, 0x12});                         // short
  row += Bytes({0x00, 0x00, 0x80, 0xff});             // int24 (4 bytes)
  row += Bytes({1, 2, 3, 4});                         // long
  row += Bytes({1, 2, 3, 4, 5, 6, 7, 8});             // longlong
  row += Bytes({0xcd, 0xcc, 0x8c, 0x3f});             // float
  row += Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f});       // double
  row += Bytes({0xe8, 0x07});                         // year
  row += Bytes({4, 0xe8, 0x07, 2, 29});               // date
  row += Bytes({0});                                  // datetime: zero
  row += Bytes({12, 1, 34, 0, 0, 0, 22, 59, 59, 1, 0, 0, 0});  // time
  row += Bytes({7, 0xb2, 0x07, 1, 1, 0, 0, 1});                // ts
  row += Bytes({5}) + "-1.50";                                 // dec
  row += Bytes({0});                                           // varchar: empty
  row += Bytes({2, 0x03, 0xff});                               // bit
  // nul: type NULL carries nothing
  const Parsed p = Parse(row, columns);
  EXPECT_EQ(p.fields[0], Bytes({0xff}));
  EXPECT_EQ(p.fields[1], Bytes({0x34, 0x12}));
  EXPECT_EQ(p.fields[2], Bytes({0x00, 0x00, 0x80, 0xff}));
  EXPECT_EQ(p.fields[4].size(), 8u);
  EXPECT_EQ(p.fields[6], Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_EQ(p.fields[7], Bytes({0xe8, 0x07}));
  EXPECT_EQ(p.fields[8], Bytes({0xe8, 0x07, 2, 29}));
  EXPECT_EQ(p.fields[9], "");
  EXPECT_EQ(p.nulls[9], 0);
  EXPECT_EQ(p.fields[10].size(), 12u);
  EXPECT_EQ(p.fields[11].size(), 7u);
  EXPECT_EQ(p.fields[12], "-1.50");
  EXPECT_EQ(p.fields[13], "");
  EXPECT_EQ(p.fields[14], Bytes({0x03, 0xff}));
  EXPECT_EQ(p.nulls[15], 1);
}

TEST(MysqlBinaryRow, NullBitmapStartsAtBitTwo) {
  std::vector<ColumnDefinition> columns;
  for (int i = 0; i < 9; ++i) columns.push_back(Column("c" + std::to_string(i), 1));
  // Columns 0, 5 and 8 NULL: bits 2, 7 and 10.
  std::string row = Bytes({0x00, 0x84, 0x04});
  for (int i = 0; i < 6; ++i) row.push_back(static_cast<char>(i + 1));
  const Parsed p = Parse(row, columns);
  const std::vector<uint8_t> expected_nulls = {1, 0, 0, 0, 0, 1, 0, 0, 1};
  EXPECT_EQ(p.nulls, expected_nulls);
  EXPECT_EQ(p.fields[1], Bytes({1}));
  EXPECT_EQ(p.fields[7], Bytes({6}));
}

TEST(MysqlBinaryRow, LongStringsUseLengthPrefixes) {
  const std::vector<ColumnDefinition> columns = {Column("blob", 252)};
  const std::string value(300, 'x');
  const std::string row = Bytes({0x00, 0x00, 0xfc, 0x2c, 0x01}) + value;
  EXPECT_EQ(Parse(row, columns).fields[0], value);
}

TEST(MysqlBinaryRow, MalformedRowsNameTheColumn) {
  const std::vector<ColumnDefinition> columns = {Column("id", 3), Column("when_at", 12)};
  const std::vector<std::string> bad = {
      "",                                                 // no header
      Bytes({0x01, 0x00}),                                // not a row header
      Bytes({0x00}),                                      // no bitmap
      Bytes({0x00, 0x00, 1, 2, 3}),                       // truncated INT
      Bytes({0x00, 0x00, 1, 2, 3, 4}),                    // no DATETIME
      Bytes({0x00, 0x00, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5}),  // DATETIME of 5 bytes
      Bytes({0x00, 0x00, 1, 2, 3, 4, 7, 1, 2, 3}),        // DATETIME truncated
      Bytes({0x00, 0x00, 1, 2, 3, 4, 0, 9}),              // a byte after the last value
  };
  for (const std::string& row : bad) {
    try {
      Parse(row, columns);
      ADD_FAILURE() << "accepted a row of " << row.size() << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kProtocol) << e.what();
      EXPECT_NE(std::string(e.what()).find("127.0.0.1:3306"), std::string::npos) << e.what();
    }
  }
  try {
    Parse(Bytes({0x00, 0x00, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5}), columns);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("when_at"), std::string::npos) << e.what();
  }
}

TEST(MysqlBinaryRow, BadLengthPrefixes) {
  const std::vector<ColumnDefinition> columns = {Column("s", 253)};
  for (const std::string& row :
       {Bytes({0x00, 0x00, 0xfb}), Bytes({0x00, 0x00, 0xff}), Bytes({0x00, 0x00, 0xfc, 0x01}),
        Bytes({0x00, 0x00, 0xfd, 0x01, 0x00, 0x00}), Bytes({0x00, 0x00, 0x05, 'a'})}) {
    try {
      Parse(row, columns);
      ADD_FAILURE() << "accepted a row of " << row.size() << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kProtocol) << e.what();
      EXPECT_NE(std::string(e.what()).find("'s'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rowbridge::mysql
