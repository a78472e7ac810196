// Two rowbridge processes with one server_id, on real servers. A source disconnects the older of
// two replicas that register with the same server_id, so a second `rowbridge run` started by
// mistake would stop a running one. `validate` and `run` must refuse instead, and the running
// process must go on untouched. A process that was killed leaves a session the source drops at its
// next heartbeat: a restart waits for that rather than calling it a clash.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineServerId : public PipelineFixture {
 protected:
  PipelineServerId() : PipelineFixture("rbsid") {}

  void SetUp() override {
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                            "`.t (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB");
    config_ = Config("  - match: " + source_db_ + ".t\n");
  }

  // Inserts ids [from, to) in one transaction.
  void Insert(int from, int to) {
    std::string sql = "INSERT INTO `" + source_db_ + "`.t VALUES ";
    for (int id = from; id < to; ++id)
      sql += fmt::format("{}({}, {})", id == from ? "" : ",", id, id);
    RunMysqlSql(mysql_, sql);
  }

  std::string TargetCount() {
    return Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM `" + target_db_ + "`.t FINAL"));
  }

  PipelineConfig config_;
};

TEST_F(PipelineServerId, SecondProcessWithOurServerIdIsRefusedAndTheFirstGoesOn) {
  TestDir dir_a("sid-first"), dir_b("sid-second");
  RowbridgeProcess first(dir_a.path(), config_);
  StartAndWaitForCheckpoint(first);
  Insert(1, 11);
  first.WaitCaughtUp(60s);
  const std::string id = std::to_string(config_.server_id);

  RowbridgeProcess second(dir_b.path(), config_);
  CliResult validate = second.RunCommandLine({"validate", "-c", second.config_path().string()});
  EXPECT_NE(validate.exit_code, 0) << validate.out << validate.err;
  const std::string said = validate.out + validate.err;
  EXPECT_NE(said.find("another rowbridge (report host 'rowbridge/"), std::string::npos) << said;
  EXPECT_NE(said.find("with our server_id " + id), std::string::npos) << said;
  EXPECT_NE(said.find("so this one is alive"), std::string::npos) << said;

  second.Start();
  EXPECT_NE(second.Wait(60s), 0) << second.log();
  EXPECT_NE(second.log().find("another rowbridge"), std::string::npos) << second.log();
  EXPECT_NE(second.log().find("server_id " + id), std::string::npos) << second.log();

  // The first process was not disconnected: it is still running and still replicating.
  ASSERT_TRUE(first.running()) << first.log();
  Insert(11, 21);
  first.WaitCaughtUp(60s);
  EXPECT_EQ(TargetCount(), "20");
  EXPECT_EQ(first.log().find("4052"), std::string::npos) << first.log();
  EXPECT_EQ(first.Terminate(), 0) << first.log();
}

// Two jobs (in production one per source, as two instances of the systemd template; here two
// tables of one source, each job with its own server_id and rules) writing into one ClickHouse
// database share its state table: each job's checkpoint is a row of its own, so neither reads,
// overwrites or waits for the other's, also when one is killed and comes back.
TEST_F(PipelineServerId, TwoJobsShareOneStateTableWithoutInterference) {
  TestDir dir_a("sid-job-a"), dir_b("sid-job-b");
  RunMysqlSql(mysql_, "CREATE TABLE `" + source_db_ + "`.u (id INT PRIMARY KEY, v INT NOT NULL)");
  const PipelineConfig other = Config("  - match: " + source_db_ + ".u\n");
  ASSERT_NE(other.server_id, config_.server_id);
  RowbridgeProcess a(dir_a.path(), config_);
  RowbridgeProcess b(dir_b.path(), other);
  StartAndWaitForCheckpoint(a);
  StartAndWaitForCheckpoint(b);
  auto insert_u = [&](int from, int to) {
    std::string sql = "INSERT INTO `" + source_db_ + "`.u VALUES ";
    for (int id = from; id < to; ++id)
      sql += fmt::format("{}({}, {})", id == from ? "" : ",", id, id);
    RunMysqlSql(mysql_, sql);
  };
  Insert(1, 51);
  insert_u(1, 31);
  a.WaitCaughtUp(60s);
  b.WaitCaughtUp(60s);
  a.Kill();
  Insert(51, 61);
  insert_u(31, 41);
  b.WaitCaughtUp(60s);
  a.Start();
  a.WaitCaughtUp(60s);
  EXPECT_EQ(TargetCount(), "60");
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM `" + target_db_ + "`.u FINAL")),
            "40");
  const std::optional<state::Checkpoint> ca = a.SavedCheckpoint();
  const std::optional<state::Checkpoint> cb = b.SavedCheckpoint();
  ASSERT_TRUE(ca && cb);
  EXPECT_EQ(ca->replicated_tables, std::vector<std::string>{source_db_ + ".t"});
  EXPECT_EQ(cb->replicated_tables, std::vector<std::string>{source_db_ + ".u"});
  EXPECT_EQ(Trimmed(RunClickHouseSql(
                ch_, fmt::format("SELECT uniqExact(job) FROM `{}`.rowbridge_state WHERE job IN "
                                 "('{}', '{}')",
                                 target_db_, config_.server_id, other.server_id))),
            "2");
  EXPECT_EQ(b.log().find("4052"), std::string::npos) << b.log();
  EXPECT_EQ(a.Terminate(), 0) << a.log();
  EXPECT_EQ(b.Terminate(), 0) << b.log();
}

TEST_F(PipelineServerId, RestartAfterKill9WaitsOutTheDeadSession) {
  TestDir dir_a("sid-killed"), dir_b("sid-restarted");
  RowbridgeProcess killed(dir_a.path(), config_);
  StartAndWaitForCheckpoint(killed);
  Insert(1, 11);
  killed.WaitCaughtUp(60s);
  killed.Kill();

  // A new process (another pid, so another report host) with the same state: the killed one's
  // session may still be registered for a heartbeat or two.
  PipelineConfig same_state = config_;
  RowbridgeProcess restarted(dir_b.path(), same_state);
  restarted.Start();
  Insert(11, 21);
  restarted.WaitCaughtUp(90s);
  EXPECT_EQ(TargetCount(), "20");
  EXPECT_EQ(restarted.Terminate(), 0) << restarted.log();
}

}  // namespace
}  // namespace rowbridge::testing
