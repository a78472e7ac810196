#include <gtest/gtest.h>

#include "clickhouse/block.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"

namespace rowbridge::clickhouse {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(ClickHouseColumns, UInt64AndStringBlockBytes) {
  Block block;
  auto& ids = block.AddColumn("id", std::make_unique<ColumnUInt64>());
  auto& names = block.AddColumn("name", std::make_unique<ColumnString>());
  ids.Append(1);
  ids.Append(0x0102030405060708ull);
  names.Append("ab");
  names.Append("");

  WireWriter out;
  WriteBlock(out, block, 54429);
  EXPECT_EQ(Hex(out.data()),
            "0100"
            "02ffffffff"
            "00"  // block info: is_overflows=0, bucket_num=-1, end
            "02"
            "02"  // 2 columns, 2 rows
            "026964"
            "0655496e743634"  // "id" "UInt64"
            "0100000000000000"
            "0807060504030201"
            "046e616d65"
            "06537472696e67"  // "name" "String"
            "026162"
            "00");

  BufferWireReader in(out.data());
  Block back = ReadBlock(in, 54429);
  EXPECT_TRUE(in.AtEnd());
  ASSERT_EQ(back.ColumnCount(), 2u);
  ASSERT_EQ(back.RowCount(), 2u);
  EXPECT_EQ(back.Name(1), "name");
  EXPECT_EQ(As<ColumnUInt64>(back.At(0)).At(1), 0x0102030405060708ull);
  EXPECT_EQ(As<ColumnString>(back.At(1)).At(0), "ab");
  EXPECT_EQ(As<ColumnString>(back.At(1)).At(1), "");

  block.Clear();
  EXPECT_EQ(block.RowCount(), 0u);
}

}  // namespace
}  // namespace rowbridge::clickhouse
