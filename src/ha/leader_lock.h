// LeaderLock: of several `rowbridge run` of one job (config `ha`), one replicates (the leader)
// and the others wait (standbys); the leader's death or isolation hands over to a standby, and two
// never write at once.
//
// Where the lock lives is the implementation's business (`ha.lock`): in the source
// (SourceLeaderLock, a named lock) or in ZooKeeper (ZooKeeperLeaderLock, an ephemeral node). What
// makes handing over safe is common to both and lives in Lease (ha/lease.h): the lock outlives a
// silent leader by twice the lease, the leader writes only within the lease of its last
// confirmation, and a new leader waits one lease before writing. The lock is this process's
// WriteFence (common/write_fence.h) while it replicates.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/write_fence.h"
#include "config/config.h"
#include "ha/lease.h"

namespace rowbridge::ha {

class LeaderLock : public WriteFence {
 public:
  ~LeaderLock() override = default;
  LeaderLock(const LeaderLock&) = delete;
  LeaderLock& operator=(const LeaderLock&) = delete;

  // Waits until this process holds the lock and the previous leader's lease has run out (true),
  // or `stop` is set (false). Transient faults (the lock's server down) are retried; `on_wait` is
  // told what it waits for, once per change, in words that start with "standby:".
  bool Acquire(const std::atomic<bool>& stop,
               const std::function<void(const std::string&)>& on_wait);
  // Gives the lock up (idempotent); Acquire may take it again.
  virtual void Release() = 0;

  // True from Acquire until the lock is found lost (or Release).
  bool held() const { return lease_.held(); }
  // Called once, from the lock's own thread, when the lock is found lost.
  void OnLost(std::function<void(const std::string&)> on_lost) {
    lease_.OnLost(std::move(on_lost));
  }
  // WriteFence: within the lease, or after a confirmation that renews it; else Error(kFenced).
  void Check() override { lease_.Check(); }
  // Check as a yes or no. A failure of the pipeline is the loss of the lock when this is false:
  // after a pause, the new leader's binlog dump (same server_id) can end the old leader's before
  // the old leader's lease thread has found the lock lost.
  bool StillHeld();

  const std::string& name() const { return lease_.lock_name(); }

 protected:
  // `poll`: how long a standby waits between two attempts (TryTake) that found the lock taken.
  LeaderLock(std::string name, std::chrono::milliseconds lease, std::chrono::milliseconds poll)
      : lease_(std::move(name), lease), poll_(poll) {}

  // One attempt to take the lock. When it is taken, starts lease_ (Lease::Start) and returns
  // nullopt; else returns what the standby waits for ("standby: ... held by ..."). Throws an
  // Error on failure; a transient one is retried after Drop().
  virtual std::optional<std::string> TryTake() = 0;
  // Forgets the connection to the lock's server after a failure or a loss, without releasing.
  virtual void Drop() = 0;
  // Where the lock lives, for messages ("host:port", "ZooKeeper hosts").
  virtual std::string Where() const = 0;

  Lease lease_;

 private:
  const std::chrono::milliseconds poll_;
};

// The lock `config.ha.lock` names, for job `job` (state::JobName).
std::unique_ptr<LeaderLock> MakeLeaderLock(const config::Config& config, const std::string& job);

}  // namespace rowbridge::ha
