// A checkpoint whose binlog the source purged (PURGE BINARY LOGS while rowbridge was stopped), on a
// source server of the suite's own (purging the shared server's binlogs would take other tests'
// files away): `source.on_purged_position: stop` (the default) ends `run` naming the purged file
// and the ways on; `recopy` copies every table again alongside the stream, into fresh targets that
// take the old ones' places, and ends with every target equal to its source, the changes lost with
// the purged files included.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelinePurgedPosition : public PrivateSourceFixture<PipelinePurgedPosition> {
 public:
  static std::vector<std::string> ServerOptions() { return {}; }

 protected:
  PipelinePurgedPosition() : PrivateSourceFixture("rbpg") {}

  bool Same(const std::string& table) {
    const std::vector<ColumnCompare> columns = {{"id"}, {"v"}, {"s"}};
    return MysqlRows(mysql_, source_db_, table, columns, "id") ==
           ReplicaRows(ch_, target_db_, table, columns, "id");
  }

  // Changes while rowbridge is stopped, then every binlog file before the current one purged.
  void ChangeAndPurge() {
    Sql("INSERT INTO a VALUES (10, 10, 'gone'); UPDATE a SET v = v + 100 WHERE id <= 2; "
        "DELETE FROM a WHERE id = 3; INSERT INTO b VALUES (10, 10, 'gone'); "
        "DELETE FROM b WHERE id = 1;");
    RunMysqlSql(mysql_, "FLUSH BINARY LOGS");
    Sql("UPDATE b SET s = 'after the flush' WHERE id = 2;");
    RunMysqlSql(mysql_, "FLUSH BINARY LOGS");
    const std::string status = RunMysqlSql(mysql_, "SHOW BINARY LOGS");
    const std::string last = status.substr(status.rfind('\n', status.size() - 2) + 1);
    const std::string file = last.substr(0, last.find('\t'));
    // MariaDB 11.8 keeps a file a binlog dump thread still reads, with a warning, and the dump
    // thread of the rowbridge just stopped can linger until its next write fails.
    std::string warnings;
    const bool purged = WaitFor(
        [&] {
          warnings = RunMysqlSql(mysql_, "PURGE BINARY LOGS TO '" + file + "'; SHOW WARNINGS");
          const std::string logs = RunMysqlSql(mysql_, "SHOW BINARY LOGS");
          return logs.substr(0, logs.find('\t')) == file;
        },
        30s);
    ASSERT_TRUE(purged) << "PURGE BINARY LOGS TO '" << file << "' kept older files: " << warnings;
  }
};

TEST_F(PipelinePurgedPosition, StopNamesThePurgedFileAndRecopyCopiesEveryTableAgain) {
  TestDir dir("purged-position");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT, s VARCHAR(40)); "
      "CREATE TABLE b (id INT PRIMARY KEY, v INT, s VARCHAR(40)); "
      "INSERT INTO a VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z'); "
      "INSERT INTO b VALUES (1, 1, 'x'), (2, 2, 'y');");
  PipelineConfig config =
      Config(fmt::format("  - match: [{0}.a, {0}.b]\n    mode: replica\n", source_db_));
  config.snapshot = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO a VALUES (4, 4, 'streamed');");
  rb.WaitCaughtUp();
  ASSERT_TRUE(Same("a") && Same("b"));
  ASSERT_EQ(rb.Terminate(), 0);
  const std::optional<state::Checkpoint> before = rb.SavedCheckpoint();
  ASSERT_TRUE(before);
  ChangeAndPurge();
  if (HasFatalFailure()) return;

  // The default: run ends, naming the file and the ways on; nothing is written.
  rb.Start();
  EXPECT_NE(rb.Wait(60s), 0) << rb.log();
  const std::string log = rb.log();
  EXPECT_NE(log.find("no longer has the binlog the checkpoint resumes from"), std::string::npos)
      << log;
  EXPECT_NE(log.find(before->file), std::string::npos) << log;
  EXPECT_NE(log.find("on_purged_position: recopy"), std::string::npos) << log;
  EXPECT_EQ(rb.SavedCheckpoint()->file, before->file);

  // recopy: both tables copied again into fresh targets that take the old ones' places.
  config.source_yaml = "  on_purged_position: recopy\n";
  std::filesystem::create_directories(dir.path() / "recopy");
  RowbridgeProcess recopy(dir.path() / "recopy", config);
  recopy.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = recopy.SavedCheckpoint();
        return c && c->file != before->file && !c->table_copy && Same("a") && Same("b");
      },
      120s))
      << recopy.log();
  EXPECT_NE(recopy.log().find("on_purged_position: recopy: the checkpoint was at"),
            std::string::npos)
      << recopy.log();
  // The stream goes on into the swapped-in tables.
  Sql("INSERT INTO a VALUES (20, 20, 'later'); UPDATE b SET v = 7 WHERE id = 2;");
  recopy.WaitCaughtUp();
  EXPECT_TRUE(Same("a")) << MysqlRows(mysql_, source_db_, "a", {{"id"}, {"v"}, {"s"}}, "id");
  EXPECT_TRUE(Same("b")) << MysqlRows(mysql_, source_db_, "b", {{"id"}, {"v"}, {"s"}}, "id");
  EXPECT_EQ(Ch(fmt::format("SELECT count() FROM system.tables WHERE database = '{}' AND name "
                           "LIKE '%rowbridge_resnapshot%'",
                           target_db_)),
            "0");
  EXPECT_EQ(recopy.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
