// Column::HeldBytes and ReleaseMemory: every column class reports what its buffers hold, frees
// them, and works as new afterwards (its object, which plans point to, stays).
#include <gtest/gtest.h>

#include <string>

#include "clickhouse/block.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {
namespace {

// The rows of `block` rendered as text, one line per row.
std::string Text(const Block& block) {
  std::string out;
  for (size_t r = 0; r < block.RowCount(); ++r) {
    for (size_t c = 0; c < block.ColumnCount(); ++c) {
      if (c) out += '\t';
      block.At(c).AppendText(r, out);
    }
    out += '\n';
  }
  return out;
}

TEST(ClickHouseColumnsMemory, EveryColumnClassFreesItsBuffersAndWorksAfterwards) {
  const char* types[] = {"UInt64",
                         "Int32",
                         "String",
                         "FixedString(4)",
                         "Nullable(String)",
                         "Array(String)",
                         "LowCardinality(String)",
                         "LowCardinality(Nullable(String))",
                         "Decimal(18, 4)",
                         "DateTime64(3)",
                         "UUID",
                         "Int128"};
  for (const char* type : types) {
    SCOPED_TRACE(type);
    Block block;
    Column& column = block.AddColumn("c", CreateColumn(type));
    const size_t empty = column.HeldBytes();
    for (int i = 0; i < 100000; ++i) column.AppendDefault();
    EXPECT_GT(column.HeldBytes(), empty + 100000);
    column.Clear();
    EXPECT_GT(column.HeldBytes(), empty + 100000);  // Clear keeps the capacity
    column.ReleaseMemory();
    EXPECT_EQ(column.Size(), 0u);
    EXPECT_LE(column.HeldBytes(), empty);
    // Usable as before: two rows, written and read back.
    column.AppendDefault();
    column.AppendDefault();
    WireWriter out;
    WriteBlock(out, block, 54429);
    BufferWireReader in(out.data());
    Block back = ReadBlock(in, 54429);
    EXPECT_EQ(Text(back), Text(block));
    EXPECT_EQ(back.RowCount(), 2u);
  }
}

TEST(ClickHouseColumnsMemory, BlockSumsAndFreesItsColumns) {
  Block block;
  block.AddColumn("id", CreateColumn("UInt64"));
  Column& text = block.AddColumn("s", CreateColumn("String"));
  const std::string big(8 << 20, 'x');
  dynamic_cast<ColumnString&>(text).Append(big);
  block.At(0).AppendDefault();
  EXPECT_GE(block.HeldBytes(), big.size());
  block.ReleaseMemory();
  EXPECT_EQ(block.HeldBytes(), 0u);
  EXPECT_EQ(block.RowCount(), 0u);
}

}  // namespace
}  // namespace rowbridge::clickhouse
