// POST /tables/<db>.<table>/<action> on the admin server, with a handler of the tests' own (the
// handler is rowbridge's interface to its pipeline, not a server), and rowbridge_tables{state}.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "server/admin_server.h"
#include "server/pipeline_metrics.h"
#include "server/table_commands.h"

namespace rowbridge::server {
namespace {

using std::chrono::seconds;
using Json = nlohmann::json;

struct Call {
  std::string database, table;
  TableAction action;
};

// A running board, its server and a handler that records what it was asked.
struct CommandServer {
  MetricsRegistry registry;
  StatusBoard board;
  AdminServer server{registry, board, config::HealthConfig{}};
  std::mutex mutex;
  std::vector<Call> calls;

  CommandServer() { board.SetState(PipelineState::kRunning); }
  void RecordingHandler(TableCommandResult answer) {
    server.SetTableCommandHandler(
        [this, answer](const std::string& database, const std::string& table, TableAction action) {
          std::lock_guard lock(mutex);
          calls.push_back({database, table, action});
          return answer;
        });
  }
  httplib::Client Client() {
    httplib::Client client("127.0.0.1", server.port());
    client.set_connection_timeout(seconds(5));
    client.set_read_timeout(seconds(5));
    return client;
  }
};

TEST(ServerTableCommands, ActionNamesRoundTrip) {
  for (TableAction action : {TableAction::kResume, TableAction::kPause, TableAction::kResnapshot,
                             TableAction::kRepair}) {
    EXPECT_EQ(ParseTableAction(TableActionName(action)), action);
  }
  EXPECT_EQ(ParseTableAction("Resume"), std::nullopt);
  EXPECT_EQ(ParseTableAction(""), std::nullopt);
}

TEST(ServerTableCommands, WithoutAHandlerTheAnswerIsNotReady) {
  CommandServer s;
  s.server.Start("127.0.0.1:0");
  auto response = s.Client().Post("/tables/shop.orders/resume", "", "text/plain");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->get_header_value("Content-Type"), "application/json");
  const Json body = Json::parse(response->body);
  EXPECT_EQ(body["table"], "shop.orders");
  EXPECT_EQ(body["action"], "resume");
  EXPECT_EQ(body["accepted"], false);
  EXPECT_NE(body["message"].get<std::string>().find("not running yet"), std::string::npos)
      << body.dump();
}

TEST(ServerTableCommands, TheHandlerDecidesAndIsAnsweredAsJson) {
  CommandServer s;
  s.RecordingHandler({202, "pausing shop.orders"});
  s.server.Start("127.0.0.1:0");
  httplib::Client client = s.Client();
  for (const char* action : {"resume", "pause", "resnapshot"}) {
    auto response = client.Post(std::string("/tables/shop.orders/") + action, "", "text/plain");
    ASSERT_TRUE(response) << action;
    EXPECT_EQ(response->status, 202) << action;
    EXPECT_EQ(Json::parse(response->body), Json({{"table", "shop.orders"},
                                                 {"action", action},
                                                 {"accepted", true},
                                                 {"message", "pausing shop.orders"}}));
  }
  ASSERT_EQ(s.calls.size(), 3u);
  EXPECT_EQ(s.calls[0].database, "shop");
  EXPECT_EQ(s.calls[0].table, "orders");
  EXPECT_EQ(s.calls[0].action, TableAction::kResume);
  EXPECT_EQ(s.calls[1].action, TableAction::kPause);
  EXPECT_EQ(s.calls[2].action, TableAction::kResnapshot);

  // The name splits at its first '.'; the rest, slashes and dots too, is the table's
  // (percent-encoded by the client).
  auto dotted = client.Post("/tables/shop.order.items%2Fv2/pause", "", "text/plain");
  ASSERT_TRUE(dotted);
  EXPECT_EQ(dotted->status, 202);
  ASSERT_EQ(s.calls.size(), 4u);
  EXPECT_EQ(s.calls[3].database, "shop");
  EXPECT_EQ(s.calls[3].table, "order.items/v2");

  // The handler's refusals pass through with its status.
  s.RecordingHandler({409, "shop.orders is streaming, not paused"});
  auto refused = client.Post("/tables/shop.orders/resume", "", "text/plain");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409);
  EXPECT_EQ(Json::parse(refused->body)["accepted"], false);
  EXPECT_EQ(Json::parse(refused->body)["message"], "shop.orders is streaming, not paused");

  // Cleared: not ready again, and the old handler is not called.
  s.server.SetTableCommandHandler({});
  auto cleared = client.Post("/tables/shop.orders/resume", "", "text/plain");
  ASSERT_TRUE(cleared);
  EXPECT_EQ(cleared->status, 503);
  EXPECT_EQ(s.calls.size(), 5u);
}

TEST(ServerTableCommands, UnknownActionsAndNamesAre404WithTheReason) {
  CommandServer s;
  s.RecordingHandler({202, "ok"});
  s.server.Start("127.0.0.1:0");
  httplib::Client client = s.Client();
  auto unknown = client.Post("/tables/shop.orders/drop", "", "text/plain");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  const Json body = Json::parse(unknown->body);
  EXPECT_EQ(body["action"], "drop");
  EXPECT_EQ(body["accepted"], false);
  EXPECT_EQ(body["message"],
            "unknown action \"drop\": POST /tables/<database>.<table>/resume, /pause or "
            "/resnapshot");
  for (const char* path :
       {"/tables/orders/pause", "/tables/.orders/pause", "/tables/shop./pause"}) {
    auto bad = client.Post(path, "", "text/plain");
    ASSERT_TRUE(bad) << path;
    EXPECT_EQ(bad->status, 404) << path;
    EXPECT_NE(
        Json::parse(bad->body)["message"].get<std::string>().find("is not <database>.<table>"),
        std::string::npos)
        << path;
  }
  // GET is no command.
  auto get = client.Get("/tables/shop.orders/pause");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 404);
  EXPECT_TRUE(s.calls.empty());
}

TEST(ServerTableCommands, WithATokenOnlyTheBearerHeaderIsTakenNotTheCookie) {
  CommandServer s;
  s.RecordingHandler({202, "ok"});
  s.server.RequireToken("s3cret-token");
  s.server.Start("127.0.0.1:0");
  httplib::Client client = s.Client();
  auto anonymous = client.Post("/tables/shop.orders/pause", "", "text/plain");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  // The page's cookie opens GETs but no POST: any site could make a browser send it (CSRF).
  httplib::Headers cookie = {{"Cookie", "rowbridge_token=s3cret-token"}};
  auto status_with_cookie = client.Get("/status", cookie);
  ASSERT_TRUE(status_with_cookie);
  EXPECT_EQ(status_with_cookie->status, 200);
  auto post_with_cookie = client.Post("/tables/shop.orders/pause", cookie, "", "text/plain");
  ASSERT_TRUE(post_with_cookie);
  EXPECT_EQ(post_with_cookie->status, 401);
  auto post_with_query =
      client.Post("/tables/shop.orders/pause?token=s3cret-token", "", "text/plain");
  ASSERT_TRUE(post_with_query);
  EXPECT_EQ(post_with_query->status, 401);
  auto wrong = client.Post("/tables/shop.orders/pause", {{"Authorization", "Bearer s3cret-tokeN"}},
                           "", "text/plain");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_TRUE(s.calls.empty());
  auto right = client.Post("/tables/shop.orders/pause", {{"Authorization", "Bearer s3cret-token"}},
                           "", "text/plain");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 202);
  EXPECT_EQ(s.calls.size(), 1u);
}

TEST(ServerTableCommands, BrowsersAndLargeBodiesAreRefused) {
  CommandServer s;
  s.RecordingHandler({202, "ok"});
  s.server.Start("127.0.0.1:0");
  httplib::Client client = s.Client();
  // Without a token on loopback, a page from elsewhere could still make a local browser post.
  for (const auto& header : std::vector<httplib::Headers>{{{"Origin", "https://evil.example"}},
                                                          {{"Sec-Fetch-Site", "cross-site"}}}) {
    auto browser = client.Post("/tables/shop.orders/pause", header, "", "text/plain");
    ASSERT_TRUE(browser);
    EXPECT_EQ(browser->status, 403);
    EXPECT_NE(Json::parse(browser->body)["message"].get<std::string>().find("browser"),
              std::string::npos);
  }
  const std::string big(AdminServer::kMaxBodyBytes + 1, 'x');
  auto large = client.Post("/tables/shop.orders/pause", big, "text/plain");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 413);
  EXPECT_TRUE(s.calls.empty());
  auto small = client.Post("/tables/shop.orders/pause", "{}", "application/json");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 202);
}

TEST(ServerTableCommands, OffLoopbackWithoutATokenCommandsAreRefused) {
  CommandServer s;
  s.RecordingHandler({202, "ok"});
  s.server.Start("0.0.0.0:0");
  auto response = s.Client().Post("/tables/shop.orders/pause", "", "text/plain");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 403);
  EXPECT_NE(Json::parse(response->body)["message"].get<std::string>().find("http.token"),
            std::string::npos);
  EXPECT_TRUE(s.calls.empty());
  // Reading stays as it was (the config loader requires the token there anyway).
  auto status = s.Client().Get("/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
}

// Replacing the handler waits for the calls running the old one, so what it used may go.
TEST(ServerTableCommands, ReplacingTheHandlerWaitsForItsRunningCalls) {
  CommandServer s;
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  std::atomic<bool> returned{false};
  s.server.SetTableCommandHandler([&](const std::string&, const std::string&, TableAction) {
    entered = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    returned = true;
    return TableCommandResult{202, "slow"};
  });
  s.server.Start("127.0.0.1:0");
  std::thread poster([&] {
    auto response = s.Client().Post("/tables/shop.orders/pause", "", "text/plain");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 202);
  });
  while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    release = true;
  });
  s.server.SetTableCommandHandler({});
  EXPECT_TRUE(returned);
  releaser.join();
  poster.join();
}

TEST(ServerTableCommands, MetricsCountTablesByStateWhenThePipelineRegisteredThem) {
  CommandServer s;
  PipelineMetrics metrics(s.registry);
  s.board.Table("shop", "orders", "a", "orders").SetStreaming();
  s.board.Table("shop", "items", "a", "items")
      .SetStopped("DDL", "bin.000001:4", std::chrono::system_clock::now());
  s.server.Start("127.0.0.1:0");
  auto response = s.Client().Get("/metrics");
  ASSERT_TRUE(response);
  const std::string& text = response->body;
  EXPECT_NE(text.find("# TYPE rowbridge_tables gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rowbridge_tables{state=\"streaming\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rowbridge_tables{state=\"stopped\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rowbridge_tables{state=\"copying\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rowbridge_tables{state=\"paused\"} 0\n"), std::string::npos) << text;
  // The state changes; the next scrape follows.
  s.board.Table("shop", "orders", "a", "orders")
      .SetStopped("DDL", "", std::chrono::system_clock::now());
  response = s.Client().Get("/metrics");
  ASSERT_TRUE(response);
  EXPECT_NE(response->body.find("rowbridge_tables{state=\"streaming\"} 0\n"), std::string::npos);
  EXPECT_NE(response->body.find("rowbridge_tables{state=\"stopped\"} 2\n"), std::string::npos);
}

}  // namespace
}  // namespace rowbridge::server
