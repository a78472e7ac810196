// The copy's memory budget: how many bytes one read may take, and how many rows it asks for.
#include <gtest/gtest.h>

#include "snapshot/read_budget.h"

namespace rowbridge::snapshot {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(ReadBudget, TheLimitIsSharedByTheTablesAndWhatEachHolds) {
  // One connection: the packets of the read, the block built and the block sent, each up to
  // twice its content.
  EXPECT_EQ(HeldReads(1), 6u);
  // Three: the read being converted and the three in flight besides.
  EXPECT_EQ(HeldReads(3), 12u);
  EXPECT_EQ(ReadBytes(48 * kMiB, 3, 1), 48 * kMiB / 3 / 6);
  EXPECT_EQ(ReadBytes(48 * kMiB, 1, 3), 48 * kMiB / 12);
  // What a table holds at most stays within its share, whatever the split.
  for (uint32_t tables = 1; tables <= 8; ++tables) {
    for (uint32_t connections = 1; connections <= 8; ++connections) {
      EXPECT_LE(ReadBytes(48 * kMiB, tables, connections) * HeldReads(connections) * tables,
                48 * kMiB);
    }
  }
  // Never zero, even for a limit that cannot be kept.
  EXPECT_EQ(ReadBytes(0, 0, 1), 1u);
  EXPECT_EQ(ReadBytes(10, 64, 64), 1u);
}

TEST(ReadBudget, ReadsGrowFromFewRowsToTheBudget) {
  ReadSizer sizer(1000000, 100000);
  EXPECT_EQ(sizer.NextRows(), kFirstReadRows);
  // 100-byte rows: the ask grows kGrowth times per read until 10,000 rows fill the bytes.
  uint64_t asks[8];
  for (uint64_t& ask : asks) {
    ask = sizer.NextRows();
    sizer.Measured(ask, ask * 100);
  }
  EXPECT_EQ(asks[0], 16u);
  EXPECT_EQ(asks[1], 64u);
  EXPECT_EQ(asks[2], 256u);
  EXPECT_EQ(asks[3], 1024u);
  EXPECT_EQ(asks[4], 4096u);
  EXPECT_EQ(asks[5], 10000u);
  EXPECT_EQ(asks[7], 10000u);
  EXPECT_EQ(sizer.bytes_per_row(), 100u);
}

TEST(ReadBudget, WideRowsAreMetWithSmallReads) {
  ReadSizer sizer(4 * kMiB, 100000);
  // 200 KB rows: the first read holds 16 of them (3.2 MB); then 20 rows fill the 4 MiB.
  EXPECT_EQ(sizer.NextRows(), 16u);
  sizer.Measured(16, 16 * 200000);
  EXPECT_EQ(sizer.NextRows(), 20u);
  // Rows wider than the whole read: one at a time, never none.
  sizer.Measured(20, 20 * 8 * kMiB);
  EXPECT_EQ(sizer.NextRows(), 1u);
  // Narrow again: the measure follows the last read.
  sizer.Measured(1, 100);
  EXPECT_EQ(sizer.NextRows(), 16u * 4 * 4 * 4);
}

TEST(ReadBudget, ReadsNeverExceedTheUnitsRowsAndEmptyReadsMeasureNothing) {
  ReadSizer sizer(1 << 30, 50);
  EXPECT_EQ(sizer.NextRows(), 16u);
  sizer.Measured(16, 160);
  EXPECT_EQ(sizer.NextRows(), 50u);
  sizer.Measured(0, 0);
  EXPECT_EQ(sizer.bytes_per_row(), 10u);
  EXPECT_EQ(sizer.NextRows(), 50u);
  ReadSizer one(1 << 30, 0);
  EXPECT_EQ(one.NextRows(), 1u);
}

}  // namespace
}  // namespace rowbridge::snapshot
