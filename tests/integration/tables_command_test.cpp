// `rowbridge tables` and `rowbridge resume|pause|resnapshot` on real servers: offline from the
// state store and the source (a fresh state, after a run with a stopped table, with the source
// unreachable; commands recorded for the next `run`), and from a running `run` over its admin
// HTTP (with a token).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

class TablesCommandTest : public PipelineFixture {
 protected:
  TablesCommandTest() : PipelineFixture("rbtl") {}

  // Rules matching a, b, c and d of the test's database (not x).
  PipelineConfig TablesConfig() const {
    return Config(
        fmt::format("  - match: [{0}.a, {0}.b, {0}.c, {0}.d]\n    mode: replica\n", source_db_));
  }

  // `tables --json`: the array by table name, the exit code checked.
  std::map<std::string, Json> TablesJson(const RowbridgeProcess& rb, CliResult& result,
                                         const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"tables", "-c", rb.config_path().string(), "--json"};
    args.insert(args.end(), more.begin(), more.end());
    result = rb.RunCommandLine(args);
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    std::map<std::string, Json> tables;
    const Json array = Json::parse(result.out, nullptr, false);
    EXPECT_TRUE(array.is_array()) << result.out;
    if (!array.is_array()) return tables;
    for (const Json& t : array) tables[t["table"].get<std::string>()] = t;
    return tables;
  }
};

// A port nothing listens on now (the kernel's pick, released at once).
uint16_t FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

TEST_F(TablesCommandTest, OnAFreshStateMatchedTablesAreNotCopiedYet) {
  TestDir dir("tables-fresh");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE b (id INT PRIMARY KEY); "
      "CREATE TABLE x (id INT PRIMARY KEY);");
  PipelineConfig config = TablesConfig();
  config.snapshot = true;
  RowbridgeProcess rb(dir.path(), config);

  CliResult text = rb.RunCommandLine({"tables", "-c", rb.config_path().string()});
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("tables from the state store and the source 127.0.0.1:" +
                          std::to_string(mysql_.port)),
            std::string::npos)
      << text.out;
  // http.listen takes a free port: the command says why it did not ask a running process.
  EXPECT_NE(text.out.find("takes a free port at each start"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("no checkpoint in"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TABLE"), std::string::npos) << text.out;
  const std::string a_line = source_db_ + ".a";
  EXPECT_NE(text.out.find(a_line), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(source_db_ + ".x"), std::string::npos) << text.out;

  CliResult json;
  std::map<std::string, Json> tables = TablesJson(rb, json);
  ASSERT_EQ(tables.size(), 2u) << json.out;
  for (const char* name : {".a", ".b"}) {
    const Json& t = tables[source_db_ + name];
    EXPECT_EQ(t["state"], "new") << t.dump();
    EXPECT_EQ(t["detail"], "not copied yet: copied at the first start") << t.dump();
    EXPECT_EQ(t["target"], target_db_ + name) << t.dump();
    EXPECT_TRUE(t["lag_seconds"].is_null());
    EXPECT_TRUE(t["rows_streamed"].is_null());
    EXPECT_TRUE(t["stopped"].is_null());
  }
  // The header goes to stderr with --json.
  EXPECT_NE(json.err.find("tables from the state store"), std::string::npos) << json.err;
}

TEST_F(TablesCommandTest, AfterARunTablesStreamAndAStoppedTableSaysWhy) {
  TestDir dir("tables-after-run");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE d (id INT PRIMARY KEY, v INT);");
  RowbridgeProcess rb(dir.path(), TablesConfig());
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1);");
  // Statement-logged DML stops b (pipeline_statement_test.cpp).
  Sql("SET SESSION binlog_format = STATEMENT; UPDATE b SET v = 2;");
  rb.WaitCaughtUp();
  ASSERT_EQ(rb.Terminate(), 0);
  // Matched, but created after the run: the next start adds it. And d goes.
  Sql("CREATE TABLE c (id INT PRIMARY KEY, v INT); DROP TABLE d;");

  CliResult text = rb.RunCommandLine({"tables", "-c", rb.config_path().string()});
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("checkpoint in ClickHouse table"), std::string::npos) << text.out;

  CliResult json;
  std::map<std::string, Json> tables = TablesJson(rb, json);
  ASSERT_EQ(tables.size(), 4u) << json.out;
  const Json& d = tables[source_db_ + ".d"];
  EXPECT_EQ(d["state"], "streaming") << d.dump();
  EXPECT_EQ(d["detail"],
            "streams on from the checkpoint at the next start (the source has no such table now)")
      << d.dump();
  const Json& a = tables[source_db_ + ".a"];
  EXPECT_EQ(a["state"], "streaming") << a.dump();
  EXPECT_EQ(a["detail"], "streams on from the checkpoint at the next start") << a.dump();
  const Json& b = tables[source_db_ + ".b"];
  EXPECT_EQ(b["state"], "stopped") << b.dump();
  ASSERT_TRUE(b["stopped"].is_object()) << b.dump();
  EXPECT_NE(b["stopped"]["reason"].get<std::string>().find("statement"), std::string::npos)
      << b.dump();
  EXPECT_NE(b["stopped"]["position"].get<std::string>(), "") << b.dump();
  const Json& c = tables[source_db_ + ".c"];
  EXPECT_EQ(c["state"], "new") << c.dump();
  EXPECT_EQ(c["detail"],
            "matched since the checkpoint; not copied (snapshot.enabled is false): its changes "
            "stream from the checkpoint on")
      << c.dump();

  // The source unreachable: what the checkpoint says is still shown, and the source's absence
  // is said.
  PipelineConfig unreachable = TablesConfig();
  unreachable.server_id = rb.config().server_id;
  unreachable.mysql.port = FreePort();
  std::filesystem::create_directories(dir.path() / "unreachable");
  RowbridgeProcess offline(dir.path() / "unreachable", unreachable);
  CliResult no_source = offline.RunCommandLine({"tables", "-c", offline.config_path().string()});
  ASSERT_EQ(no_source.exit_code, 0) << no_source.out << no_source.err;
  EXPECT_NE(no_source.out.find("could not be reached"), std::string::npos) << no_source.out;
  EXPECT_NE(no_source.out.find(source_db_ + ".b"), std::string::npos) << no_source.out;
  EXPECT_NE(no_source.out.find("stopped"), std::string::npos) << no_source.out;
  EXPECT_EQ(no_source.out.find(source_db_ + ".c"), std::string::npos) << no_source.out;
}

TEST_F(TablesCommandTest, FromTheRunningProcessWithItsToken) {
  TestDir dir("tables-running");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT);");
  PipelineConfig config = TablesConfig();
  const std::string address = "127.0.0.1:" + std::to_string(FreePort());
  config.http_listen = address;
  config.http_token = "tables-test-token";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO a VALUES (1, 1), (2, 2), (3, 3); INSERT INTO b VALUES (1, 1);");
  rb.WaitCaughtUp();

  CliResult json;
  std::map<std::string, Json> tables = TablesJson(rb, json);
  EXPECT_NE(json.err.find("tables of the running rowbridge at " + address + " (running"),
            std::string::npos)
      << json.err;
  ASSERT_EQ(tables.size(), 2u) << json.out;
  const Json& a = tables[source_db_ + ".a"];
  EXPECT_EQ(a["state"], "streaming") << a.dump();
  EXPECT_EQ(a["rows_streamed"], 3) << a.dump();
  EXPECT_EQ(a["rows_copied"], 0) << a.dump();
  EXPECT_TRUE(a["lag_seconds"].is_number()) << a.dump();
  EXPECT_TRUE(a["last_flush_at"].is_string()) << a.dump();
  EXPECT_EQ(a["target"], target_db_ + ".a") << a.dump();
  EXPECT_EQ(tables[source_db_ + ".b"]["rows_streamed"], 1);

  CliResult text = rb.RunCommandLine({"tables", "-c", rb.config_path().string()});
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("tables of the running rowbridge at " + address), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("streaming"), std::string::npos) << text.out;

  // A command reaches the running process with the token: accepted (202), printed, exit 0; a
  // second pause of the paused table is refused (409), printed, and the exit status is not 0.
  CliResult pause =
      rb.RunCommandLine({"pause", "-c", rb.config_path().string(), source_db_ + ".a"});
  EXPECT_EQ(pause.exit_code, 0) << pause.out << pause.err;
  Sql("INSERT INTO b VALUES (2, 2);");  // a boundary for the reader to pause at
  ASSERT_TRUE(WaitFor(
      [&] { return rb.log().find("paused " + source_db_ + ".a") != std::string::npos; }, 30s))
      << rb.log();
  ASSERT_TRUE(WaitFor(
      [&] { return rb.SavedCheckpoint() && !rb.SavedCheckpoint()->stopped_tables.empty(); }, 30s));
  CliResult again =
      rb.RunCommandLine({"pause", "-c", rb.config_path().string(), source_db_ + ".a"});
  EXPECT_NE(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.err.find("pause " + source_db_ + ".a: refused by the rowbridge at " + address +
                           " (HTTP 409)"),
            std::string::npos)
      << again.err;

  // The same without a token (another config): 401, said as such.
  PipelineConfig tokenless = config;
  tokenless.http_token.clear();
  std::filesystem::create_directories(dir.path() / "tokenless");
  RowbridgeProcess other(dir.path() / "tokenless", tokenless);
  CliResult refused = other.RunCommandLine({"tables", "-c", other.config_path().string()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("refused GET /status (401)"), std::string::npos) << refused.err;

  ASSERT_EQ(rb.Terminate(), 0);
  // Not running: the command is recorded for the next `run`, naming the address it tried.
  CliResult resume =
      rb.RunCommandLine({"resume", "-c", rb.config_path().string(), source_db_ + ".a"});
  EXPECT_EQ(resume.exit_code, 0) << resume.out << resume.err;
  EXPECT_NE(resume.out.find("resume " + source_db_ + ".a: recorded in ClickHouse table"),
            std::string::npos)
      << resume.out;
  EXPECT_NE(resume.out.find("nothing answers at " + address), std::string::npos) << resume.out;
  // `tables` falls back to the checkpoint, and shows the command pending.
  tables = TablesJson(rb, json);
  EXPECT_NE(json.err.find("nothing answers at " + address), std::string::npos) << json.err;
  EXPECT_EQ(tables[source_db_ + ".a"]["state"], "paused");
  EXPECT_EQ(tables[source_db_ + ".a"]["pending"]["action"], "resume");
  EXPECT_EQ(tables[source_db_ + ".b"]["state"], "streaming");
  EXPECT_TRUE(tables[source_db_ + ".b"]["pending"].is_null());
}

// pause, resume and resnapshot given while no `run` runs: checked against the checkpoint as `run`
// would check them, recorded in the state store, refused while a `run` of the job is alive (its
// admin HTTP not reachable), and carried out by the next `run` once its stream runs.
TEST_F(TablesCommandTest, CommandsGivenWhileRunIsNotRunningAreCarriedOutAtItsStart) {
  TestDir dir("tables-recorded");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE x (id INT PRIMARY KEY); "
      "INSERT INTO a VALUES (1, 1), (2, 2); INSERT INTO b VALUES (1, 1), (2, 2);");
  PipelineConfig config = TablesConfig();
  config.snapshot = true;
  RowbridgeProcess rb(dir.path(), config);
  auto command = [&](const std::string& action, const std::string& table) {
    return rb.RunCommandLine({action, "-c", rb.config_path().string(), source_db_ + "." + table});
  };
  auto same = [&](const std::string& table) {
    return MysqlRows(mysql_, source_db_, table, {{"id"}, {"v"}}, "id") ==
           ReplicaRows(ch_, target_db_, table, {{"id"}, {"v"}}, "id");
  };
  auto pending = [&] {
    std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
    return c ? c->pending_commands.size() : size_t{99};
  };
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp();
  ASSERT_TRUE(same("a") && same("b"));
  // Alive, with its admin HTTP on a port not known here: not recorded.
  CliResult live = command("pause", "a");
  EXPECT_NE(live.exit_code, 0) << live.out << live.err;
  EXPECT_NE(live.err.find("a `rowbridge run` of this job is alive"), std::string::npos) << live.err;
  ASSERT_EQ(rb.Terminate(), 0);

  CliResult pause = command("pause", "a");
  ASSERT_EQ(pause.exit_code, 0) << pause.out << pause.err;
  EXPECT_NE(pause.out.find("recorded in"), std::string::npos) << pause.out;
  // One command per table; a table no rule matches; a resume of a streaming table.
  CliResult second = command("resnapshot", "a");
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("its pause (recorded "), std::string::npos) << second.err;
  CliResult unmatched = command("pause", "x");
  EXPECT_NE(unmatched.exit_code, 0);
  EXPECT_NE(unmatched.err.find("no rule of the configuration matches it"), std::string::npos)
      << unmatched.err;
  CliResult streaming = command("resume", "b");
  EXPECT_NE(streaming.exit_code, 0);
  EXPECT_NE(streaming.err.find("it is neither stopped nor paused"), std::string::npos)
      << streaming.err;
  CliResult json;
  std::map<std::string, Json> tables = TablesJson(rb, json);
  EXPECT_EQ(tables[source_db_ + ".a"]["pending"]["action"], "pause") << json.out;

  // The next run pauses a as soon as its stream runs.
  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
        return c && c->pending_commands.empty() && c->FindStopped(source_db_ + ".a") != nullptr;
      },
      60s))
      << rb.log();
  Sql("INSERT INTO a VALUES (3, 3); INSERT INTO b VALUES (3, 3);");
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("a") + " FINAL WHERE _is_deleted = 0"), "2");
  EXPECT_TRUE(same("b"));
  ASSERT_EQ(rb.Terminate(), 0);

  // A resume, and a resnapshot refused beside it (one copy at a time).
  CliResult resume = command("resume", "a");
  ASSERT_EQ(resume.exit_code, 0) << resume.out << resume.err;
  CliResult busy = command("resnapshot", "b");
  EXPECT_NE(busy.exit_code, 0);
  EXPECT_NE(busy.err.find("one copy runs at a time"), std::string::npos) << busy.err;
  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
        return c && c->pending_commands.empty() && c->stopped_tables.empty() && !c->table_copy;
      },
      90s))
      << rb.log();
  rb.WaitCaughtUp();
  EXPECT_TRUE(same("a")) << MysqlRows(mysql_, source_db_, "a", {{"id"}, {"v"}}, "id");
  ASSERT_EQ(rb.Terminate(), 0);

  // A resnapshot puts right a target that lost rows behind rowbridge's back.
  DeleteTargetRows("b", "id = 1");
  ASSERT_FALSE(same("b"));
  CliResult resnapshot = command("resnapshot", "b");
  ASSERT_EQ(resnapshot.exit_code, 0) << resnapshot.out << resnapshot.err;
  EXPECT_EQ(pending(), 1u);
  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
        return c && c->pending_commands.empty() && !c->table_copy && same("b");
      },
      90s))
      << rb.log();
  Sql("INSERT INTO b VALUES (4, 4);");
  rb.WaitCaughtUp();
  EXPECT_TRUE(same("a"));
  EXPECT_TRUE(same("b"));
  EXPECT_EQ(rb.Terminate(), 0);
}

// A writer that does not finish: the lag at the table's last flush says nothing (there was none),
// but /healthz names the table once its oldest change waits longer than max_lag, /status shows
// since when, and both clear when the flush is done.
TEST_F(TablesCommandTest, HealthzNamesATableWhoseWritesDoNotFinish) {
  TestDir dir("tables-stuck-writer");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT);");
  PipelineConfig config = TablesConfig();
  // 3 s: a quick flush of a loaded CI machine (ASan, 2 cores, tests in parallel) can lag 2 s.
  config.health_max_lag = "3s";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  ASSERT_TRUE(WaitFor([&] { return rb.HttpStatus("/healthz") == 200; }, 30s))
      << rb.HttpGet("/healthz");
  // Each INSERT into a's target now takes 9 s: three views that sleep 3 s each (ClickHouse's
  // most per block).
  for (int i = 1; i <= 3; ++i) {
    Ch(fmt::format("CREATE MATERIALIZED VIEW {} ENGINE = Null AS SELECT sleep(3) AS s FROM {}",
                   Target(fmt::format("slow{}", i)), Target("a")));
  }
  Sql("INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1);");
  std::string health;
  ASSERT_TRUE(WaitFor(
      [&] {
        health = rb.HttpGet("/healthz");
        return health.find("has changes received") != std::string::npos;
      },
      8s))
      << health << "\n"
      << rb.HttpGet("/status");
  EXPECT_EQ(
      health.rfind("unhealthy: running, but table " + source_db_ + ".a has changes received ", 0),
      0u)
      << health;
  EXPECT_NE(health.find("ago and not yet flushed (limit 3s)"), std::string::npos) << health;
  const Json status = Json::parse(rb.HttpGet("/status"));
  bool shown = false;
  for (const Json& t : status["tables"]) {
    if (t["source"]["table"] == "a") shown = t.contains("unflushed_since");
  }
  EXPECT_TRUE(shown) << status.dump();
  // Once the INSERT is done nothing waits any more; its lag at that flush, 9 s, fails the older
  // rule until the next quick flush.
  for (int i = 1; i <= 3; ++i) Ch("DROP TABLE " + Target(fmt::format("slow{}", i)));
  ASSERT_TRUE(
      WaitFor([&] { return Ch("SELECT count() FROM " + Target("a") + " FINAL") == "1"; }, 30s));
  ASSERT_TRUE(WaitFor(
      [&] {
        health = rb.HttpGet("/healthz");
        return health.find("behind the source at its last flush") != std::string::npos;
      },
      10s))
      << health;
  Sql("INSERT INTO a VALUES (2, 2);");
  EXPECT_TRUE(WaitFor([&] { return rb.HttpStatus("/healthz") == 200; }, 30s))
      << rb.HttpGet("/healthz");
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("a") + " FINAL WHERE _is_deleted = 0"), "2");
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
