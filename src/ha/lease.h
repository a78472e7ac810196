// Lease: the write permission of a process that holds a leader lock, whatever keeps the lock (the
// source's named lock, a ZooKeeper ephemeral node). Both locks promise the same thing: the lock
// outlives a silent holder by at least twice the lease (the source's wait_timeout, the ZooKeeper
// session timeout), so a holder that writes only within `length` of its last confirmation has
// stopped writing before anyone else can take the lock. That promise is kept here, once.
//
// A thread renews the lease every length / 4 by asking the lock's keeper (`confirm`) whether the
// lock is still this process's; the lease then runs `length` from when that question was sent,
// not from when the answer came, so a slow answer never stretches it. A write (Check) within the
// lease passes at once; after it, the write waits for the next confirmation, at most one more
// lease, and is refused (Error kFenced) without one. A new holder starts writing only `length`
// after taking the lock (WaitOutPrevious): a previous holder whose lock was freed early (its
// connection killed, its node deleted) may still be inside its own lease until then.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace rowbridge::ha {

class Lease {
 public:
  using Clock = std::chrono::steady_clock;

  // `lock_name` names the lock in messages.
  Lease(std::string lock_name, std::chrono::milliseconds length);
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  // Called once when the lock is found lost: by the renewing thread, or by a write (Check) that
  // found the lease unconfirmed for two leases.
  void OnLost(std::function<void(const std::string&)> on_lost) { on_lost_ = std::move(on_lost); }

  // The lock was just taken by a request sent at `sent`: the lease runs from then, and a thread
  // renews it with `confirm`, which returns when the lock is still this process's and throws
  // (an Error saying why) when it is not or cannot tell. A transient Error is borne while less
  // than `patience` passed since the last confirmation (a keeper that reconnects on its own, as
  // ZooKeeper's client does); anything else loses the lock at once.
  void Start(Clock::time_point sent, std::function<void()> confirm,
             std::chrono::milliseconds patience);
  // Waits `length` after Start, so that the previous holder's lease has run out. Returns whether
  // the lock is still held; false also when `stop` is set (the lock is then still held).
  bool WaitOutPrevious(const std::atomic<bool>& stop);
  // Ends the renewing thread and forgets the lock (idempotent). The caller frees the lock itself.
  void Stop();

  // True from Start until the lock is found lost (or Stop).
  bool held() const { return held_.load(); }
  // Returns when a write may go now; else throws Error(kFenced) (see the top). A refusal for want
  // of a confirmation loses the lock, as the keeper's own failure does.
  void Check();

  const std::string& lock_name() const { return lock_name_; }
  std::chrono::milliseconds length() const { return length_; }

 private:
  // `confirmed`: when the request that last confirmed the lock was sent.
  void Keep(const std::function<void()>& confirm, std::chrono::milliseconds patience,
            Clock::time_point confirmed);
  void Lose(const std::string& why);

  const std::string lock_name_;
  const std::chrono::milliseconds length_;
  std::function<void(const std::string&)> on_lost_;
  std::thread keeper_;
  std::atomic<bool> held_{false};
  std::atomic<bool> quit_{false};

  std::mutex mutex_;
  std::condition_variable renewed_;
  Clock::time_point valid_until_;
  std::string lost_reason_;
};

}  // namespace rowbridge::ha
