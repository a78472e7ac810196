// The lease's promise without a lock server: `confirm` is the keeper's answer, given here by the
// test. The lock servers themselves are met in tests/integration/ha_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "ha/lease.h"

namespace rowbridge::ha {
namespace {

using namespace std::chrono_literals;

// What OnLost was told, in order.
struct Losses {
  std::mutex mutex;
  std::vector<std::string> reasons;

  void Add(const std::string& why) {
    std::lock_guard lock(mutex);
    reasons.push_back(why);
  }
  std::vector<std::string> Taken() {
    std::lock_guard lock(mutex);
    return reasons;
  }
};

ErrorCode FencedCode(Lease& lease) {
  try {
    lease.Check();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

TEST(HaLease, WritesPassWhileTheKeeperConfirms) {
  Lease lease("lock-a", 1s);
  Losses losses;
  lease.OnLost([&](const std::string& why) { losses.Add(why); });
  lease.Start(
      Lease::Clock::now(), [] {}, 1s);
  for (int i = 0; i < 6; ++i) {  // three leases
    EXPECT_NO_THROW(lease.Check());
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_TRUE(lease.held());
  EXPECT_TRUE(losses.Taken().empty());
}

TEST(HaLease, APermanentRefusalLosesTheLockOnceAndFencesWrites) {
  Lease lease("lock-b", 200ms);
  Losses losses;
  lease.OnLost([&](const std::string& why) { losses.Add(why); });
  lease.Start(
      Lease::Clock::now(), [] { throw Error(ErrorCode::kFenced, "the node was deleted"); }, 10s);
  // OnLost runs on the keeper's thread after held() turned false, so the test waits for it.
  for (int i = 0; i < 100 && losses.Taken().empty(); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(lease.held());
  EXPECT_EQ(FencedCode(lease), ErrorCode::kFenced);
  std::this_thread::sleep_for(400ms);  // two leases: time enough for a second call, if any came
  const auto reasons = losses.Taken();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("the node was deleted"), std::string::npos) << reasons[0];
}

// A keeper that cannot reach its server for a while (ZooKeeper's client reconnecting) keeps the
// lock within its patience, but a write never goes more than two leases after a confirmation: the
// write's refusal loses the lock, said once, though the keeper would still have waited.
TEST(HaLease, AWriteRefusedForWantOfAConfirmationLosesTheLockOnce) {
  Lease lease("lock-c", 200ms);
  Losses losses;
  lease.OnLost([&](const std::string& why) { losses.Add(why); });
  std::atomic<bool> reachable{true};
  lease.Start(
      Lease::Clock::now(),
      [&] {
        if (!reachable) throw Error(ErrorCode::kNetwork, "connection loss");
      },
      1h);
  EXPECT_NO_THROW(lease.Check());
  reachable = false;
  std::this_thread::sleep_for(300ms);  // past the lease, within the keeper's patience
  EXPECT_TRUE(lease.held());
  EXPECT_TRUE(losses.Taken().empty());
  const auto before = Lease::Clock::now();
  EXPECT_EQ(FencedCode(lease), ErrorCode::kFenced);
  EXPECT_GE(Lease::Clock::now() - before, 100ms);  // it waited for a confirmation first
  EXPECT_FALSE(lease.held());
  reachable = true;  // a confirmation after the loss does not bring the lock back
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(FencedCode(lease), ErrorCode::kFenced);
  const auto reasons = losses.Taken();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("not confirmed for more than 400 ms"), std::string::npos) << reasons[0];
}

TEST(HaLease, StopForgetsTheLock) {
  Lease lease("lock-e", 200ms);
  lease.Start(
      Lease::Clock::now(), [] {}, 1s);
  lease.Stop();
  EXPECT_FALSE(lease.held());
  EXPECT_EQ(FencedCode(lease), ErrorCode::kFenced);
}

}  // namespace
}  // namespace rowbridge::ha
