#include "ha/lease.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/error.h"

namespace rowbridge::ha {

using std::chrono::milliseconds;

Lease::Lease(std::string lock_name, milliseconds length)
    : lock_name_(std::move(lock_name)), length_(length) {}

Lease::~Lease() {
  Stop();
}

void Lease::Start(Clock::time_point sent, std::function<void()> confirm, milliseconds patience) {
  Stop();
  {
    std::lock_guard lock(mutex_);
    valid_until_ = sent + length_;
    lost_reason_.clear();
  }
  quit_ = false;
  held_ = true;
  keeper_ = std::thread(
      [this, confirm = std::move(confirm), patience, sent] { Keep(confirm, patience, sent); });
}

bool Lease::WaitOutPrevious(const std::atomic<bool>& stop) {
  for (milliseconds waited{0}; waited < length_ && !stop && held_; waited += milliseconds(50)) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  return held_ && !stop;
}

void Lease::Keep(const std::function<void()>& confirm, milliseconds patience,
                 Clock::time_point confirmed) {
  const milliseconds period = std::max(length_ / 4, milliseconds(100));
  bool said = false;  // the warning below, once per stretch without a confirmation
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      renewed_.wait_for(lock, period, [&] { return quit_.load(); });
      if (quit_) return;
    }
    const auto sent = Clock::now();
    try {
      confirm();
      confirmed = sent;
      said = false;
      std::lock_guard lock(mutex_);
      valid_until_ = sent + length_;
      renewed_.notify_all();
    } catch (const Error& e) {
      if (e.IsTransient() && Clock::now() - confirmed < patience) {
        if (std::exchange(said, true)) continue;
        spdlog::warn(
            "leader: cannot confirm the lock {} for now ({}); writes stop {} ms after "
            "the last confirmation",
            lock_name_, e.what(), length_.count());
        continue;
      }
      Lose(e.what());
      return;
    } catch (...) {
      // Any failure of this thread, not only an Error, loses the lock: nothing more is written.
      Lose(CurrentExceptionAsError("the lease thread's confirmation of the lock").what());
      return;
    }
  }
}

void Lease::Lose(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    if (!lost_reason_.empty()) return;  // the keeper and a write found it lost at the same time
    lost_reason_ = why;
    valid_until_ = Clock::time_point::min();
  }
  held_ = false;
  renewed_.notify_all();
  spdlog::error("leader: lost the lock {} ({}); writing stops and this process stands by",
                lock_name_, why);
  if (on_lost_) on_lost_(why);
}

void Lease::Check() {
  std::unique_lock lock(mutex_);
  auto fenced = [&](const std::string& why) {
    return Error(ErrorCode::kFenced,
                 fmt::format("not writing: this process does not hold the leader lock {} ({})",
                             lock_name_, why));
  };
  if (!lost_reason_.empty()) throw fenced(lost_reason_);
  if (!held_) throw fenced("not acquired");
  const auto now = Clock::now();
  if (now < valid_until_) return;
  // The lease ran out (the process was paused, or the lock's keeper is slow to confirm): a write
  // waits for the next confirmation, at most one lease.
  renewed_.wait_until(lock, now + length_,
                      [&] { return !lost_reason_.empty() || Clock::now() < valid_until_; });
  if (!lost_reason_.empty()) throw fenced(lost_reason_);
  if (Clock::now() < valid_until_) return;
  // The caller stops on this refusal, so the lock is as good as lost: say so once, the same way
  // the keeper does, though the keeper may still be within its patience.
  const std::string why = fmt::format("not confirmed for more than {} ms", 2 * length_.count());
  lock.unlock();
  Lose(why);
  throw fenced(why);
}

void Lease::Stop() {
  quit_ = true;
  renewed_.notify_all();
  if (keeper_.joinable()) keeper_.join();
  held_ = false;
  std::lock_guard lock(mutex_);
  lost_reason_.clear();
}

}  // namespace rowbridge::ha
