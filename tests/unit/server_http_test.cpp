#include <gtest/gtest.h>
#include <httplib.h>

#include "common/error.h"
#include "config/config.h"
#include "server/admin_server.h"

namespace rowbridge::server {
namespace {

using std::chrono::seconds;

config::HealthConfig Policy() {
  config::HealthConfig policy;
  policy.max_silence = seconds(60);
  return policy;
}

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

}  // namespace
}  // namespace rowbridge::server
