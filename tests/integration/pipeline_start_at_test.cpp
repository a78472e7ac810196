// `rowbridge run --start-at` on real servers: a first start streams from a chosen binlog position
// or GTID set (rows written before the start are then replicated from the binlog, not copied); a
// start with a saved checkpoint is refused unless --move-checkpoint replaces it; positions the
// source does not have are refused naming them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineStartAt : public PipelineFixture {
 protected:
  PipelineStartAt() : PipelineFixture("rbstart") {}

  void SetUp() override {
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                            "`.t (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB");
    config_ = Config("  - match: " + source_db_ + ".t\n");
  }

  mysql::BinlogPosition SourcePosition() {
    auto c = mysql::Connection::Connect(MysqlConnectOptions(mysql_));
    return mysql::CurrentBinlogPosition(*c);
  }

  // Inserts ids [from, to) in one transaction.
  void Insert(int from, int to) {
    std::string sql = "INSERT INTO `" + source_db_ + "`.t VALUES ";
    for (int id = from; id < to; ++id)
      sql += fmt::format("{}({}, {})", id == from ? "" : ",", id, id * 3);
    RunMysqlSql(mysql_, sql);
  }

  // "count sum(v)" of the replica's current rows.
  std::string Replica() {
    return Trimmed(RunClickHouseSql(
        ch_, "SELECT count(), sum(v) FROM `" + target_db_ + "`.t FINAL WHERE _is_deleted = 0"));
  }

  static std::string Expected(int rows) {
    int64_t sum = 0;
    for (int id = 1; id <= rows; ++id) sum += id * 3;
    return fmt::format("{}\t{}", rows, sum);
  }

  PipelineConfig config_;
};

TEST_F(PipelineStartAt, FilePositionReplaysWhatWasWrittenBeforeTheStart) {
  const mysql::BinlogPosition before = SourcePosition();
  Insert(1, 11);
  const std::string at = fmt::format("{}:{}", before.file, before.position);

  TestDir dir("start-at-file");
  RowbridgeProcess rb(dir.path(), config_);
  rb.Start({"--start-at", at});
  rb.WaitCaughtUp(90s);
  EXPECT_EQ(Replica(), Expected(10));
  EXPECT_NE(rb.log().find("--start-at " + at), std::string::npos) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();

  // A checkpoint exists now: a new start position is refused, naming the checkpoint ...
  rb.Start({"--start-at", "now"});
  EXPECT_NE(rb.Wait(60s), 0) << rb.log();
  EXPECT_NE(rb.log().find("already holds a checkpoint"), std::string::npos) << rb.log();
  EXPECT_NE(rb.log().find("--move-checkpoint"), std::string::npos) << rb.log();

  // ... unless the operator moves it: the same rows come again (versions above the old ones, so
  // FINAL keeps one of each) and the stream goes on.
  rb.Start({"--start-at", at, "--move-checkpoint"});
  Insert(11, 16);
  rb.WaitCaughtUp(90s);
  EXPECT_EQ(Replica(), Expected(15));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

TEST_F(PipelineStartAt, GtidSetStartsRightAfterTheSet) {
  const mysql::BinlogPosition before = SourcePosition();
  const std::string gtids =
      mysql_.is_mysql() ? before.mysql_gtids.ToString() : before.mariadb_gtids.ToString();
  ASSERT_FALSE(gtids.empty()) << "the test source has no GTID state";
  Insert(1, 8);

  TestDir dir("start-at-gtid");
  RowbridgeProcess rb(dir.path(), config_);
  rb.Start({"--start-at", gtids});
  rb.WaitCaughtUp(90s);
  EXPECT_EQ(Replica(), Expected(7));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

TEST_F(PipelineStartAt, PositionsTheSourceDoesNotHaveAreRefusedNamingThem) {
  TestDir dir("start-at-bad");
  RowbridgeProcess rb(dir.path(), config_);
  rb.Start({"--start-at", "nosuch-bin.000999:4"});
  EXPECT_NE(rb.Wait(60s), 0) << rb.log();
  EXPECT_NE(rb.log().find("has no binlog nosuch-bin.000999"), std::string::npos) << rb.log();

  rb.Start({"--start-at", "yesterday"});
  EXPECT_NE(rb.Wait(60s), 0) << rb.log();
  EXPECT_NE(rb.log().find("expected now, earliest, FILE:POS"), std::string::npos) << rb.log();

  rb.Start({"--move-checkpoint"});
  EXPECT_NE(rb.Wait(60s), 0) << rb.log();
  EXPECT_NE(rb.log().find("--move-checkpoint needs --start-at"), std::string::npos) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
