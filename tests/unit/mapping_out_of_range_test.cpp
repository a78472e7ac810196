#include <gtest/gtest.h>

#include "mapping/out_of_range.h"

namespace rowbridge::mapping {
namespace {

TEST(MappingConversionCounters, SlotForIsOnePerColumnAndRule) {
  ConversionCounters counters;
  ConversionCounters::Slot& a = counters.SlotFor({"db", "t", "c"}, RangeRule::kZeroDate);
  EXPECT_EQ(&counters.SlotFor({"db", "t", "c"}, RangeRule::kZeroDate), &a);
  EXPECT_NE(&counters.SlotFor({"db", "t", "c"}, RangeRule::kIntegerOverflow), &a);
  // Parts kept apart: "d.b" + "t" is not "d" + "b.t".
  EXPECT_NE(&counters.SlotFor({"d.b", "t", "c"}, RangeRule::kZeroDate),
            &counters.SlotFor({"d", "b.t", "c"}, RangeRule::kZeroDate));
  a.count += 3;
  EXPECT_EQ(counters.Count("db.t.c", RangeRule::kZeroDate), 3u);
  EXPECT_EQ(counters.Count("db.t.c", RangeRule::kIntegerOverflow), 0u);
  EXPECT_EQ(counters.Count("db.t.x", RangeRule::kZeroDate), 0u);
  ASSERT_EQ(counters.Snapshot().size(), 1u);
  EXPECT_EQ(counters.Snapshot()[0].column, "db.t.c");
}

}  // namespace
}  // namespace rowbridge::mapping
