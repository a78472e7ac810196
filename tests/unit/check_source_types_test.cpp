// Which source columns `rowbridge check` reads at all: the text protocol gives the row-event bytes
// of every type but MySQL's binary JSON and VECTOR.
#include <gtest/gtest.h>

#include "check/row_normalizer.h"

namespace rowbridge::check {
namespace {

binlog::ColumnDef Def(binlog::ColumnType type, uint32_t meta) {
  binlog::ColumnDef c;
  c.type = type;
  c.meta = meta;
  c.name = "c";
  return c;
}

TEST(CheckSourceTypes, JsonAndVectorAreNotRead) {
  EXPECT_FALSE(IsCheckableSourceType(Def(binlog::ColumnType::kJson, 4)));
  EXPECT_FALSE(IsCheckableSourceType(Def(binlog::ColumnType::kVector, 4)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kBlob, 2)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kGeometry, 4)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kTimestamp2, 3)));
}

}  // namespace
}  // namespace rowbridge::check
