// The HTTP admin endpoint (cpp-httplib), for operators and monitoring:
//
//   GET /               the web status page (src/server/web/, embedded at build time; its other
//                       files are served under their own names, e.g. /app.js)
//   GET /metrics        Prometheus text format 0.0.4 (MetricsRegistry::RenderPrometheus)
//   GET /status         JSON (StatusBoard::ToJson): state, source position, per-table state and
//                       counts, config
//   GET /status/history JSON (StatusHistory::ToJson): the last 15 minutes of lag and rows/s
//   GET /healthz        200 "ok: <state>" or 503 "unhealthy: <reason>" (StatusBoard::CheckHealth)
//
// With a token (RequireToken), each of them needs "Authorization: Bearer <token>".
//
// Start() binds synchronously, so a bad or busy address is reported at once, then serves on a
// background thread, and samples the board into the history on another (every StatusHistory
// interval, the first at once). /healthz must answer however many clients hold connections open
// or trickle their headers (httplib's timeouts bound each read, not a request): every connection
// is shut down kConnectionDeadline after its accept (DeadlineTaskQueue), one request each, served
// by a pool of workers behind a queue, so a burst beyond the workers waits rather than failing.
// Stop() (also run by the destructor) closes the socket, cuts the connections still open and
// joins both threads; it is idempotent. The registry and board must outlive the server.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "config/config.h"
#include "server/metrics.h"
#include "server/status.h"
#include "server/status_history.h"

namespace rowbridge::server {

class AdminServer {
 public:
  // How long any connection may last from its accept, request and response together; then it is
  // shut down, whatever it is doing. It bounds how long a liveness probe waits behind clients
  // that hold connections open. Scrapes, probes and the page's polls take milliseconds here, and
  // Prometheus waits 10 s for a scrape by default, so no scrape it still waits for is cut.
  static constexpr std::chrono::seconds kConnectionDeadline{10};

  AdminServer(MetricsRegistry& metrics, StatusBoard& status, config::HealthConfig health);
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // `listen` is host:port or [v6]:port (config::ParseListenAddress); port 0 picks a free port.
  // Throws Error(kInvalidArgument) for a malformed address and Error(kNetwork) naming it if it
  // cannot be bound.
  void Start(const std::string& listen);
  void Stop();
  // From now on every request must carry "Authorization: Bearer <token>"; others get 401 and
  // nothing else (config http.token). Call before Start.
  void RequireToken(std::string token) { token_ = std::move(token); }

  // The bound port (useful after listening on port 0); 0 before Start.
  uint16_t port() const { return port_; }

 private:
  void Route();
  void SampleHistory();

  MetricsRegistry& metrics_;
  StatusBoard& status_;
  config::HealthConfig health_;
  std::string token_;  // empty: no token required
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;

  StatusHistory history_;
  std::thread sampler_;
  std::mutex sampler_mutex_;
  std::condition_variable sampler_wake_;
  bool sampler_stop_ = false;
};

}  // namespace rowbridge::server
