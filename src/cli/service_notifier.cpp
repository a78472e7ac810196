#include "cli/service_notifier.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace rowbridge::cli {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// Sends one notification; a failure is logged, once per kind of message, and otherwise ignored:
// replication must not stop because the service manager is unreachable.
void Notify(const std::string& message) {
  const int rc = sd_notify(0, message.c_str());
  if (rc < 0) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      spdlog::warn("cannot notify systemd ({}): {}", message.substr(0, message.find('=')),
                   std::strerror(-rc));
    }
  }
}

// A status text is one line of the notification: its newlines (multi-line errors) are spaces.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Past the start-up checks. Waiting is a transient fault being retried (a server down): the
// service is up and doing what it should, and its status line says what it waits for.
bool IsStarted(server::PipelineState state) {
  return state == server::PipelineState::kSnapshot || state == server::PipelineState::kRunning ||
         state == server::PipelineState::kStandby || state == server::PipelineState::kWaiting;
}

}  // namespace

ServiceNotifier::ServiceNotifier(const server::StatusBoard& status, config::HealthConfig policy)
    : status_(status),
      policy_(std::move(policy)),
      active_(std::getenv("NOTIFY_SOCKET") != nullptr) {
  if (!active_) return;
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) watchdog_interval_ = microseconds(usec);
  if (watchdog_interval_.count() > 0) {
    spdlog::info("systemd watchdog: pinging every {} ms while the pipeline shows life",
                 std::chrono::duration_cast<milliseconds>(watchdog_interval_ / 2).count());
  }
  thread_ = std::thread([this] { Loop(); });
}

ServiceNotifier::~ServiceNotifier() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
  Tick();  // the last state (e.g. "failed: <why>"), if the thread did not send it yet
}

void ServiceNotifier::Stopping() {
  if (!active_ || stopping_sent_.exchange(true)) return;
  Notify("STOPPING=1\nSTATUS=stopping");
}

void ServiceNotifier::Loop() {
  // Often enough for a state change to show within a second, and for two pings per interval.
  const microseconds tick =
      watchdog_interval_.count() > 0
          ? std::clamp<microseconds>(watchdog_interval_ / 4, milliseconds(10), milliseconds(1000))
          : microseconds(milliseconds(1000));
  std::unique_lock lock(mutex_);
  while (!quit_) {
    lock.unlock();
    Tick();
    lock.lock();
    wake_.wait_for(lock, tick, [&] { return quit_; });
  }
}

void ServiceNotifier::Tick() {
  std::string message;
  const server::PipelineState state = status_.state();
  if (!ready_sent_ && IsStarted(state)) {
    message += "READY=1\n";
    ready_sent_ = true;
  }
  if (!stopping_sent_) {
    std::string line = OneLine(status_.StateLine());
    if (line != last_status_) {
      message += "STATUS=" + line + "\n";
      last_status_ = std::move(line);
    }
  }
  if (watchdog_interval_.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    const server::Health live = status_.CheckLiveness(policy_);
    if (live.healthy != was_alive_) {
      if (live.healthy) {
        spdlog::info("systemd watchdog: the pipeline shows life again; pinging");
      } else {
        spdlog::warn(
            "systemd watchdog: not pinging, the pipeline shows no life: {}; systemd "
            "restarts rowbridge if this lasts",
            live.reason);
      }
      was_alive_ = live.healthy;
    }
    if (live.healthy && now >= next_ping_) {
      message += "WATCHDOG=1\n";
      next_ping_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             watchdog_interval_ / 2);
    }
  }
  if (!message.empty()) {
    message.pop_back();  // the last newline
    Notify(message);
  }
}

}  // namespace rowbridge::cli
