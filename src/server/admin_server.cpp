#include "server/admin_server.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "server/deadline_task_queue.h"
#include "server/pipeline_metrics.h"
#include "server/web_assets.h"

namespace rowbridge::server {
namespace {

constexpr const char* kJsonContentType = "application/json";
constexpr const char* kTextContentType = "text/plain; charset=utf-8";

// Names from the source need not be UTF-8; replace bad bytes rather than fail the request.
std::string JsonText(const nlohmann::ordered_json& json) {
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// Scrapes, probes and the status page's polls are few and quick. Idle workers cost a stack each;
// many of them keep a few slow clients from delaying the rest until their deadline.
constexpr size_t kWorkerThreads = 32;

// A burst of connections, more than the workers, waits its turn in the kernel until accepted and
// then in the task queue. httplib listens with a backlog of 5, beyond which the kernel drops new
// connections' SYNs and the clients retry a second or more later (later than a probe's usual 1 s
// timeout), so the server listens again with the kernel's maximum (net.core.somaxconn).
constexpr int kListenBacklog = SOMAXCONN;

// httplib::Server with its listening socket, a protected member, in reach.
class HttpServer : public httplib::Server {
 public:
  // listen() on a listening socket only changes its backlog.
  bool WidenBacklog() { return ::listen(svr_sock_, kListenBacklog) == 0; }
};

// Compares in time that depends only on the lengths, so the answer's timing does not tell an
// attacker how much of a guess was right.
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return difference == 0;
}

constexpr std::string_view kTokenCookie = "rowbridge_token";

// The value of cookie `name` in a Cookie header ("a=1; rowbridge_token=xyz"), or "".
std::string_view CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t end = header.find(';');
    std::string_view pair = header.substr(0, end);
    while (pair.starts_with(' ')) pair.remove_prefix(1);
    if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=') {
      return pair.substr(name.size() + 1);
    }
    if (end == std::string_view::npos) break;
    header.remove_prefix(end + 1);
  }
  return {};
}

// A request a browser made: browsers add these to every POST (scripts cannot remove them), curl
// and rowbridge's own commands send neither.
bool FromABrowser(const httplib::Request& req) {
  return req.has_header("Origin") || req.has_header("Sec-Fetch-Site");
}

void AnswerTableCommand(httplib::Response& res, int status, const std::string& table,
                        const std::string& action, const std::string& message) {
  res.status = status;
  const nlohmann::ordered_json body = {{"table", table},
                                       {"action", action},
                                       {"accepted", status >= 200 && status < 300},
                                       {"message", message}};
  res.set_content(JsonText(body), kJsonContentType);
}

}  // namespace

AdminServer::AdminServer(MetricsRegistry& metrics, StatusBoard& status, config::HealthConfig health)
    : metrics_(metrics), status_(status), health_(std::move(health)) {}

AdminServer::~AdminServer() {
  Stop();
}

void AdminServer::Route() {
  if (!token_.empty()) {
    server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      constexpr std::string_view kBearer = "Bearer ";
      const std::string given = req.get_header_value("Authorization");
      if (given.starts_with(kBearer) &&
          SameSecret(std::string_view(given).substr(kBearer.size()), token_)) {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      // A browser cannot send a header when it opens a page: /?token=<token> once sets a cookie
      // (HttpOnly, this site only) and sends it to the page without the token in its address;
      // the page's own requests then carry the cookie. Only for reading: a browser sends the
      // cookie along with a POST that any other site's page makes it send.
      if (req.method == "GET" &&
          SameSecret(CookieValue(req.get_header_value("Cookie"), kTokenCookie), token_)) {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      if (req.method == "GET" && req.has_param("token") &&
          SameSecret(req.get_param_value("token"), token_)) {
        res.status = 303;
        res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + token_ +
                                         "; HttpOnly; SameSite=Strict; Path=/");
        res.set_header("Location", req.path);
        return httplib::Server::HandlerResponse::Handled;
      }
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content(
          "unauthorized: send \"Authorization: Bearer <http.token>\" (in a browser, open "
          "/?token=<http.token> once)\n",
          kTextContentType);
      return httplib::Server::HandlerResponse::Handled;
    });
  }
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    CountTablesByState();
    res.set_content(metrics_.RenderPrometheus(), kPrometheusContentType);
  });
  // The name is everything up to the last '/', so a table named "a/b" still reaches the handler.
  server_->Post(
      R"(/tables/(.+)/([^/]*))",
      [this](const httplib::Request& req, httplib::Response& res) { TableCommand(req, res); });
  server_->Get("/status", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(JsonText(status_.ToJson(health_)), kJsonContentType);
  });
  server_->Get("/status/history", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(JsonText(history_.ToJson()), kJsonContentType);
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    Health health = status_.CheckHealth(health_);
    res.status = health.healthy ? 200 : 503;
    res.set_content((health.healthy ? "ok: " : "unhealthy: ") + health.reason + "\n",
                    kTextContentType);
  });
  for (const WebAsset& asset : WebAssets()) {
    const std::string path = asset.name == "index.html" ? "/" : "/" + std::string(asset.name);
    server_->Get(path, [&asset](const httplib::Request&, httplib::Response& res) {
      // The page is the binary's: a new version must not meet a cached script of the old one.
      res.set_header("Cache-Control", "no-cache");
      res.set_header("X-Content-Type-Options", "nosniff");
      // Only our own files run: a table name that got past the page's escaping still cannot load
      // or run a script.
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
      res.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
    });
  }
  server_->set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string message = "internal error";
        try {
          std::rethrow_exception(error);
        } catch (...) {
          message = CurrentExceptionAsError("admin HTTP handler of " + req.path).what();
        }
        spdlog::error("{}", message);
        res.status = 500;
        res.set_content(message + "\n", kTextContentType);
      });
}

void AdminServer::SetTableCommandHandler(TableCommandHandler handler) {
  std::unique_lock lock(table_handler_mutex_);
  table_handler_ = std::move(handler);
}

void AdminServer::TableCommand(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  const std::string action_name = req.matches[2];
  if (token_.empty() && !loopback_) {
    // Config validation requires a token off loopback; a server built without one must still
    // not take commands from the network.
    AnswerTableCommand(res, 403, name, action_name,
                       "table commands need http.token when the admin server listens on an "
                       "address other than loopback");
    return;
  }
  if (FromABrowser(req)) {
    AnswerTableCommand(res, 403, name, action_name,
                       "table commands are not taken from a browser (the request carries Origin "
                       "or Sec-Fetch-Site); use `rowbridge " +
                           action_name + "` or curl");
    return;
  }
  if (req.body.size() > kMaxBodyBytes) {
    AnswerTableCommand(res, 413, name, action_name,
                       fmt::format("the request body is over {} bytes", kMaxBodyBytes));
    return;
  }
  const std::optional<TableAction> action = ParseTableAction(action_name);
  if (!action) {
    AnswerTableCommand(res, 404, name, action_name,
                       fmt::format("unknown action \"{}\": POST /tables/<database>.<table>/"
                                   "resume, /pause or /resnapshot",
                                   action_name));
    return;
  }
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    AnswerTableCommand(res, 404, name, action_name,
                       fmt::format("\"{}\" is not <database>.<table>", name));
    return;
  }
  const std::string database = name.substr(0, dot);
  const std::string table = name.substr(dot + 1);
  TableCommandResult result;
  {
    std::shared_lock lock(table_handler_mutex_);
    if (!table_handler_) {
      result = {503,
                "the pipeline is not running yet (starting, in standby or stopping); try "
                "again when /status says running"};
    } else {
      result = table_handler_(database, table, *action);
    }
  }
  spdlog::info("admin HTTP: {} of table {}: {} {}", action_name, name, result.http_status,
               result.message);
  AnswerTableCommand(res, result.http_status, name, action_name, result.message);
}

void AdminServer::CountTablesByState() {
  Family<Gauge>* family = metrics_.FindGauge(kTablesByStateMetric);
  if (family == nullptr) return;
  for (const auto& [state, count] : status_.CountTablesByState()) {
    family->WithLabels({state}).Set(static_cast<double>(count));
  }
}

void AdminServer::Start(const std::string& listen) {
  if (server_) Fail(ErrorCode::kInternal, "admin server already started");
  config::ListenAddress address = config::ParseListenAddress(listen);
  auto* http = new HttpServer();
  server_.reset(http);
  loopback_ = config::IsLoopbackHost(address.host);
  server_->set_keep_alive_max_count(1);
  server_->set_payload_max_length(kMaxBodyBytes);
  // Called on the server's thread, once it has started (after port_ is set).
  server_->new_task_queue = [this] {
    return new DeadlineTaskQueue(kWorkerThreads, port_, kConnectionDeadline);
  };
  server_->set_read_timeout(std::chrono::seconds(5));
  server_->set_write_timeout(std::chrono::seconds(5));
  // httplib's default also sets SO_REUSEPORT, which would let a second rowbridge share the port
  // silently; SO_REUSEADDR alone still allows a quick restart.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  Route();
  int port = address.port;
  bool bound = port == 0 ? (port = server_->bind_to_any_port(address.host)) > 0
                         : server_->bind_to_port(address.host, port);
  if (!bound) {
    server_.reset();
    Fail(ErrorCode::kNetwork,
         "cannot listen on {} for the admin HTTP server (address in use or not local?)", listen);
  }
  port_ = static_cast<uint16_t>(port);
  if (!http->WidenBacklog()) {
    spdlog::warn(
        "admin HTTP server on {}: cannot widen the listen backlog ({}); a burst of "
        "connections may wait a second or more",
        listen, std::strerror(errno));
  }
  thread_ = std::thread([server = server_.get(), listen] {
    try {
      server->listen_after_bind();
    } catch (...) {
      // The admin server only reports; replication goes on without it, and says so.
      spdlog::error("{}", CurrentExceptionAsError("admin HTTP server thread on " + listen).what());
    }
  });
  sampler_stop_ = false;
  sampler_ = std::thread([this] { SampleHistory(); });
  // stop() before the listening loop has started would be lost, so wait for it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      Stop();
      Fail(ErrorCode::kTimeout, "admin HTTP server on {} did not start within 10s", listen);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void AdminServer::SampleHistory() {
  std::unique_lock lock(sampler_mutex_);
  while (!sampler_stop_) {
    lock.unlock();
    try {
      history_.Record(status_.Sample());
    } catch (...) {
      // The charts are not worth stopping replication for; the failure is still said.
      spdlog::warn("{}", CurrentExceptionAsError("status history sampler").what());
    }
    lock.lock();
    sampler_wake_.wait_for(lock, history_.interval(), [this] { return sampler_stop_; });
  }
}

void AdminServer::Stop() {
  if (sampler_.joinable()) {
    {
      std::lock_guard lock(sampler_mutex_);
      sampler_stop_ = true;
    }
    sampler_wake_.notify_all();
    sampler_.join();
  }
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  port_ = 0;
}

}  // namespace rowbridge::server
