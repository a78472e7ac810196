// `rowbridge check --repair` and `rowbridge repair` on real servers: targets damaged behind
// rowbridge's back (rows lost, values changed, rows added, in a replica and a changelog table)
// are repaired by the running `run` while its stream keeps writing changes into the same tables,
// and end equal to their sources; without a running `run` the repair is recorded and carried out
// by the next one.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "mysql/connection.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

class CheckRepairTest : public PipelineFixture {
 protected:
  CheckRepairTest() : PipelineFixture("rbrp") {}

  PipelineConfig RepairConfig() const {
    PipelineConfig config =
        Config(fmt::format("  - match: {0}.r\n    mode: replica\n"
                           "  - match: {0}.c\n    mode: changelog\n",
                           source_db_));
    config.snapshot = true;
    return config;
  }

  // ALTER TABLE ... DELETE/UPDATE on a target, waited for: damage rowbridge did not write.
  void Mutate(const std::string& table, const std::string& what) {
    Ch(fmt::format("ALTER TABLE {} {}", Target(table), what));
    ASSERT_TRUE(WaitFor(
        [&] {
          return Ch(fmt::format("SELECT count() FROM system.mutations WHERE database = '{}' AND "
                                "table = '{}' AND is_done = 0",
                                target_db_, table)) == "0";
        },
        60s));
  }

  // A connection to the test's source database for a load thread.
  std::unique_ptr<mysql::Connection> LoadConnection() const {
    mysql::ConnectOptions options;
    options.host = mysql_.host;
    options.port = mysql_.port;
    options.user = mysql_.user;
    options.password = mysql_.password;
    options.database = source_db_;
    options.program_name = "rowbridge test load";
    return mysql::Connection::Connect(options);
  }

  CliResult Check(const RowbridgeProcess& rb, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"check", "-c", rb.config_path().string(), "--chunk-rows",
                                     "100"};
    args.insert(args.end(), more.begin(), more.end());
    return rb.RunCommandLine(args);
  }
};

TEST_F(CheckRepairTest, DamagedTargetsAreRepairedWhileTheStreamWritesIntoThem) {
  TestDir dir("check-repair");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  std::string values;
  for (int i = 1; i <= 500; ++i)
    values += fmt::format("{}({}, {}, 's{}')", i > 1 ? ", " : "", i, i, i);
  Sql("CREATE TABLE r (id INT PRIMARY KEY, v INT, s VARCHAR(40)); "
      "CREATE TABLE c (id INT PRIMARY KEY, v INT, s VARCHAR(40)); "
      "INSERT INTO r VALUES " +
      values + "; INSERT INTO c VALUES " + values + ";");
  RowbridgeProcess rb(dir.path(), RepairConfig());
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp();
  ASSERT_EQ(Check(rb).exit_code, 0) << Check(rb).out;

  // Rows lost, a value changed and a row added behind rowbridge's back, in both modes.
  Mutate("r", "DELETE WHERE id IN (10, 250)");
  Mutate("r", "UPDATE v = v + 1000 WHERE id = 77");
  Ch("INSERT INTO " + Target("r") +
     " (id, v, s, _version, _is_deleted) VALUES (9001, 1, 'x', 1, 0)");
  Mutate("c", "DELETE WHERE id = 20");
  Mutate("c", "UPDATE s = 'damaged' WHERE id = 333");
  Ch("INSERT INTO " + Target("c") +
     " (id, v, s, _version, _event_type) VALUES (9002, 1, 'x', 1, 'insert')");
  const CliResult damaged = Check(rb);
  ASSERT_EQ(damaged.exit_code, 1) << damaged.out << damaged.err;
  EXPECT_NE(damaged.out.find("missing in target: id=10"), std::string::npos) << damaged.out;
  EXPECT_NE(damaged.out.find("extra in target:   id=9002"), std::string::npos) << damaged.out;

  // Refused: a table no rule matches.
  const CliResult unmatched =
      rb.RunCommandLine({"repair", "-c", rb.config_path().string(), source_db_ + ".nope",
                         "--address", fmt::format("127.0.0.1:{}", rb.HttpPort())});
  EXPECT_NE(unmatched.exit_code, 0);
  EXPECT_NE(unmatched.err.find("no rule of the configuration matches it"), std::string::npos)
      << unmatched.out << unmatched.err;

  // The stream keeps changing rows of both tables (the damaged ones too) during the repair.
  // On a connection of its own: a client process started from this thread would race the main
  // thread's changes to the environment (RunCommandLine).
  std::atomic<bool> stop_load{false};
  auto load_connection = LoadConnection();
  std::thread load([&] {
    for (int step = 0; !stop_load; ++step) {
      const int id = 1 + (step * 37) % 500;
      for (const std::string& sql :
           {fmt::format("UPDATE r SET v = v + 1 WHERE id IN ({}, 77)", id),
            fmt::format("UPDATE c SET v = v + 1 WHERE id IN ({}, 333)", id),
            fmt::format("INSERT INTO r VALUES ({}, 0, 'new')", 1000 + step),
            fmt::format("INSERT INTO c VALUES ({}, 0, 'new')", 1000 + step),
            fmt::format("DELETE FROM c WHERE id = {}", 400 + step % 50)}) {
        load_connection->Execute(sql);
      }
      std::this_thread::sleep_for(50ms);
    }
  });
  const CliResult repair =
      Check(rb, {"--repair", "--address", fmt::format("127.0.0.1:{}", rb.HttpPort())});
  stop_load = true;
  load.join();
  EXPECT_NE(repair.out.find(fmt::format("repair {}.r: done", source_db_)), std::string::npos)
      << repair.out << repair.err << rb.log();
  EXPECT_NE(repair.out.find(fmt::format("repair {}.c: done", source_db_)), std::string::npos)
      << repair.out << repair.err;
  rb.WaitCaughtUp();
  const CliResult after = Check(rb);
  EXPECT_EQ(after.exit_code, 0) << after.out << repair.out << rb.log();
  EXPECT_TRUE(WaitFor([&] { return rb.SavedCheckpoint()->table_repairs.empty(); }, 30s));
  // The changelog's deletes copy the row they delete.
  EXPECT_EQ(Ch("SELECT s FROM " + Target("c") + " WHERE id = 9002 AND _event_type = 'delete'"),
            "x");
  ASSERT_EQ(rb.Terminate(), 0);

  // Without a running `run`: recorded, and carried out by the next one.
  Mutate("r", "DELETE WHERE id = 30");
  const CliResult recorded = Check(rb, {"--repair"});
  EXPECT_EQ(recorded.exit_code, 1) << recorded.out << recorded.err;
  EXPECT_NE(recorded.out.find("recorded in"), std::string::npos) << recorded.out << recorded.err;
  ASSERT_EQ(rb.SavedCheckpoint()->pending_commands.size(), 1u);
  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
        return c && c->pending_commands.empty() && c->table_repairs.empty();
      },
      90s))
      << rb.log();
  rb.WaitCaughtUp();
  const CliResult repaired = Check(rb);
  EXPECT_EQ(repaired.exit_code, 0) << repaired.out << rb.log();
  EXPECT_EQ(rb.Terminate(), 0);
}

// A repair interrupted by kill -9 is run again by the next start, writes exactly the rows the
// first attempt had not, and ends exact. The stream is kept busy with another table and
// checkpoints are saved every 2 s, so the repair waits for the stream before each of its ranges
// (WaitForStream) and is under way at the kill.
TEST_F(CheckRepairTest, ARepairKilledWithNineIsRunAgainByTheNextStart) {
  TestDir dir("check-repair-kill");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE r (id INT PRIMARY KEY, v INT, s VARCHAR(40)); "
      "CREATE TABLE c (id INT PRIMARY KEY, v INT, s VARCHAR(40));");
  for (int batch = 0; batch < 4; ++batch) {
    std::string values;
    for (int i = 1; i <= 5000; ++i) {
      const int id = batch * 5000 + i;
      values += fmt::format("{}({}, {}, 's{}')", i > 1 ? ", " : "", id, id, id);
    }
    Sql("INSERT INTO r VALUES " + values + ";");
  }
  PipelineConfig config = RepairConfig();
  config.checkpoint_interval = "2s";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp();
  Mutate("r", "DELETE WHERE id % 1000 = 0");

  std::atomic<bool> stop_load{false};
  auto load_connection = LoadConnection();
  std::thread load([&] {
    for (int step = 0; !stop_load; ++step) {
      load_connection->Execute(fmt::format("INSERT INTO c VALUES ({}, 0, 'load')", step));
      std::this_thread::sleep_for(100ms);
    }
  });
  const std::string address = fmt::format("127.0.0.1:{}", rb.HttpPort());
  const CliResult asked = rb.RunCommandLine(
      {"repair", "-c", rb.config_path().string(), source_db_ + ".r", "--address", address});
  ASSERT_EQ(asked.exit_code, 0) << asked.out << asked.err;
  ASSERT_TRUE(WaitFor(
      [&] {
        const Json status = Json::parse(rb.HttpGet("/status"), nullptr, false);
        if (!status.is_object() || !status.contains("tables")) return false;
        for (const Json& t : status["tables"]) {
          if (t["source"]["table"] == "r" && t.contains("repair"))
            return t["repair"]["state"] == "running";
        }
        return false;
      },
      60s))
      << rb.log();
  std::this_thread::sleep_for(500ms);
  rb.Kill();
  stop_load = true;
  load.join();
  ASSERT_EQ(rb.SavedCheckpoint()->table_repairs.size(), 1u) << rb.log();
  // What the killed repair left to do: it may have written some ranges before the kill (how many
  // depends on the machine's speed), and the next start's repair must write exactly the rest.
  const int missing =
      20000 - std::stoi(Trimmed(Ch(
                  fmt::format("SELECT count() FROM {} FINAL WHERE _is_deleted = 0", Target("r")))));
  ASSERT_GT(missing, 0) << "the repair was done before the kill; the test needs it interrupted";

  const size_t before = rb.log().size();
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint()->table_repairs.empty(); }, 180s))
      << rb.log();
  rb.WaitCaughtUp();
  const CliResult after = Check(rb);
  EXPECT_EQ(after.exit_code, 0) << after.out << rb.log();
  const std::string again = rb.log().substr(before);
  const size_t done = again.find("repair of " + source_db_ + ".r done: ");
  ASSERT_NE(done, std::string::npos) << again;
  EXPECT_NE(
      again.find(fmt::format(" key ranges differed; {} rows written, 0 keys deleted", missing),
                 done),
      std::string::npos)
      << again.substr(done, 200);
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
