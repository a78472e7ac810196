#include "integration/pipeline_fixture.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace rowbridge::testing {

using namespace std::chrono_literals;

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void PipelineFixture::SetUp() {
  ROWBRIDGE_REQUIRE_MYSQL();
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  mysql_ = MysqlFromEnv();
  ch_ = ClickHouseFromEnv();
  source_db_ = UniqueName(prefix_ + "_src");
  target_db_ = UniqueName(prefix_ + "_dst");
}

void PipelineFixture::TearDown() {
  if (mysql_.port == 0) return;
  try {
    RunMysqlSql(mysql_, "DROP DATABASE IF EXISTS `" + source_db_ + "`");
    RunClickHouseSql(ch_, "DROP DATABASE IF EXISTS `" + target_db_ + "`");
  } catch (const Error&) {
    // Best effort: a server the test stopped on purpose may still be down.
  }
}

PipelineConfig PipelineFixture::Config(const std::string& rules) const {
  PipelineConfig c;
  c.mysql = mysql_;
  c.source_user = mysql_.repl_user;
  c.source_password = mysql_.repl_password;
  c.clickhouse = ch_;
  c.target_database = target_db_;
  c.tables_yaml = rules;
  c.server_id = UniqueServerId();
  return c;
}

void PipelineFixture::StartAndWaitForCheckpoint(RowbridgeProcess& rb) {
  rb.Start();
  // A process that exited (a config error) saves nothing: no need to wait the whole minute.
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value() || !rb.running(); }, 60s) &&
              rb.SavedCheckpoint().has_value())
      << "no checkpoint was saved; log:\n"
      << rb.log();
}

void PipelineFixture::Sql(const std::string& sql) {
  RunMysqlSql(mysql_, "USE `" + source_db_ + "`; " + sql);
}

std::string PipelineFixture::Ch(const std::string& sql) {
  return Trimmed(RunClickHouseSql(ch_, sql));
}

std::string PipelineFixture::Target(const std::string& table) const {
  return "`" + target_db_ + "`.`" + table + "`";
}

namespace {

std::filesystem::path CheckpointFile(const RowbridgeProcess& rb) {
  return rb.dir() / "state" /
         ("rowbridge-" + std::to_string(rb.config().server_id) + ".checkpoint.json");
}

}  // namespace

std::string PipelineFixture::ReadCheckpointFile(const RowbridgeProcess& rb) const {
  std::ifstream in(CheckpointFile(rb), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void PipelineFixture::RestoreCheckpointFile(const RowbridgeProcess& rb,
                                            const std::string& bytes) const {
  std::ofstream out(CheckpointFile(rb), std::ios::binary | std::ios::trunc);
  out << bytes;
}

void PipelineFixture::DeleteTargetRows(const std::string& table, const std::string& condition) {
  RunClickHouseSql(ch_, "ALTER TABLE " + Target(table) + " DELETE WHERE " + condition);
  ASSERT_TRUE(WaitFor(
      [&] {
        return Ch("SELECT count() FROM system.mutations WHERE database = '" + target_db_ +
                  "' AND table = '" + table + "' AND is_done = 0") == "0";
      },
      60s))
      << "the mutation on " << Target(table) << " did not finish";
}

PipelineConfig PipelineFixture::KeyMoveConfig(const std::string& mode) {
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE t (id INT PRIMARY KEY, v INT);");
  PipelineConfig config = Config("  - match: " + source_db_ + ".t\n    mode: " + mode + "\n");
  config.max_rows = 1;  // every row its own batch: the change's two rows go in two INSERTs
  config.file_state = true;
  return config;
}

std::string PipelineFixture::StartAndKeyMove(RowbridgeProcess& rb) {
  StartAndWaitForCheckpoint(rb);
  if (HasFatalFailure()) return {};
  std::string before_changes = ReadCheckpointFile(rb);
  EXPECT_FALSE(before_changes.empty());
  Sql("INSERT INTO t VALUES (1, 10); UPDATE t SET id = 2 WHERE id = 1;");
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.Terminate(), 0);
  return before_changes;
}

}  // namespace rowbridge::testing
