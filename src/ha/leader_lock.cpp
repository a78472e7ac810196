#include "ha/leader_lock.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/error.h"
#include "common/retry.h"
#include "endpoints/connection_options.h"
#include "mysql/sql_quote.h"

namespace rowbridge::ha {

namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// The server drops the lock's connection after this many seconds without a query: 2 x lease,
// rounded up (wait_timeout counts whole seconds).
uint64_t SilenceSeconds(milliseconds lease) {
  return std::max<uint64_t>(2, (2 * static_cast<uint64_t>(lease.count()) + 999) / 1000);
}

}  // namespace

LeaderLock::LeaderLock(const config::Config& config, std::string job)
    : config_(config), name_("rowbridge:" + job), lease_(config.ha.lease) {}

LeaderLock::~LeaderLock() {
  Release();
}

bool LeaderLock::Acquire(const std::atomic<bool>& stop,
                         const std::function<void(const std::string&)>& on_wait) {
  std::string said;
  auto say = [&](std::string text) {
    if (text == said) return;
    said = text;
    spdlog::info("{}", text);
    if (on_wait) on_wait(text);
  };
  const std::string quoted = mysql::QuoteString(name_);
  RetryPolicy policy;
  policy.initial = milliseconds(500);
  policy.max = milliseconds(5000);
  Backoff backoff(policy);  // no bound: a standby waits until it can take the lock or stops
  while (!stop) {
    try {
      if (connection_ == nullptr) {
        mysql::ConnectOptions options = endpoints::SourceConnectOptions(config_.source);
        // GET_LOCK waits a second on the server; a confirmation must come back within the lease.
        options.tcp.read_timeout = lease_ + milliseconds(2000);
        options.program_name = "rowbridge leader lock";
        connection_ = mysql::Connection::Connect(options);
        connection_->Execute(fmt::format("SET SESSION wait_timeout = {}", SilenceSeconds(lease_)));
      }
      const auto sent = SteadyClock::now();
      const std::optional<std::string> got =
          connection_->QueryValue(fmt::format("SELECT GET_LOCK({}, 1)", quoted));
      if (!got) {
        // The server could not take the lock this time (e.g. killed while waiting): try again.
        throw Error(ErrorCode::kServer,
                    fmt::format("GET_LOCK({}) on {} answered NULL (an error in the server)", quoted,
                                connection_->peer()),
                    Transience::kTransient);
      }
      if (*got == "1") {
        {
          std::lock_guard lock(mutex_);
          valid_until_ = sent + lease_;
          lost_reason_.clear();
        }
        quit_ = false;
        held_ = true;
        keeper_ = std::thread([this] { Keep(); });
        spdlog::info("leader: holding the lock {} on {} (connection {})", name_,
                     connection_->peer(), connection_->connection_id());
        // The previous leader may still be inside its lease (its lock connection was killed,
        // not silent): writing starts only once that lease has surely run out.
        say(
            fmt::format("standby: took the leader lock {}; waiting out the previous leader's "
                        "lease ({} ms)",
                        name_, lease_.count()));
        for (milliseconds waited{0}; waited < lease_ && !stop && held_;
             waited += milliseconds(50)) {
          std::this_thread::sleep_for(milliseconds(50));
        }
        if (!held_) {  // lost while waiting: stand by again
          if (keeper_.joinable()) keeper_.join();
          connection_.reset();
          continue;
        }
        if (stop) {
          Release();
          return false;
        }
        spdlog::info("leader: replicating");
        return true;
      }
      const std::optional<std::string> holder =
          connection_->QueryValue(fmt::format("SELECT IS_USED_LOCK({})", quoted));
      say(fmt::format("standby: the leader lock {} on {} is held by connection {}", name_,
                      connection_->peer(), holder.value_or("?")));
      backoff.Reset();
    } catch (const Error& e) {
      // Only what a retry can cure is waited out: a source that is down or refuses for now.
      if (!e.IsTransient()) throw;
      connection_.reset();
      say(fmt::format("standby: cannot take the leader lock {} on {}:{}: {}", name_,
                      config_.source.host, config_.source.port, e.what()));
      SleepUnlessStopped(backoff.NextWait().value_or(policy.max), &stop);
    }
  }
  return false;
}

void LeaderLock::Keep() {
  const std::string query =
      fmt::format("SELECT IS_USED_LOCK({}) = CONNECTION_ID()", mysql::QuoteString(name_));
  const milliseconds period = std::max(lease_ / 4, milliseconds(100));
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      renewed_.wait_for(lock, period, [&] { return quit_.load(); });
      if (quit_) return;
    }
    try {
      const auto sent = SteadyClock::now();
      const std::optional<std::string> mine = connection_->QueryValue(query);
      if (!mine || *mine != "1") {
        Lose(fmt::format("the source {} no longer gives the lock to this process's connection",
                         connection_->peer()));
        return;
      }
      std::lock_guard lock(mutex_);
      valid_until_ = sent + lease_;
      renewed_.notify_all();
    } catch (...) {
      // Any failure of this thread, not only an Error, loses the lock: nothing more is written.
      Lose(CurrentExceptionAsError("the lease thread's check of the connection holding it").what());
      return;
    }
  }
}

void LeaderLock::Lose(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    lost_reason_ = why;
    valid_until_ = SteadyClock::time_point::min();
  }
  held_ = false;
  renewed_.notify_all();
  spdlog::error("leader: lost the lock {} ({}); writing stops and this process stands by", name_,
                why);
  if (on_lost_) on_lost_(why);
}

void LeaderLock::Check() {
  std::unique_lock lock(mutex_);
  auto fenced = [&](const std::string& why) {
    return Error(
        ErrorCode::kFenced,
        fmt::format("not writing: this process does not hold the leader lock {} ({})", name_, why));
  };
  if (!lost_reason_.empty()) throw fenced(lost_reason_);
  if (!held_) throw fenced("not acquired");
  const auto now = SteadyClock::now();
  if (now < valid_until_) return;
  // The lease ran out (the process was paused, or the source is slow to confirm): a write waits
  // for the next confirmation, at most one lease.
  renewed_.wait_until(lock, now + lease_,
                      [&] { return !lost_reason_.empty() || SteadyClock::now() < valid_until_; });
  if (!lost_reason_.empty()) throw fenced(lost_reason_);
  if (SteadyClock::now() >= valid_until_) {
    throw fenced(fmt::format("not confirmed for more than {} ms", 2 * lease_.count()));
  }
}

void LeaderLock::Release() {
  quit_ = true;
  renewed_.notify_all();
  if (keeper_.joinable()) keeper_.join();
  if (connection_ != nullptr && held_) {
    try {
      connection_->QueryValue(fmt::format("SELECT RELEASE_LOCK({})", mysql::QuoteString(name_)));
    } catch (const Error& e) {
      spdlog::warn("releasing the leader lock {}: {}", name_, e.what());
    }
  }
  held_ = false;
  connection_.reset();
  std::lock_guard lock(mutex_);
  lost_reason_.clear();
}

}  // namespace rowbridge::ha
