// Foreign-key cascades on real servers (docs/running.md, "Foreign-key cascades"): MariaDB (and
// MySQL before 9.6) do not log the child rows an ON DELETE / ON UPDATE action changes; rowbridge
// repairs them alongside the stream. Each test ends with targets equal to their sources (row by
// row, and `rowbridge check`). On a source that logs cascades (MySQL 9.6+) the same tests show
// that nothing is repaired (rowbridge_cascade_repairs_total stays 0) and the logged changes are
// applied once.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "mysql/connection.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineCascadesTest : public PipelineFixture {
 protected:
  PipelineCascadesTest() : PipelineFixture("rbfk") {}

  // A replica rule for each of `tables`.
  std::string Rules(const std::vector<std::string>& tables) const {
    std::string rules;
    for (const std::string& t : tables)
      rules += fmt::format("  - match: {}.{}\n    mode: replica\n", source_db_, t);
    return rules;
  }

  void CreateSource(const std::string& schema) {
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
    Sql(schema);
  }

  // The source table and its target hold the same rows (`columns`, by id).
  void ExpectEqual(const std::string& table, const std::vector<std::string>& columns) {
    std::vector<ColumnCompare> compared;
    for (const std::string& c : columns) compared.push_back({c});
    EXPECT_EQ(ReplicaRows(ch_, target_db_, table, compared, "id"),
              MysqlRows(mysql_, source_db_, table, compared, "id"))
        << table;
  }

  // `rowbridge check` finds every target equal.
  void ExpectCheckEqual(const RowbridgeProcess& rb) {
    const CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  // On a source that logs cascades nothing was repaired; on one that does not, something was.
  void ExpectRepairs(RowbridgeProcess& rb) {
    const std::optional<double> repairs = rb.Metric("rowbridge_cascade_repairs_total");
    ASSERT_TRUE(repairs.has_value());
    if (mysql_.is_mysql() && SourceLogsCascades()) {
      EXPECT_EQ(*repairs, 0) << "MySQL logs its cascades: nothing to repair";
    } else {
      EXPECT_GT(*repairs, 0);
    }
  }

  bool SourceLogsCascades() {
    const std::string version = Trimmed(RunMysqlSql(mysql_, "SELECT VERSION()"));
    int major = 0, minor = 0;
    std::sscanf(version.c_str(), "%d.%d", &major, &minor);
    if (major < 9 || (major == 9 && minor < 6)) return false;
    return Trimmed(RunMysqlSql(mysql_, "SELECT @@GLOBAL.innodb_native_foreign_keys")) == "0";
  }

  std::unique_ptr<mysql::Connection> Connect() const {
    mysql::ConnectOptions options;
    options.host = mysql_.host;
    options.port = mysql_.port;
    options.user = mysql_.user;
    options.password = mysql_.password;
    options.database = source_db_;
    options.program_name = "rowbridge cascade test";
    return mysql::Connection::Connect(options);
  }
};

constexpr const char* kParentChild =
    "CREATE TABLE parent (id INT PRIMARY KEY, v INT); "
    "CREATE TABLE child (id INT PRIMARY KEY, pid INT, s VARCHAR(20), "
    "FOREIGN KEY (pid) REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE);";

TEST_F(PipelineCascadesTest, DeleteCascadeRemovesTheChildren) {
  TestDir dir("cascade-delete");
  CreateSource(kParentChild);
  RowbridgeProcess rb(dir.path(), Config(Rules({"parent", "child"})));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO parent VALUES (1, 1), (2, 2), (3, 3); "
      "INSERT INTO child VALUES (10, 1, 'a'), (11, 1, 'b'), (12, 2, 'c'), (13, 3, 'd');");
  rb.WaitCaughtUp();
  Sql("DELETE FROM parent WHERE id = 1;");
  rb.WaitCaughtUp();
  ExpectEqual("parent", {"id", "v"});
  ExpectEqual("child", {"id", "pid", "s"});
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("child") + " FINAL WHERE _is_deleted = 0"), "2");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineCascadesTest, UpdateCascadeMovesTheChildren) {
  TestDir dir("cascade-update");
  CreateSource(kParentChild);
  RowbridgeProcess rb(dir.path(), Config(Rules({"parent", "child"})));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO parent VALUES (1, 1), (2, 2); "
      "INSERT INTO child VALUES (10, 1, 'a'), (11, 2, 'b'), (12, 2, 'c');");
  rb.WaitCaughtUp();
  // The two statements: a delete and a key update, in one transaction each.
  Sql("DELETE FROM parent WHERE id = 1; UPDATE parent SET id = 20 WHERE id = 2;");
  rb.WaitCaughtUp();
  ExpectEqual("parent", {"id", "v"});
  ExpectEqual("child", {"id", "pid", "s"});
  EXPECT_EQ(Ch("SELECT groupArray(pid) FROM (SELECT pid FROM " + Target("child") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[20,20]");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineCascadesTest, SetNullClearsTheChildrensKey) {
  TestDir dir("cascade-set-null");
  CreateSource(
      "CREATE TABLE parent (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE child (id INT PRIMARY KEY, pid INT NULL, s VARCHAR(20), "
      "FOREIGN KEY (pid) REFERENCES parent(id) ON DELETE SET NULL ON UPDATE SET NULL);");
  RowbridgeProcess rb(dir.path(), Config(Rules({"parent", "child"})));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO parent VALUES (1, 1), (2, 2), (3, 3); "
      "INSERT INTO child VALUES (10, 1, 'a'), (11, 2, 'b'), (12, 3, 'c');");
  rb.WaitCaughtUp();
  Sql("DELETE FROM parent WHERE id = 1; UPDATE parent SET id = 30 WHERE id = 3;");
  rb.WaitCaughtUp();
  ExpectEqual("parent", {"id", "v"});
  ExpectEqual("child", {"id", "pid", "s"});
  EXPECT_EQ(
      Ch("SELECT countIf(pid IS NULL) FROM " + Target("child") + " FINAL WHERE _is_deleted = 0"),
      "2");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

constexpr const char* kThreeLevels =
    "CREATE TABLE p (id INT PRIMARY KEY, v INT); "
    "CREATE TABLE c (id INT PRIMARY KEY, pid INT, v INT, "
    "FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE); "
    "CREATE TABLE g (id INT PRIMARY KEY, cid INT, v INT, "
    "FOREIGN KEY (cid) REFERENCES c(id) ON DELETE CASCADE ON UPDATE CASCADE);";

TEST_F(PipelineCascadesTest, ATwoLevelChainIsRepairedDownToTheGrandchildren) {
  TestDir dir("cascade-chain");
  CreateSource(kThreeLevels);
  RowbridgeProcess rb(dir.path(), Config(Rules({"p", "c", "g"})));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO p VALUES (1, 1), (2, 2); "
      "INSERT INTO c VALUES (10, 1, 0), (11, 1, 0), (12, 2, 0); "
      "INSERT INTO g VALUES (100, 10, 0), (101, 11, 0), (102, 12, 0), (103, 12, 0);");
  rb.WaitCaughtUp();
  Sql("DELETE FROM p WHERE id = 1;");
  rb.WaitCaughtUp();
  ExpectEqual("p", {"id", "v"});
  ExpectEqual("c", {"id", "pid", "v"});
  ExpectEqual("g", {"id", "cid", "v"});
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("g") + " FINAL WHERE _is_deleted = 0"), "2");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineCascadesTest, AChildNoRuleMatchesStillCascadesIntoItsMatchedChildren) {
  TestDir dir("cascade-unmatched");
  CreateSource(kThreeLevels);
  RowbridgeProcess rb(dir.path(), Config(Rules({"p", "g"})));  // c is not replicated
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO p VALUES (1, 1), (2, 2), (3, 3); "
      "INSERT INTO c VALUES (10, 1, 0), (11, 2, 0), (12, 3, 0); "
      "INSERT INTO g VALUES (100, 10, 0), (101, 11, 0), (102, 12, 0);");
  rb.WaitCaughtUp();
  Sql("DELETE FROM p WHERE id = 1; UPDATE p SET id = 30 WHERE id = 3;");
  rb.WaitCaughtUp();
  ExpectEqual("p", {"id", "v"});
  ExpectEqual("g", {"id", "cid", "v"});
  EXPECT_EQ(Ch("SELECT groupArray(id) FROM (SELECT id FROM " + Target("g") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[101,102]");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineCascadesTest, ASelfReferenceCascadesDownTheTree) {
  TestDir dir("cascade-self");
  CreateSource(
      "CREATE TABLE emp (id INT PRIMARY KEY, boss INT NULL, v INT, "
      "FOREIGN KEY (boss) REFERENCES emp(id) ON DELETE CASCADE);");
  RowbridgeProcess rb(dir.path(), Config(Rules({"emp"})));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO emp VALUES (1, NULL, 0), (2, 1, 0), (3, 2, 0), (4, 3, 0), (5, NULL, 0), "
      "(6, 5, 0);");
  rb.WaitCaughtUp();
  Sql("DELETE FROM emp WHERE id = 2;");
  rb.WaitCaughtUp();
  ExpectEqual("emp", {"id", "boss", "v"});
  EXPECT_EQ(Ch("SELECT groupArray(id) FROM (SELECT id FROM " + Target("emp") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[1,5,6]");
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

// Random parent deletes and key updates (and child key updates) over two levels of children,
// with rowbridge killed with -9 in the middle and started again: the targets end equal.
TEST_F(PipelineCascadesTest, ACascadeWorkloadThroughKillNineEndsEqual) {
  TestDir dir("cascade-kill");
  CreateSource(kThreeLevels);
  PipelineConfig config = Config(Rules({"p", "c", "g"}));
  config.checkpoint_interval = "1s";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  std::atomic<bool> stop{false};
  std::atomic<int> steps{0};
  auto conn = Connect();
  std::thread load([&] {
    std::mt19937 random(42);
    int next = 1;
    auto pick = [&](int below) { return static_cast<int>(random() % std::max(1, below)) + 1; };
    while (!stop) {
      const int n = next++;
      switch (random() % 8) {
        case 0:
        case 1:
          conn->Execute(fmt::format("INSERT INTO p VALUES ({}, 0)", n));
          break;
        case 2:
        case 3:
          conn->Execute(fmt::format(
              "INSERT INTO c (id, pid, v) SELECT {}, id, 0 FROM p ORDER BY RAND() LIMIT 1", n));
          break;
        case 4:
          conn->Execute(fmt::format(
              "INSERT INTO g (id, cid, v) SELECT {}, id, 0 FROM c ORDER BY RAND() LIMIT 1", n));
          break;
        case 5:
          conn->Execute(fmt::format("DELETE FROM p WHERE id = {}", pick(n)));
          break;
        case 6:
          conn->Execute(fmt::format("UPDATE p SET id = {} WHERE id = {}", n, pick(n)));
          break;
        default:
          conn->Execute(fmt::format("UPDATE c SET id = {}, v = v + 1 WHERE id = {}", n, pick(n)));
          break;
      }
      ++steps;
      std::this_thread::sleep_for(5ms);
    }
  });
  ASSERT_TRUE(WaitFor([&] { return steps > 400; }, 60s));
  rb.Kill();
  ASSERT_TRUE(WaitFor([&] { return steps > 700; }, 60s));
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return steps > 1100; }, 60s));
  stop = true;
  load.join();
  rb.WaitCaughtUp(180s);
  ExpectEqual("p", {"id", "v"});
  ExpectEqual("c", {"id", "pid", "v"});
  ExpectEqual("g", {"id", "cid", "v"});
  ExpectRepairs(rb);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
