// The one retry policy of rowbridge: every loop that retries after a failure (the stream's
// reconnects, the initial copy, DDL applied to the target, `check`, the state store, the leader
// lock) waits with a Backoff and retries only errors that say IsTransient() (common/error.h).
//
// The wait doubles from `initial` up to `max`, and each wait is drawn at random from
// [wait * (1 - jitter), wait] so that many processes that failed together do not come back
// together. A policy may bound the attempts, the time since the first failure, or both; unbounded
// loops (the stream, the copy) stop only on a permanent error or a stop request.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "common/error.h"

namespace rowbridge {

struct RetryPolicy {
  std::chrono::milliseconds initial{500};    // the first wait
  std::chrono::milliseconds max{30000};      // no wait is longer
  double jitter = 0.2;                       // fraction of a wait drawn at random, 0..1
  int max_attempts = 0;                      // attempts in all, the first included; 0 = no bound
  std::chrono::milliseconds max_elapsed{0};  // since the first failure; 0 = no bound
};

// The waits of one retry loop.
class Backoff {
 public:
  explicit Backoff(RetryPolicy policy);

  // Counts a failed attempt and returns how long to wait before the next one, or nullopt when the
  // policy allows no more attempts (their number or the time since the first failure).
  std::optional<std::chrono::milliseconds> NextWait();
  // After a success: the next failure starts again from the initial wait.
  void Reset();
  // Failed attempts since the start or the last Reset().
  int failures() const { return failures_; }
  const RetryPolicy& policy() const { return policy_; }

 private:
  RetryPolicy policy_;
  int failures_ = 0;
  std::chrono::steady_clock::time_point first_failure_;
};

// Sleeps `wait`, returning early (false) as soon as `*stop` is true; true after the full wait.
bool SleepUnlessStopped(std::chrono::milliseconds wait, const std::atomic<bool>* stop);

struct RetryOptions {
  RetryPolicy policy;
  const std::atomic<bool>* stop = nullptr;  // a stop ends the wait; the last error is thrown
  // Called before each retry, after the wait (e.g. to drop a broken connection).
  std::function<void(const Error&)> before_retry;
};

namespace retry_detail {
// Logs the retry (what, attempt, wait, error) and waits; throws `error` when the policy is used
// up or a stop was requested.
void WaitOrThrow(std::string_view what, Backoff& backoff, const RetryOptions& options,
                 const Error& error);
}  // namespace retry_detail

// Runs `attempt` until it returns and returns its result. An Error that IsTransient() is logged
// (warning: `what`, the attempt, the wait, the error) and retried after the backoff; a permanent
// Error, or a transient one once the policy is used up or a stop was requested, propagates.
// Exceptions other than Error propagate untouched.
template <typename Attempt>
auto Retry(std::string_view what, const RetryOptions& options, Attempt&& attempt)
    -> std::invoke_result_t<Attempt&> {
  Backoff backoff(options.policy);
  for (;;) {
    try {
      return attempt();
    } catch (const Error& e) {
      if (!e.IsTransient()) throw;
      retry_detail::WaitOrThrow(what, backoff, options, e);
      if (options.before_retry) options.before_retry(e);
    }
  }
}

}  // namespace rowbridge
