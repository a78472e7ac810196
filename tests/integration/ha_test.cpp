// High availability (config `ha: {lock: source}`) on real servers: two `rowbridge run` of one
// job, one leader and one standby. Killing the leader (kill -9), pausing it (SIGSTOP, then
// SIGCONT) or killing its lock connection on the source hands over to the standby within 10 s,
// the old leader never writes again, and the changelog target holds every change exactly once.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class HaTest : public PipelineFixture {
 protected:
  HaTest() : PipelineFixture("rbha") {}

  void SetUp() override {
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                            "`.events (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB");
  }

  // One config for both processes: the same job (server_id).
  const PipelineConfig& HaConfig() {
    if (!config_) {
      config_ = Config("  - match: " + source_db_ + ".events\n    mode: changelog\n");
      config_->extra_yaml = "ha: {lock: source, lease: 1s}\n";
    }
    return *config_;
  }
  std::optional<PipelineConfig> config_;

  // Inserts ids [from, to) one transaction each.
  void Insert(int from, int to) {
    std::string sql;
    for (int id = from; id < to; ++id)
      sql += fmt::format("INSERT INTO `{}`.events VALUES ({}, {});\n", source_db_, id, id * 7);
    RunMysqlSql(mysql_, sql);
  }

  std::string State(RowbridgeProcess& rb) {
    const std::string status = rb.HttpGet("/status");
    std::smatch m;
    if (std::regex_search(status, m, std::regex("\"state\"\\s*:\\s*\"([a-z]+)\""))) return m[1];
    return "";
  }

  bool WaitForState(RowbridgeProcess& rb, const std::string& state,
                    std::chrono::milliseconds timeout) {
    return WaitFor([&] { return State(rb) == state; }, timeout);
  }

  // Every insert exactly once: rows, distinct versions and distinct ids all equal `count`.
  void ExpectExactlyOnce(int count) {
    const std::string got =
        RunClickHouseSql(ch_, "SELECT count(), uniqExact(_version), uniqExact(id), sum(v) FROM `" +
                                  target_db_ + "`.events");
    int64_t sum = 0;
    for (int id = 1; id < count + 1; ++id) sum += id * 7;
    EXPECT_EQ(Trimmed(got), fmt::format("{}\t{}\t{}\t{}", count, count, count, sum));
  }

  // The connection id the leader's log names for its lock.
  static std::string LockConnection(const std::string& log) {
    std::smatch m;
    std::string last;
    auto begin = log.cbegin();
    while (std::regex_search(begin, log.cend(), m,
                             std::regex("holding the lock \\S+ on \\S+ "
                                        "\\(connection ([0-9]+)\\)"))) {
      last = m[1];
      begin = m.suffix().first;
    }
    return last;
  }
};

// Starts `a` as leader and `b` as standby, both replicating the same job.
#define START_LEADER_AND_STANDBY(a, b)                     \
  RowbridgeProcess a(dir_a.path(), HaConfig());            \
  RowbridgeProcess b(dir_b.path(), HaConfig());            \
  a.Start();                                               \
  ASSERT_TRUE(WaitForState(a, "running", 60s)) << a.log(); \
  b.Start();                                               \
  ASSERT_TRUE(WaitForState(b, "standby", 60s)) << b.log(); \
  Insert(1, 51);                                           \
  a.WaitCaughtUp(60s)

TEST_F(HaTest, StandbyTakesOverWithinTenSecondsOfKill9) {
  TestDir dir_a("ha-kill-a"), dir_b("ha-kill-b");
  START_LEADER_AND_STANDBY(a, b);
  a.Kill();
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
  std::printf("standby took over %lld ms after the leader's kill -9\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - killed)
                                         .count()));
  Insert(51, 101);
  b.WaitCaughtUp(60s);
  ExpectExactlyOnce(100);
  EXPECT_EQ(b.Terminate(), 0);
}

TEST_F(HaTest, PausedLeaderStepsDownWithoutWritingAfterTheStandbyTookOver) {
  TestDir dir_a("ha-stop-a"), dir_b("ha-stop-b");
  START_LEADER_AND_STANDBY(a, b);
  a.Signal(SIGSTOP);
  // The source drops the silent lock connection after 2 x lease; the standby takes over.
  ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
  Insert(51, 101);
  b.WaitCaughtUp(60s);
  a.Signal(SIGCONT);
  // The old leader's lease ran out while it was paused: it stands by without writing.
  ASSERT_TRUE(WaitForState(a, "standby", 30s)) << a.log();
  EXPECT_NE(a.log().find("lost the lock"), std::string::npos) << a.log();
  Insert(101, 151);
  b.WaitCaughtUp(60s);
  ExpectExactlyOnce(150);
  EXPECT_EQ(State(a), "standby");
  EXPECT_EQ(a.Terminate(), 0);
  EXPECT_EQ(b.Terminate(), 0);
}

TEST_F(HaTest, KilledLockConnectionMakesTheLeaderStepDown) {
  TestDir dir_a("ha-conn-a"), dir_b("ha-conn-b");
  START_LEADER_AND_STANDBY(a, b);
  const std::string connection = LockConnection(a.log());
  ASSERT_FALSE(connection.empty()) << a.log();
  RunMysqlSql(mysql_, "KILL " + connection);
  ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
  ASSERT_TRUE(WaitForState(a, "standby", 30s)) << a.log();
  Insert(51, 101);
  b.WaitCaughtUp(60s);
  ExpectExactlyOnce(100);
  EXPECT_EQ(a.Terminate(), 0);
  EXPECT_EQ(b.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
