#include "ha/leader_lock.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.h"
#include "common/retry.h"
#include "ha/source_leader_lock.h"
#include "ha/zookeeper_leader_lock.h"

namespace rowbridge::ha {

using std::chrono::milliseconds;

bool LeaderLock::Acquire(const std::atomic<bool>& stop,
                         const std::function<void(const std::string&)>& on_wait) {
  std::string said;
  auto say = [&](std::string text) {
    if (text == said) return;
    said = text;
    spdlog::info("{}", text);
    if (on_wait) on_wait(text);
  };
  RetryPolicy policy;
  policy.initial = milliseconds(500);
  policy.max = milliseconds(5000);
  Backoff backoff(policy);  // no bound: a standby waits until it can take the lock or stops
  while (!stop) {
    try {
      if (std::optional<std::string> waiting = TryTake()) {
        say(std::move(*waiting));
        backoff.Reset();
        if (poll_.count() > 0) SleepUnlessStopped(poll_, &stop);
        continue;
      }
      // The previous leader may still be inside its lease (its lock freed early: its connection
      // killed, its node deleted): writing starts only once that lease has surely run out.
      say(
          fmt::format("standby: took the leader lock {}; waiting out the previous leader's "
                      "lease ({} ms)",
                      name(), lease_.length().count()));
      if (!lease_.WaitOutPrevious(stop)) {
        if (stop) {
          Release();
          return false;
        }
        lease_.Stop();  // lost while waiting: stand by again
        Drop();
        continue;
      }
      spdlog::info("leader: replicating");
      return true;
    } catch (const Error& e) {
      // Only what a retry can cure is waited out: a server that is down or refuses for now.
      if (!e.IsTransient()) throw;
      Drop();
      say(fmt::format("standby: cannot take the leader lock {} on {}: {}", name(), Where(),
                      e.what()));
      SleepUnlessStopped(backoff.NextWait().value_or(policy.max), &stop);
    }
  }
  return false;
}

bool LeaderLock::StillHeld() {
  try {
    lease_.Check();
    return true;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kFenced) throw;
    return false;
  }
}

std::unique_ptr<LeaderLock> MakeLeaderLock(const config::Config& config, const std::string& job) {
  switch (config.ha.lock) {
    case config::HaLock::kSource:
      return std::make_unique<SourceLeaderLock>(config, job);
    case config::HaLock::kZooKeeper:
      return std::make_unique<ZooKeeperLeaderLock>(config.ha, job);
    case config::HaLock::kNone:
      break;
  }
  Fail(ErrorCode::kInternal, "no leader lock without `ha` (ha.lock: none)");
}

}  // namespace rowbridge::ha
