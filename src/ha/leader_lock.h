// LeaderLock: of several `rowbridge run` of one job (config `ha`), one replicates (the leader)
// and the others wait (standbys); the leader's death or isolation hands over to a standby, and two
// never write at once.
//
// `ha: {lock: source}` holds a named lock in the source, GET_LOCK('rowbridge:<job>'), on a
// connection of its own. The server releases it when that connection ends: at once when the
// leader's process dies (its socket closes), and after 2 x lease when the leader falls silent (a
// paused process, a network cut), because the connection's wait_timeout is set to that.
//
// The leader writes on a lease: the lock is confirmed every lease / 4 on the lock's connection,
// and a write is allowed only within `lease` of the last confirmation (WriteFence::Check). A
// leader that cannot confirm stops writing after at most `lease`, well before the server lets a
// standby take the lock (2 x lease of silence). A new leader starts writing only `lease` after it
// took the lock, so a leader whose lock connection was killed (the lock freed at once) has
// stopped writing by then. After SIGSTOP/SIGCONT the lease has run out:
// writers wait for a confirmation, which fails because the server dropped the connection, and
// the leader steps down without writing.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/write_fence.h"
#include "config/config.h"
#include "mysql/connection.h"

namespace rowbridge::ha {

class LeaderLock : public WriteFence {
 public:
  // The lock of job `job` (state::JobName) on the config's source.
  LeaderLock(const config::Config& config, std::string job);
  ~LeaderLock() override;
  LeaderLock(const LeaderLock&) = delete;
  LeaderLock& operator=(const LeaderLock&) = delete;

  // Waits until this process holds the lock (true) or `stop` is set (false). Transient faults
  // (the source down) are retried; `on_wait` is told what it waits for, once per change.
  bool Acquire(const std::atomic<bool>& stop,
               const std::function<void(const std::string&)>& on_wait);
  // True from Acquire until the lock is found lost (or Release).
  bool held() const { return held_.load(); }
  // Called once, from the lock's own thread, when the lock is found lost.
  void OnLost(std::function<void(const std::string&)> on_lost) { on_lost_ = std::move(on_lost); }
  // Gives the lock up (idempotent).
  void Release();

  // WriteFence: within the lease, or after a confirmation that renews it; else Error(kFenced).
  void Check() override;

  const std::string& name() const { return name_; }

 private:
  void Keep();  // the confirmation loop, on its own thread
  void Lose(const std::string& why);

  const config::Config& config_;
  const std::string name_;  // the lock's name in the source
  const std::chrono::milliseconds lease_;
  std::unique_ptr<mysql::Connection> connection_;
  std::thread keeper_;
  std::atomic<bool> held_{false};
  std::atomic<bool> quit_{false};
  std::function<void(const std::string&)> on_lost_;

  std::mutex mutex_;
  std::condition_variable renewed_;
  std::chrono::steady_clock::time_point valid_until_;
  std::string lost_reason_;
};

}  // namespace rowbridge::ha
