#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "config/config.h"
#include "server/admin_server.h"
#include "server/web_assets.h"

namespace rowbridge::server {
namespace {

using std::chrono::seconds;

config::HealthConfig Policy() {
  config::HealthConfig policy;
  policy.max_silence = seconds(60);
  return policy;
}

// The admin server of a healthy, running pipeline (not started yet).
struct HealthyServer {
  MetricsRegistry registry;
  StatusBoard board;
  AdminServer server{registry, board, Policy()};
  HealthyServer() {
    board.SetState(PipelineState::kRunning);
    board.RecordHeartbeat();
  }
};

TEST(ServerHttp, ServesMetricsStatusAndHealth) {
  MetricsRegistry registry;
  registry.AddCounter("rowbridge_test_total", "Test counter.").Get().Increment(7);
  // A frozen clock keeps the countdown below exact however slow the machine is.
  const TimePoint now = std::chrono::system_clock::now();
  StatusBoard board([now] { return now; });
  board.SetState(PipelineState::kRunning);
  board.SetConfig({{"source", {{"password", "***"}}}});
  AdminServer server(registry, board, Policy());
  server.Start("127.0.0.1:0");
  ASSERT_NE(server.port(), 0);

  httplib::Client client("127.0.0.1", server.port());
  client.set_connection_timeout(seconds(5));
  client.set_read_timeout(seconds(5));

  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics) << httplib::to_string(metrics.error());
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics->body,
            "# HELP rowbridge_test_total Test counter.\n"
            "# TYPE rowbridge_test_total counter\n"
            "rowbridge_test_total 7\n");

  auto status = client.Get("/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  EXPECT_EQ(status->get_header_value("Content-Type"), "application/json");
  auto json = nlohmann::json::parse(status->body);
  EXPECT_EQ(json["state"], "running");
  EXPECT_EQ(json["health"]["healthy"], true);
  EXPECT_EQ(json["config"]["source"]["password"], "***");

  auto healthz = client.Get("/healthz");
  ASSERT_TRUE(healthz);
  EXPECT_EQ(healthz->status, 200);
  EXPECT_EQ(healthz->body, "ok: running\n");

  board.SetWaiting("reconnecting to source 127.0.0.1:3306", 3,
                   now + std::chrono::milliseconds(3500));
  healthz = client.Get("/healthz");
  ASSERT_TRUE(healthz);
  EXPECT_EQ(healthz->status, 503);
  EXPECT_EQ(healthz->body,
            "unhealthy: waiting: reconnecting to source 127.0.0.1:3306 (attempt 3, next in 4s)\n");

  auto missing = client.Get("/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  const uint16_t port = server.port();
  server.Stop();
  server.Stop();  // idempotent
  EXPECT_EQ(server.port(), 0);
  httplib::Client after("127.0.0.1", port);
  after.set_connection_timeout(seconds(1));
  EXPECT_FALSE(after.Get("/healthz"));
}

TEST(ServerHttp, WithATokenEveryRequestMustCarryIt) {
  HealthyServer healthy;
  healthy.server.RequireToken("s3cret-token");
  healthy.server.Start("127.0.0.1:0");
  httplib::Client client("127.0.0.1", healthy.server.port());
  for (const char* path : {"/metrics", "/status", "/healthz", "/"}) {
    auto anonymous = client.Get(path);
    ASSERT_TRUE(anonymous) << path;
    EXPECT_EQ(anonymous->status, 401) << path;
    EXPECT_EQ(anonymous->body.find("running"), std::string::npos) << path;
    auto wrong = client.Get(path, {{"Authorization", "Bearer s3cret-tokeN"}});
    ASSERT_TRUE(wrong) << path;
    EXPECT_EQ(wrong->status, 401) << path;
    auto right = client.Get(path, {{"Authorization", "Bearer s3cret-token"}});
    ASSERT_TRUE(right) << path;
    EXPECT_EQ(right->status, 200) << path;
  }
  // A browser: /?token= once sets an HttpOnly cookie and sends it on without the token; the cookie
  // then opens every path. A wrong token in the address gets nothing.
  auto wrong_login = client.Get("/?token=guess");
  ASSERT_TRUE(wrong_login);
  EXPECT_EQ(wrong_login->status, 401);
  EXPECT_FALSE(wrong_login->has_header("Set-Cookie"));
  auto login = client.Get("/?token=s3cret-token");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");
  EXPECT_EQ(login->get_header_value("Set-Cookie"),
            "rowbridge_token=s3cret-token; HttpOnly; SameSite=Strict; Path=/");
  auto with_cookie =
      client.Get("/status", {{"Cookie", "theme=dark; rowbridge_token=s3cret-token"}});
  ASSERT_TRUE(with_cookie);
  EXPECT_EQ(with_cookie->status, 200);
  auto bad_cookie = client.Get("/status", {{"Cookie", "rowbridge_token=s3cret-tokeN"}});
  ASSERT_TRUE(bad_cookie);
  EXPECT_EQ(bad_cookie->status, 401);
}

// The page and its files come from the binary (src/server/web/, embedded by the build) with the
// headers that keep a stale copy or a foreign script out; /status/history has its first sample
// at once.
TEST(ServerHttp, ServesTheWebPageAndTheHistory) {
  MetricsRegistry registry;
  StatusBoard board;
  board.Table("shop", "orders", "analytics", "orders").AddRows(3, 0, 0);
  AdminServer server(registry, board, Policy());
  server.Start("127.0.0.1:0");
  httplib::Client client("127.0.0.1", server.port());
  client.set_connection_timeout(seconds(5));
  client.set_read_timeout(seconds(5));

  auto page = client.Get("/");
  ASSERT_TRUE(page) << httplib::to_string(page.error());
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->get_header_value("Cache-Control"), "no-cache");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
  EXPECT_EQ(page->body.rfind("<!DOCTYPE html>", 0), 0u) << page->body.substr(0, 100);
  EXPECT_NE(page->body.find("<script src=\"/app.js\""), std::string::npos);

  size_t served = 0;
  for (const WebAsset& asset : WebAssets()) {
    auto file = client.Get(asset.name == "index.html" ? "/" : "/" + std::string(asset.name));
    ASSERT_TRUE(file) << asset.name;
    EXPECT_EQ(file->status, 200) << asset.name;
    EXPECT_EQ(file->body, asset.body) << asset.name;
    EXPECT_EQ(file->get_header_value("Content-Type"), asset.content_type) << asset.name;
    ++served;
  }
  EXPECT_GE(served, 3u);  // index.html, app.js, style.css at least
  auto script = client.Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");

  // The sampler's first sample is taken when the server starts.
  nlohmann::json history;
  for (int i = 0; i < 100; ++i) {
    auto response = client.Get("/status/history");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->get_header_value("Content-Type"), "application/json");
    history = nlohmann::json::parse(response->body);
    if (!history["times"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(history["interval_seconds"], 5);
  EXPECT_EQ(history["window_seconds"], 900);
  ASSERT_EQ(history["times"].size(), 1u) << history.dump();
  ASSERT_EQ(history["tables"].size(), 1u);
  EXPECT_EQ(history["tables"][0]["table"], "orders");
  server.Stop();
}

TEST(ServerHttp, BusyPortIsANetworkErrorNamingTheAddress) {
  MetricsRegistry registry;
  StatusBoard board;
  AdminServer first(registry, board, Policy());
  first.Start("127.0.0.1:0");
  AdminServer second(registry, board, Policy());
  std::string address = "127.0.0.1:" + std::to_string(first.port());
  try {
    second.Start(address);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNetwork);
    EXPECT_EQ(std::string(e.what()),
              "cannot listen on " + address +
                  " for the admin HTTP server (address in use or not local?)");
  }
}

TEST(ServerHttp, MalformedAddressIsRejected) {
  MetricsRegistry registry;
  StatusBoard board;
  AdminServer server(registry, board, Policy());
  EXPECT_THROW(server.Start("no-port"), Error);
}

TEST(ServerHttp, StopsCleanlyWhenDestroyedRightAfterStart) {
  MetricsRegistry registry;
  StatusBoard board;
  for (int i = 0; i < 20; ++i) {
    AdminServer server(registry, board, Policy());
    server.Start("127.0.0.1:0");
  }
}

// A client that opens a request and then sends one header byte at a time, slowly, for as long as
// the server keeps the connection: the kind of client that starved the admin server's workers.
class TricklingClient {
 public:
  explicit TricklingClient(uint16_t port,
                           std::chrono::milliseconds interval = std::chrono::milliseconds(300)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    thread_ = std::thread([this, interval] {
      const std::string opening = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
      ::send(fd_, opening.data(), opening.size(), MSG_NOSIGNAL);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(40);
      while (!stop_ && std::chrono::steady_clock::now() < give_up) {
        if (::send(fd_, "X", 1, MSG_NOSIGNAL) != 1) {
          cut_ = true;
          return;
        }
        // In steps, so that the destructor does not wait a whole interval for each client.
        for (auto slept = std::chrono::milliseconds(0); slept < interval && !stop_;
             slept += std::chrono::milliseconds(50)) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
    });
  }
  ~TricklingClient() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  bool connected() const { return connected_; }
  bool cut() const { return cut_; }

  // Whether the server ends the connection (end of stream or reset) within `wait`; anything it
  // sends first is read and dropped.
  bool ClosedByServer(std::chrono::milliseconds wait) {
    const auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() < 0) return false;
      pollfd readable{fd_, POLLIN, 0};
      if (::poll(&readable, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
      char buffer[512];
      const ssize_t got = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return true;
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::atomic<bool> stop_{false}, cut_{false};
  std::thread thread_;
};

TEST(ServerHttp, HealthzAnswersWhileMoreClientsThanWorkersTrickleTheirHeaders) {
  HealthyServer healthy;
  healthy.server.Start("127.0.0.1:0");
  std::vector<std::unique_ptr<TricklingClient>> tricklers;
  for (int i = 0; i < 12; ++i) {
    tricklers.push_back(std::make_unique<TricklingClient>(healthy.server.port()));
    ASSERT_TRUE(tricklers.back()->connected());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // all of them are in by now

  httplib::Client client("127.0.0.1", healthy.server.port());
  client.set_connection_timeout(seconds(5));
  client.set_read_timeout(seconds(30));
  const auto asked = std::chrono::steady_clock::now();
  auto healthz = client.Get("/healthz");
  const auto waited = std::chrono::steady_clock::now() - asked;
  ASSERT_TRUE(healthz) << httplib::to_string(healthz.error());
  EXPECT_EQ(healthz->status, 200);
  // A worker is free: the answer does not wait for any trickler.
  EXPECT_LT(waited, seconds(3));
}

// More tricklers than workers, each sending a header byte every second so that no read ever
// times out: only the deadline on every connection frees the workers. /healthz, queued behind all
// of them, is answered once their deadline has passed, and their connections are gone.
TEST(ServerHttp, HealthzAnswersWithinTheConnectionDeadlineWhileDozensOfClientsTrickle) {
  HealthyServer healthy;
  healthy.server.Start("127.0.0.1:0");
  constexpr int kTricklers = 40;  // the server has 32 workers
  std::vector<std::unique_ptr<TricklingClient>> tricklers;
  for (int i = 0; i < kTricklers; ++i) {
    tricklers.push_back(std::make_unique<TricklingClient>(healthy.server.port(), seconds(1)));
    ASSERT_TRUE(tricklers.back()->connected());
  }
  // All of them are in by now; the probe comes a second after the last, so it is queued behind
  // them with a deadline a second later than theirs.
  std::this_thread::sleep_for(seconds(1));

  const auto margin = seconds(5);
  httplib::Client client("127.0.0.1", healthy.server.port());
  client.set_connection_timeout(seconds(5));
  client.set_read_timeout(AdminServer::kConnectionDeadline + margin);
  const auto asked = std::chrono::steady_clock::now();
  auto healthz = client.Get("/healthz");
  const auto waited = std::chrono::steady_clock::now() - asked;
  ASSERT_TRUE(healthz) << httplib::to_string(healthz.error()) << " after "
                       << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
                       << " ms";
  EXPECT_EQ(healthz->status, 200);
  EXPECT_LT(waited, AdminServer::kConnectionDeadline + margin);
  for (int i = 0; i < kTricklers; ++i) {
    EXPECT_TRUE(tricklers[i]->ClosedByServer(std::chrono::milliseconds(2000))) << "trickler " << i;
  }
}

// A burst of connections, many more than the workers and all at once, each with a probe's short
// connect timeout: they wait their turn, none is refused or dropped.
TEST(ServerHttp, ABurstOfConnectionsBeyondTheWorkersWaitsItsTurn) {
  HealthyServer healthy;
  healthy.server.Start("127.0.0.1:0");
  constexpr int kClients = 200;
  std::atomic<int> answered{0};
  std::mutex mutex;
  std::string failure;  // the first
  std::latch go(1);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      httplib::Client client("127.0.0.1", healthy.server.port());
      client.set_connection_timeout(seconds(1));
      client.set_read_timeout(seconds(10));
      go.wait();
      auto healthz = client.Get("/healthz");
      if (healthz && healthz->status == 200) {
        ++answered;
        return;
      }
      std::lock_guard lock(mutex);
      if (failure.empty()) {
        failure = healthz ? std::to_string(healthz->status) : httplib::to_string(healthz.error());
      }
    });
  }
  go.count_down();
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(answered, kClients) << "the first failure: " << failure;
}

}  // namespace
}  // namespace rowbridge::server
