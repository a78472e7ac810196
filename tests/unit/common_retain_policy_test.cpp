#include <gtest/gtest.h>

#include "common/retain_policy.h"

namespace rowbridge {
namespace {

using namespace std::chrono_literals;
constexpr size_t kMiB = size_t{1} << 20;

TEST(RetainPolicy, ALoneOutsizedUseIsFreedAndAStreamOfThemIsKept) {
  RetainPolicy policy(kMiB, 5s);
  auto t = RetainPolicy::Clock::now();
  // The first use is its own measure: the capacity it grew to by doubling is kept, so the next
  // batch does not fault the same pages in again.
  EXPECT_FALSE(policy.ReleaseAfter(2 * kMiB, 3 * kMiB, t));
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(policy.ReleaseAfter(2 * kMiB, 3 * kMiB, t += 100ms));
  // One 100 MB use among 2 MB ones: freed once it is over.
  EXPECT_TRUE(policy.ReleaseAfter(100 * kMiB, 128 * kMiB, t += 100ms));
  // A second one comes: the buffer grew again and is kept, since big uses are now recent.
  EXPECT_FALSE(policy.ReleaseAfter(100 * kMiB, 128 * kMiB, t += 100ms));
  EXPECT_FALSE(policy.ReleaseAfter(2 * kMiB, 128 * kMiB, t += 100ms));
}

TEST(RetainPolicy, CapacityKeptByBigUsesIsFreedOnceTheyAreNoLongerRecent) {
  RetainPolicy policy(kMiB, 5s);
  auto t = RetainPolicy::Clock::now();
  EXPECT_FALSE(policy.ReleaseAfter(50 * kMiB, 64 * kMiB, t));
  EXPECT_FALSE(policy.ReleaseAfter(50 * kMiB, 64 * kMiB, t += 1s));
  // Small uses of the kept 64 MiB: kept while the big ones are recent, freed within two windows.
  EXPECT_FALSE(policy.ReleaseAfter(0, 64 * kMiB, t += 3s));
  EXPECT_FALSE(policy.ReleaseAfter(0, 64 * kMiB, t += 3s));
  EXPECT_TRUE(policy.ReleaseAfter(0, 64 * kMiB, t += 6s));
  // With no recent use, a use is its own measure: a big one keeps what it grew to...
  EXPECT_FALSE(policy.ReleaseAfter(50 * kMiB, 64 * kMiB, t += 1s));
  // ...and a long silence forgets everything at once.
  EXPECT_TRUE(policy.ReleaseAfter(0, 64 * kMiB, t += 1h));
}

TEST(RetainPolicy, AFirstUseFarBelowItsCapacityIsFreed) {
  // A buffer that arrives oversized (grown by something before its first measured use) is judged
  // against that use.
  RetainPolicy policy(kMiB, 5s);
  EXPECT_TRUE(policy.ReleaseAfter(2 * kMiB, 100 * kMiB));
  RetainPolicy doubled(kMiB, 5s);
  EXPECT_FALSE(doubled.ReleaseAfter(33 * kMiB, 64 * kMiB));
}

TEST(RetainPolicy, CapacityUpToTheFloorIsAlwaysKept) {
  RetainPolicy policy(4 * kMiB, 5s);
  EXPECT_FALSE(policy.ReleaseAfter(4 * kMiB, 4 * kMiB));
  EXPECT_FALSE(policy.ReleaseAfter(1, 4 * kMiB));
  RetainPolicy fresh(4 * kMiB, 5s);
  EXPECT_TRUE(fresh.ReleaseAfter(1, 4 * kMiB + 1));
}

}  // namespace
}  // namespace rowbridge
