// Which source columns `rowbridge check` reads at all: every type a source table can have (MySQL's
// binary JSON is read as the JSON text a SELECT returns, mapping::SelectedColumn).
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

TEST(CheckSourceTypes, EveryTypeOfATableIsReadButNoneOfTheOthers) {
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kJson, 4)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kVector, 4)));
  EXPECT_FALSE(IsCheckableSourceType(Def(binlog::ColumnType::kNull, 0)));
  EXPECT_FALSE(IsCheckableSourceType(Def(binlog::ColumnType::kInvalid, 0)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kBlob, 2)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kGeometry, 4)));
  EXPECT_TRUE(IsCheckableSourceType(Def(binlog::ColumnType::kTimestamp2, 3)));
}

}  // namespace
}  // namespace rowbridge::check
