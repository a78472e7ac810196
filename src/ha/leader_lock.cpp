#include "ha/leader_lock.h"

#include "common/error.h"
#include "ha/source_leader_lock.h"
#include "ha/zookeeper_leader_lock.h"

namespace rowbridge::ha {

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
