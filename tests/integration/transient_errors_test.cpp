// Transient server errors are retried with backoff by every retry loop, on real servers: MySQL
// 1040 (too many connections) during the initial copy, 1205 (lock wait timeout) during `check`,
// ClickHouse 202 (too many simultaneous queries) during an ALTER carried to the target and during
// a state store save. Permanent errors (access denied, a readonly user) are reported at once,
// without a retry.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clickhouse/client.h"
#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "mysql/connection.h"
#include "state/state_store.h"
#include "support/clickhouse_options.h"
#include "support/expect_error.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Takes every connection the server allows (root gets max_connections + 1), until the server
// answers 1040; the connections are released when this goes away.
class ConnectionHog {
 public:
  explicit ConnectionHog(const MysqlAddress& server) {
    for (int i = 0; i < 200; ++i) {
      try {
        held_.push_back(mysql::Connection::Connect(testing::MysqlConnectOptions(server)));
      } catch (const Error& e) {
        refusal_ = e.server_code();
        return;
      }
    }
  }
  int refusal() const { return refusal_; }
  void Release() { held_.clear(); }

 private:
  std::vector<std::unique_ptr<mysql::Connection>> held_;
  int refusal_ = 0;
};

// `count` queries of the default user on `server` that each run for about `seconds`, started on
// threads; WaitStarted() says when every one runs on the server.
class QueryHog {
 public:
  QueryHog(const ClickHouseAddress& server, int count, int seconds) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([this, server, seconds] {
        // A query of rowbridge's may hold a slot for a moment: a hog refused with 202 before it
        // ran tries again.
        bool started = false;
        for (int attempt = 0; attempt < 50; ++attempt) {
          try {
            clickhouse::Client client(testing::ClickHouseClientOptions(server));
            client.Select(fmt::format("SELECT sleepEachRow(0.5) FROM numbers({}) SETTINGS "
                                      "max_block_size = 1",
                                      seconds * 2),
                          [&](clickhouse::Block&) {
                            if (!started) ++started_;  // once per query
                            started = true;
                            return true;
                          });
            break;
          } catch (const Error& e) {
            if (!started && e.server_code() == 202) {
              std::this_thread::sleep_for(std::chrono::milliseconds(100));
              continue;
            }
            std::lock_guard lock(mutex_);
            errors_ += std::string(e.what()) + "\n";
            break;
          }
        }
        ++finished_;
      });
    }
  }
  ~QueryHog() { Join(); }
  // True once every query answered its first block (so it runs and counts on the server).
  bool WaitStarted(std::chrono::milliseconds timeout) {
    return WaitFor([&] { return started_ == threads_.size() || finished_ > 0; }, timeout) &&
           finished_ == 0;
  }
  void Join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  std::string errors() {
    std::lock_guard lock(mutex_);
    return errors_;
  }

 private:
  std::vector<std::thread> threads_;
  std::atomic<size_t> started_{0};
  std::atomic<size_t> finished_{0};
  std::mutex mutex_;
  std::string errors_;
};

// The ClickHouse of these tests allows 3 simultaneous queries per user (its default profile, the
// one rowbridge's and the test's default user have), so that 3 held queries make the next one
// fail with 202.
constexpr int kQueriesPerUser = 3;

void LimitQueriesPerUser(const ScopedClickHouse& ch) {
  const std::filesystem::path users =
      std::filesystem::path(ch.address().servers_dir) / "clickhouse" / "users.xml";
  std::ifstream in(users);
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  const std::string anchor = "<max_memory_usage>4000000000</max_memory_usage>";
  const size_t at = xml.find(anchor);
  ASSERT_NE(at, std::string::npos) << users;
  xml.insert(at + anchor.size(), fmt::format("<max_concurrent_queries_for_user>{}</"
                                             "max_concurrent_queries_for_user>",
                                             kQueriesPerUser));
  const auto loaded_mtime = std::filesystem::last_write_time(users);
  std::ofstream(users, std::ios::trunc) << xml;
  // The server reloads its users file by itself within seconds, when the file's modification time
  // differs from the one it loaded; ClickHouse compares it in whole seconds, so a rewrite within
  // the second the server read the file would go unseen. Move the time on by hand.
  std::filesystem::last_write_time(users, std::max(std::filesystem::last_write_time(users),
                                                   loaded_mtime + std::chrono::seconds(2)));
  ASSERT_TRUE(WaitFor(
      [&] {
        try {
          return Trimmed(ch.Sql("SELECT value FROM system.settings WHERE name = "
                                "'max_concurrent_queries_for_user'")) ==
                 std::to_string(kQueriesPerUser);
        } catch (const Error&) {
          return false;
        }
      },
      60s))
      << "ClickHouse did not take max_concurrent_queries_for_user from " << users;
}

// ---- MySQL: the initial copy and check, on a MariaDB of the tests' own ----

class TransientMysqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ROWBRIDGE_REQUIRE_MYSQL();
    ROWBRIDGE_REQUIRE_CLICKHOUSE();
    ch_ = ClickHouseFromEnv();
    // Few connections (so a test can take them all) and short lock waits (so a held table lock
    // ends a query with 1205 within a second).
    mariadb_ = std::make_unique<ScopedMariaDb>(
        std::vector<std::string>{"--max-connections=12", "--lock-wait-timeout=1"});
    source_db_ = UniqueName("tr_src");
    target_db_ = UniqueName("tr_dst");
    mariadb_->Sql(fmt::format(
        "CREATE DATABASE `{0}`; CREATE TABLE `{0}`.t (id INT PRIMARY KEY, v VARCHAR(20)); "
        "INSERT INTO `{0}`.t SELECT seq, CONCAT('row ', seq) FROM {1};",
        source_db_, SequenceTable(300)));
  }
  void TearDown() override {
    if (!target_db_.empty()) RunClickHouseSql(ch_, "DROP DATABASE IF EXISTS `" + target_db_ + "`");
  }

  PipelineConfig Config(bool snapshot) const {
    PipelineConfig c;
    c.mysql = mariadb_->address();
    c.clickhouse = ch_;
    c.target_database = target_db_;
    c.tables_yaml = "  - match: " + source_db_ + ".t\n    mode: replica\n";
    c.snapshot = snapshot;
    c.writers = 1;
    return c;
  }

  std::string TargetCount() {
    return Trimmed(RunClickHouseSql(
        ch_, fmt::format("SELECT count() FROM `{}`.t FINAL WHERE _is_deleted = 0", target_db_)));
  }

  ClickHouseAddress ch_;
  std::unique_ptr<ScopedMariaDb> mariadb_;
  std::string source_db_;
  std::string target_db_;
};

// Every connection of the source is taken when the copy starts: it meets 1040, waits (with
// backoff, logging each retry), and copies everything once connections are free again.
TEST_F(TransientMysqlTest, CopyRetriesTooManyConnectionsThenCopies) {
  ConnectionHog hog(mariadb_->address());
  ASSERT_EQ(hog.refusal(), 1040);
  TestDir dir("transient_copy_1040");
  RowbridgeProcess rb(dir.path(), Config(true));
  rb.Start();
  const bool retried = WaitFor(
      [&] {
        const std::string log = rb.log();
        return Contains(log, "initial copy: attempt 2 failed with a transient error") &&
               Contains(log, "error 1040");
      },
      60s);
  hog.Release();
  ASSERT_TRUE(retried) << "no second retry of the copy after 1040; log:\n" << rb.log();
  ASSERT_TRUE(rb.running()) << rb.log();
  rb.WaitCaughtUp();
  EXPECT_EQ(TargetCount(), "300");
  EXPECT_EQ(rb.Terminate(), 0);
}

// A permanent error during the copy (access denied) ends `run` at once, without a retry.
TEST_F(TransientMysqlTest, CopyDoesNotRetryAccessDenied) {
  TestDir dir("transient_copy_1045");
  PipelineConfig config = Config(true);
  config.source_user = "rowbridge_nobody";
  config.source_password = "wrong";
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  const int status = rb.Wait(60s);
  EXPECT_NE(status, 0);
  const std::string log = rb.log();
  EXPECT_TRUE(Contains(log, "1045")) << log;
  EXPECT_FALSE(Contains(log, "retrying")) << log;
}

// `check` meets a table locked by another session (1205 after lock_wait_timeout = 1 s): it retries
// the table after a backoff and, once the lock is gone, reports it equal.
TEST_F(TransientMysqlTest, CheckRetriesALockWaitTimeout) {
  TestDir dir("transient_check_1205");
  RowbridgeProcess rb(dir.path(), Config(true));
  rb.Start();
  rb.WaitCaughtUp();
  ASSERT_EQ(TargetCount(), "300");
  ASSERT_EQ(rb.Terminate(), 0);

  std::unique_ptr<mysql::Connection> locker =
      mysql::Connection::Connect(testing::MysqlConnectOptions(mariadb_->address()));
  locker->Execute(fmt::format("LOCK TABLES `{}`.t WRITE", source_db_));
  // The lock is held until `check` has waited on it for longer than lock_wait_timeout, so its
  // first attempt fails with 1205 however slowly the loaded machine starts it (a fixed 4 s was not
  // always enough under ASan).
  std::thread unlock([&] {
    std::unique_ptr<mysql::Connection> watcher =
        mysql::Connection::Connect(testing::MysqlConnectOptions(mariadb_->address()));
    const bool waited = WaitFor(
        [&] {
          const auto n = watcher->QueryValue(
              "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE "
              "'Waiting for table%lock'");
          return n && *n != "0";
        },
        120s);
    if (waited) std::this_thread::sleep_for(3s);
    locker->Execute("UNLOCK TABLES");
  });
  const CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
  unlock.join();
  const std::string text = check.out + check.err;
  EXPECT_EQ(check.exit_code, 0) << text;
  EXPECT_TRUE(Contains(text, "equal")) << text;
  EXPECT_TRUE(Contains(text, "error 1205")) << text;
  EXPECT_TRUE(Contains(text, "attempt 1 failed with a transient error; retrying in")) << text;

  // A permanent error (access denied) is reported without a retry.
  PipelineConfig bad = Config(false);
  bad.source_user = "rowbridge_nobody";
  bad.source_password = "wrong";
  TestDir bad_dir("transient_check_1045");
  RowbridgeProcess bad_rb(bad_dir.path(), bad);
  const auto started = std::chrono::steady_clock::now();
  const CliResult refused = bad_rb.RunCommandLine({"check", "-c", bad_rb.config_path().string()});
  const std::string refused_text = refused.out + refused.err;
  EXPECT_EQ(refused.exit_code, 2) << refused_text;
  EXPECT_TRUE(Contains(refused_text, "1045")) << refused_text;
  EXPECT_FALSE(Contains(refused_text, "retrying")) << refused_text;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
}

// ---- ClickHouse: DDL carried to the target and the state store ----

class TransientClickHouseTest : public PipelineFixture {
 protected:
  TransientClickHouseTest() : PipelineFixture("trch") {}
  void SetUp() override {
    PipelineFixture::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    scoped_ = std::make_unique<ScopedClickHouse>();
    LimitQueriesPerUser(*scoped_);
  }
  std::unique_ptr<ScopedClickHouse> scoped_;
};

// An ALTER arrives while ClickHouse refuses every query of rowbridge's user with 202: the ALTER
// is retried with backoff and applied once the queries are done; the table goes on (before, 202
// was "permanent" to the DDL code, which stopped the table for good).
TEST_F(TransientClickHouseTest, AlterRetriesTooManySimultaneousQueries) {
  RunMysqlSql(mysql_, fmt::format("CREATE DATABASE `{0}`; CREATE TABLE `{0}`.t (id INT PRIMARY "
                                  "KEY, v INT); INSERT INTO `{0}`.t VALUES (1, 10);",
                                  source_db_));
  PipelineConfig config = Config("  - match: " + source_db_ + ".t\n    mode: replica\n");
  config.clickhouse = scoped_->address();
  config.writers = 1;
  config.snapshot = true;
  TestDir dir("transient_alter_202");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp();

  {
    QueryHog hog(scoped_->address(), kQueriesPerUser, 5);
    ASSERT_TRUE(hog.WaitStarted(20s)) << hog.errors();
    RunMysqlSql(mysql_, fmt::format("ALTER TABLE `{0}`.t ADD COLUMN extra INT NOT NULL DEFAULT 7; "
                                    "INSERT INTO `{0}`.t VALUES (2, 20, 8);",
                                    source_db_));
    hog.Join();
    EXPECT_EQ(hog.errors(), "");
  }
  rb.WaitCaughtUp();
  const std::string rows = Trimmed(scoped_->Sql(fmt::format(
      "SELECT id, v, extra FROM `{}`.t FINAL WHERE _is_deleted = 0 ORDER BY id", target_db_)));
  EXPECT_EQ(rows, "1\t10\t7\n2\t20\t8") << rb.log();
  const std::optional<state::Checkpoint> checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_TRUE(checkpoint->stopped_tables.empty()) << rb.log();
  const std::string log = rb.log();
  EXPECT_TRUE(Contains(log, "applying the schema change of " + source_db_ + ".t")) << log;
  EXPECT_TRUE(Contains(log, "Code: 202")) << log;
  EXPECT_EQ(rb.Terminate(), 0);
}

// The state store retries a save refused with 202 and succeeds once the queries are done; a
// readonly user's refusal (permanent) is thrown at once.
TEST_F(TransientClickHouseTest, StateStoreRetriesTooManySimultaneousQueries) {
  const ClickHouseAddress& ch = scoped_->address();
  state::ClickHouseStateStore store(testing::ClickHouseClientOptions(ch), target_db_,
                                    "rowbridge_state", "77");
  store.EnsureTable();
  state::Checkpoint checkpoint;
  checkpoint.file = "mysql-bin.000007";
  checkpoint.position = 4242;
  checkpoint.next_version = 99;
  {
    QueryHog hog(ch, kQueriesPerUser, 3);
    ASSERT_TRUE(hog.WaitStarted(20s)) << hog.errors();
    const auto started = std::chrono::steady_clock::now();
    store.Save(checkpoint);  // refused with 202 until the held queries end
    EXPECT_GT(std::chrono::steady_clock::now() - started, 500ms);
  }
  std::optional<state::Checkpoint> loaded = store.Load();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->position, 4242u);

  clickhouse::ClientOptions readonly = testing::ClickHouseClientOptions(ch);
  readonly.user = ch.readonly_user;
  readonly.password = "";
  state::ClickHouseStateStore refused(readonly, target_db_ + "_ro", "rowbridge_state", "77");
  const auto started = std::chrono::steady_clock::now();
  Error e = ErrorOf([&] { refused.Save(checkpoint); });
  EXPECT_FALSE(e.IsTransient()) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s) << "a permanent error was retried";
}

}  // namespace
}  // namespace rowbridge::testing
