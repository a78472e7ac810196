// Tells systemd how `rowbridge run` is doing when it runs as a `Type=notify` service
// (packaging/rowbridge@.service), through sd_notify(3) of libsystemd:
//
//   READY=1     the first time the state is snapshot, running, standby or waiting: the start-up
//               checks (config, both connections, the source's settings, the tables) are behind
//               it, or a server is down and being waited for, which a restart would not cure.
//               An initial copy counts as started, so that a long copy does not run into the
//               unit's TimeoutStartSec; a standby is doing its job too. A permanent problem
//               ends the process before READY=1, and the start fails.
//   STATUS=...  the state line (server::StatusBoard::StateLine) whenever it changes; `systemctl
//               status` shows it.
//   WATCHDOG=1  every half watchdog interval (WatchdogSec), but only while
//               StatusBoard::CheckLiveness says the process shows life: a wedged pipeline stops
//               the pings and systemd kills and restarts it. A long copy, a quiet source that
//               sends heartbeats and a retry loop waiting for a server all show life.
//   STOPPING=1  from Stopping(), when a stop was asked for.
//
// Without NOTIFY_SOCKET in the environment (not started by systemd) it does nothing and starts
// no thread. Without WATCHDOG_USEC it sends no WATCHDOG=1. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "config/config.h"
#include "server/status.h"

namespace rowbridge::cli {

class ServiceNotifier {
 public:
  // Watches `status` (which must outlive this) from a thread of its own; `policy` is what
  // StatusBoard::CheckLiveness judges silence by (the config's http.health).
  ServiceNotifier(const server::StatusBoard& status, config::HealthConfig policy);
  ~ServiceNotifier();  // joins the thread
  ServiceNotifier(const ServiceNotifier&) = delete;
  ServiceNotifier& operator=(const ServiceNotifier&) = delete;

  // Sends STOPPING=1 (once); the watchdog pings go on until the destructor, so a clean stop that
  // takes a while (the last batches written) is not killed as wedged.
  void Stopping();

  // Whether systemd listens (NOTIFY_SOCKET was set).
  bool active() const { return active_; }

 private:
  void Loop();
  // One pass: READY, STATUS and WATCHDOG as due.
  void Tick();

  const server::StatusBoard& status_;
  const config::HealthConfig policy_;
  const bool active_;
  std::chrono::microseconds watchdog_interval_{0};  // 0 = no watchdog
  std::chrono::steady_clock::time_point next_ping_{};
  bool ready_sent_ = false;
  bool was_alive_ = true;
  std::string last_status_;
  std::atomic<bool> stopping_sent_{false};

  std::mutex mutex_;
  std::condition_variable wake_;
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace rowbridge::cli
