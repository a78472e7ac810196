// The HTTP admin endpoint (cpp-httplib), for operators and monitoring:
//
//   GET /               the web status page (src/server/web/, embedded at build time; its other
//                       files are served under their own names, e.g. /app.js)
//   GET /metrics        Prometheus text format 0.0.4 (MetricsRegistry::RenderPrometheus)
//   GET /status         JSON (StatusBoard::ToJson): state, source position, per-table state and
//                       counts, config
//   GET /status/history JSON (StatusHistory::ToJson): the last 15 minutes of lag and rows/s
//   GET /healthz        200 "ok: <state>" or 503 "unhealthy: <reason>" (StatusBoard::CheckHealth)
//   POST /tables/<db>.<table>/<action>
//                       a command to one table (table_commands.h: resume, pause, resnapshot),
//                       answered by the handler the pipeline registers (SetTableCommandHandler),
//                       503 while there is none. JSON {"table", "action", "accepted", "message"}.
//                       The name splits at its first '.' (a database named with a '.' cannot be
//                       addressed). /metrics also carries rowbridge_tables{state} when the
//                       registry has that family (PipelineMetrics), counted from the board then.
//
// With a token (RequireToken), each of them needs "Authorization: Bearer <token>". A GET also
// takes the page's cookie (set by /?token=); a POST takes the header only, so that no other site
// a browser visits can make it send a command (CSRF). Without a token, POSTs are refused (403)
// unless the server listens on loopback only, and any POST a browser makes (it carries Origin or
// Sec-Fetch-Site) is refused as well: a page from elsewhere must not pause tables through a
// browser on the same machine. Request bodies over kMaxBodyBytes are refused (413).
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
#include <shared_mutex>
#include <string>
#include <thread>

#include "config/config.h"
#include "server/metrics.h"
#include "server/status.h"
#include "server/status_history.h"
#include "server/table_commands.h"

namespace rowbridge::server {

class AdminServer {
 public:
  // How long any connection may last from its accept, request and response together; then it is
  // shut down, whatever it is doing. It bounds how long a liveness probe waits behind clients
  // that hold connections open. Scrapes, probes and the page's polls take milliseconds here, and
  // Prometheus waits 10 s for a scrape by default, so no scrape it still waits for is cut.
  static constexpr std::chrono::seconds kConnectionDeadline{10};
  // The largest request body accepted; table commands carry none.
  static constexpr size_t kMaxBodyBytes = 4096;

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

  // Sets, replaces or (with an empty function) clears the handler of table commands, at any time
  // and from any thread. Returns once no request is running the previous handler any more, so
  // what that handler referred to may be destroyed afterwards.
  void SetTableCommandHandler(TableCommandHandler handler);

  // The bound port (useful after listening on port 0); 0 before Start.
  uint16_t port() const { return port_; }

 private:
  void Route();
  void SampleHistory();
  // POST /tables/<db>.<table>/<action>.
  void TableCommand(const httplib::Request& req, httplib::Response& res);
  // Sets rowbridge_tables{state} from the board, if the registry has the family.
  void CountTablesByState();

  MetricsRegistry& metrics_;
  StatusBoard& status_;
  config::HealthConfig health_;
  std::string token_;     // empty: no token required
  bool loopback_ = true;  // listening on a loopback address only (set by Start)
  // Held shared while a request runs the handler, exclusively to replace it.
  std::shared_mutex table_handler_mutex_;
  TableCommandHandler table_handler_;
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
