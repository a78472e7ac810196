// High availability on real servers, with each kind of lock (`ha: {lock: source}` and
// `ha: {lock: zookeeper}`, on a ZooKeeper this test process starts): two `rowbridge run` of one
// job, one leader and one standby. Killing the leader (kill -9), pausing it (SIGSTOP, then
// SIGCONT), killing its lock connection on the source, deleting its ZooKeeper node or stopping
// ZooKeeper for longer than the session hands over to the standby (within 10 s where the leader
// died), the old leader never writes again, and the changelog target holds every change exactly
// once.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include "ha/zookeeper_session.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

// The fixture of one lock kind, "source" or "zookeeper".
class HaFixture : public PipelineFixture {
 protected:
  explicit HaFixture(std::string lock) : PipelineFixture("rbha"), lock_(std::move(lock)) {}

  void SetUp() override {
    if (lock_ == "zookeeper") {
      ROWBRIDGE_REQUIRE_ZOOKEEPER();
      zookeeper_ = &SharedZooKeeper();
    }
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return;
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                            "`.events (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB");
  }

  // One config for both processes: the same job (server_id).
  const PipelineConfig& HaConfig() {
    if (!config_) {
      config_ = Config("  - match: " + source_db_ + ".events\n    mode: changelog\n");
      if (lock_ == "source") {
        config_->extra_yaml = "ha: {lock: source, lease: 1s}\n";
      } else {
        // A node of the test's own in the shared ZooKeeper; the session timeout is 2 s.
        config_->extra_yaml =
            fmt::format("ha: {{lock: zookeeper, hosts: \"{}\", path: /{}, lease: 1s}}\n",
                        zookeeper_->hosts(), UniqueName("rbha"));
      }
    }
    return *config_;
  }
  std::optional<PipelineConfig> config_;
  const std::string lock_;
  ScopedZooKeeper* zookeeper_ = nullptr;

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

  // The last group 1 of `pattern` in `log`: what the leader's log names last.
  static std::string LastInLog(const std::string& log, const std::regex& pattern) {
    std::smatch m;
    std::string last;
    auto begin = log.cbegin();
    while (std::regex_search(begin, log.cend(), m, pattern)) {
      last = m[1];
      begin = m.suffix().first;
    }
    return last;
  }
  // The connection id the leader's log names for its lock.
  static std::string LockConnection(const std::string& log) {
    return LastInLog(log, std::regex("holding the lock \\S+ on \\S+ \\(connection ([0-9]+)\\)"));
  }
  // The ZooKeeper node the leader's log names for its lock.
  static std::string LockNode(const std::string& log) {
    return LastInLog(log, std::regex("\\(node (/\\S+), session "));
  }

  // After the leader `a` lost its lock (started by START_LEADER_AND_STANDBY): `b` takes over within
  // 10 s, `a` stands by, and the next changes are replicated exactly once.
  void ExpectStandbyTookOver(RowbridgeProcess& a, RowbridgeProcess& b) {
    ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
    ASSERT_TRUE(WaitForState(a, "standby", 30s)) << a.log();
    InsertAndExpectExactlyOnce(b, 51, 101);
    ExpectStandbyAndStop(a, b);
  }

  // Inserts ids [from, to) and expects every insert since the first exactly once, once `leader`
  // caught up.
  void InsertAndExpectExactlyOnce(RowbridgeProcess& leader, int from, int to) {
    Insert(from, to);
    leader.WaitCaughtUp(60s);
    ExpectExactlyOnce(to - 1);
  }

  // `standby` still stands by; both stop cleanly.
  void ExpectStandbyAndStop(RowbridgeProcess& standby, RowbridgeProcess& leader) {
    EXPECT_EQ(State(standby), "standby");
    EXPECT_EQ(standby.Terminate(), 0);
    EXPECT_EQ(leader.Terminate(), 0);
  }
};

class HaTest : public HaFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  HaTest() : HaFixture(GetParam()) {}
};
INSTANTIATE_TEST_SUITE_P(Locks, HaTest, ::testing::Values("source", "zookeeper"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

class HaSourceTest : public HaFixture {
 protected:
  HaSourceTest() : HaFixture("source") {}
};

class HaZooKeeperTest : public HaFixture {
 protected:
  HaZooKeeperTest() : HaFixture("zookeeper") {}
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

TEST_P(HaTest, StandbyTakesOverWithinTenSecondsOfKill9) {
  TestDir dir_a("ha-kill-a"), dir_b("ha-kill-b");
  START_LEADER_AND_STANDBY(a, b);
  a.Kill();
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
  std::printf("standby took over %lld ms after the leader's kill -9\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - killed)
                                         .count()));
  InsertAndExpectExactlyOnce(b, 51, 101);
  EXPECT_EQ(b.Terminate(), 0);
}

TEST_P(HaTest, PausedLeaderStepsDownWithoutWritingAfterTheStandbyTookOver) {
  TestDir dir_a("ha-stop-a"), dir_b("ha-stop-b");
  START_LEADER_AND_STANDBY(a, b);
  a.Signal(SIGSTOP);
  // The source drops the silent lock connection after 2 x lease (ZooKeeper expires the session);
  // the standby takes over.
  ASSERT_TRUE(WaitForState(b, "running", 10s)) << b.log();
  Insert(51, 101);
  b.WaitCaughtUp(60s);
  a.Signal(SIGCONT);
  // The old leader's lease ran out while it was paused: it stands by without writing.
  ASSERT_TRUE(WaitForState(a, "standby", 30s)) << a.log();
  EXPECT_NE(a.log().find("lost the lock"), std::string::npos) << a.log();
  InsertAndExpectExactlyOnce(b, 101, 151);
  ExpectStandbyAndStop(a, b);
}

TEST_F(HaSourceTest, KilledLockConnectionMakesTheLeaderStepDown) {
  TestDir dir_a("ha-conn-a"), dir_b("ha-conn-b");
  START_LEADER_AND_STANDBY(a, b);
  const std::string connection = LockConnection(a.log());
  ASSERT_FALSE(connection.empty()) << a.log();
  RunMysqlSql(mysql_, "KILL " + connection);
  ExpectStandbyTookOver(a, b);
}

// The node deleted from outside (an operator, another tool): the lock is lost at once, the leader
// steps down, and the standby, now first in the election, takes over.
TEST_F(HaZooKeeperTest, DeletedLeaderNodeMakesTheLeaderStepDown) {
  TestDir dir_a("ha-node-a"), dir_b("ha-node-b");
  START_LEADER_AND_STANDBY(a, b);
  const std::string node = LockNode(a.log());
  ASSERT_FALSE(node.empty()) << a.log();
  ha::ZooKeeperSession(zookeeper_->hosts(), 4s, 10s).Delete(node);
  ExpectStandbyTookOver(a, b);
  EXPECT_NE(a.log().find("was deleted"), std::string::npos) << a.log();
}

// ZooKeeper gone for longer than the session timeout: the leader cannot confirm its lock, stops
// writing after the lease and steps down after the session timeout. Once ZooKeeper is back, one
// process leads again and resumes from the checkpoint.
TEST_F(HaZooKeeperTest, ZooKeeperDownLongerThanTheSessionMakesTheLeaderStepDown) {
  TestDir dir_a("ha-zkdown-a"), dir_b("ha-zkdown-b");
  START_LEADER_AND_STANDBY(a, b);
  zookeeper_->Stop();
  ASSERT_TRUE(WaitFor([&] { return State(a) == "standby"; }, 30s)) << a.log();
  EXPECT_NE(a.log().find("lost the lock"), std::string::npos) << a.log();
  Insert(51, 101);
  std::this_thread::sleep_for(3s);  // longer than the 2 s session
  zookeeper_->Start();
  ASSERT_TRUE(WaitFor([&] { return State(a) == "running" || State(b) == "running"; }, 30s))
      << a.log() << b.log();
  RowbridgeProcess& leader = State(a) == "running" ? a : b;
  RowbridgeProcess& standby = &leader == &a ? b : a;
  EXPECT_EQ(State(standby), "standby");
  InsertAndExpectExactlyOnce(leader, 101, 151);
  ExpectStandbyAndStop(standby, leader);
}

// `rowbridge validate` opens a session as `run` would and names the leader; an ensemble that does
// not answer is a problem that names it.
TEST_F(HaZooKeeperTest, ValidateChecksTheZooKeeperLock) {
  TestDir dir_a("ha-validate-a"), dir_b("ha-validate-b");
  RowbridgeProcess a(dir_a.path(), HaConfig());
  a.Start();
  ASSERT_TRUE(WaitForState(a, "running", 60s)) << a.log();
  const CliResult ok = a.RunCommandLine({"validate", "-c", a.config_path().string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("ZooKeeper " + zookeeper_->hosts() + ": session timeout 2000 ms"),
            std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("leader lock-"), std::string::npos) << ok.out;
  EXPECT_EQ(a.Terminate(), 0);

  PipelineConfig dead = HaConfig();
  dead.extra_yaml = "ha: {lock: zookeeper, hosts: \"127.0.0.1:1\", lease: 1s}\n";
  RowbridgeProcess b(dir_b.path(), dead);
  const CliResult bad = b.RunCommandLine({"validate", "-c", b.config_path().string()});
  EXPECT_NE(bad.exit_code, 0) << bad.out << bad.err;
  EXPECT_NE((bad.out + bad.err)
                .find("ZooKeeper 127.0.0.1:1 (ha.lock: zookeeper): no ZooKeeper "
                      "server of 127.0.0.1:1 granted a session"),
            std::string::npos)
      << bad.out << bad.err;
}

}  // namespace
}  // namespace rowbridge::testing
