#include "common/retry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <thread>

namespace rowbridge {

Backoff::Backoff(RetryPolicy policy) : policy_(policy) {
  policy_.initial = std::max(policy_.initial, std::chrono::milliseconds(1));
  policy_.max = std::max(policy_.max, policy_.initial);
  policy_.jitter = std::clamp(policy_.jitter, 0.0, 1.0);
}

std::optional<std::chrono::milliseconds> Backoff::NextWait() {
  const auto now = std::chrono::steady_clock::now();
  if (failures_ == 0) first_failure_ = now;
  ++failures_;
  if (policy_.max_attempts > 0 && failures_ >= policy_.max_attempts) return std::nullopt;
  std::chrono::milliseconds wait = policy_.initial;
  for (int i = 1; i < failures_ && wait < policy_.max; ++i) wait *= 2;
  wait = std::min(wait, policy_.max);
  if (policy_.max_elapsed.count() > 0 && now - first_failure_ + wait > policy_.max_elapsed) {
    return std::nullopt;
  }
  if (policy_.jitter > 0) {
    thread_local std::mt19937_64 random{std::random_device{}()};
    const double low = static_cast<double>(wait.count()) * (1.0 - policy_.jitter);
    std::uniform_real_distribution<double> draw(low, static_cast<double>(wait.count()));
    wait = std::chrono::milliseconds(static_cast<int64_t>(draw(random)));
  }
  return wait;
}

void Backoff::Reset() {
  failures_ = 0;
}

bool SleepUnlessStopped(std::chrono::milliseconds wait, const std::atomic<bool>* stop) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    if (stop != nullptr && stop->load()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(50)));
  }
}

namespace retry_detail {

void WaitOrThrow(std::string_view what, Backoff& backoff, const RetryOptions& options,
                 const Error& error) {
  if (options.stop != nullptr && options.stop->load()) throw error;
  const std::optional<std::chrono::milliseconds> wait = backoff.NextWait();
  if (!wait) {
    spdlog::error("{}: giving up after {} attempts: {}", what, backoff.failures(), error.what());
    throw error;
  }
  spdlog::warn("{}: attempt {} failed with a transient error; retrying in {} ms: {}", what,
               backoff.failures(), wait->count(), error.what());
  if (!SleepUnlessStopped(*wait, options.stop)) throw error;
}

}  // namespace retry_detail

}  // namespace rowbridge
