// SourceLeaderLock (`ha: {lock: source}`): the leader lock as a named lock in the source,
// GET_LOCK('rowbridge:<job>'), on a connection of its own. The server releases it when that
// connection ends: at once when the leader's process dies (its socket closes), and after
// 2 x lease when the leader falls silent (a paused process, a network cut), because the
// connection's wait_timeout is set to that.
//
// The lease (ha/lease.h) is confirmed every lease / 4 on the lock's connection; a failed
// confirmation loses the lock at once, since the connection, and with it the lock, may be gone.
// After SIGSTOP/SIGCONT the lease has run out: writers wait for a confirmation, which fails
// because the server dropped the connection, and the leader steps down without writing.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "ha/leader_lock.h"
#include "mysql/connection.h"

namespace rowbridge::ha {

class SourceLeaderLock : public LeaderLock {
 public:
  // The lock of job `job` on the config's source.
  SourceLeaderLock(const config::Config& config, const std::string& job);
  ~SourceLeaderLock() override;

  void Release() override;

 private:
  std::optional<std::string> TryTake() override;
  void Drop() override { connection_.reset(); }
  std::string Where() const override;
  void Confirm();  // on the lease's thread

  const config::Config& config_;
  std::unique_ptr<mysql::Connection> connection_;
};

}  // namespace rowbridge::ha
