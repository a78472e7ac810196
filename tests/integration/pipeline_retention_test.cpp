// Binlog retention headroom against the real source of each flavor: the gauges `run` exports
// (rowbridge_binlog_retention_*) follow the source's expiry and size settings, and `validate`
// reports the headroom of the saved checkpoint, warns when it is low and fails when the
// checkpoint's file is gone. The expiry is set with SET GLOBAL for the test and restored after;
// it stays at a day or more so that no rotation here purges a file another test still reads.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineRetentionTest : public PipelineFixture {
 protected:
  PipelineRetentionTest() : PipelineFixture("rbr") {}

  // A global variable's value, or nullopt if the server has no such variable.
  std::optional<std::string> Global(const std::string& name) {
    const std::string out =
        Trimmed(RunMysqlSql(mysql_, "SHOW GLOBAL VARIABLES LIKE '" + name + "'"));
    const size_t tab = out.find('\t');
    if (out.empty() || tab == std::string::npos) return std::nullopt;
    return out.substr(tab + 1);
  }
  // Sets a global variable for this test; TearDown puts the old value back.
  void SetGlobal(const std::string& name, const std::string& value) {
    std::optional<std::string> old = Global(name);
    ASSERT_TRUE(old) << name << " does not exist on this server";
    saved_.emplace_back(name, *old);
    RunMysqlSql(mysql_, fmt::format("SET GLOBAL {} = {}", name, value));
  }
  void TearDown() override {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      const bool word =
          !it->second.empty() && !std::isdigit(static_cast<unsigned char>(it->second[0]));
      RunMysqlSql(mysql_, fmt::format("SET GLOBAL {} = {}", it->first,
                                      word ? "'" + it->second + "'" : it->second));
    }
    PipelineFixture::TearDown();
  }

  // SHOW BINARY LOGS as (name, size), oldest first.
  std::vector<std::pair<std::string, uint64_t>> BinaryLogs() {
    std::vector<std::pair<std::string, uint64_t>> files;
    const std::string out = RunMysqlSql(mysql_, "SHOW BINARY LOGS");
    size_t start = 0;
    while (start < out.size()) {
      size_t end = out.find('\n', start);
      if (end == std::string::npos) end = out.size();
      const std::string line = out.substr(start, end - start);
      const size_t tab = line.find('\t');
      if (tab != std::string::npos) {
        files.emplace_back(line.substr(0, tab), std::strtoull(line.c_str() + tab + 1, nullptr, 10));
      }
      start = end + 1;
    }
    return files;
  }

  PipelineConfig RetentionConfig(const std::string& warn_below = "6h") {
    Sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    PipelineConfig config = Config(fmt::format("  - match: {}.*\n    mode: replica\n", source_db_));
    config.file_state = true;
    config.source_yaml =
        "  binlog_retention:\n    check_interval: 1s\n    warn_below: " + warn_below + "\n";
    return config;
  }

  std::vector<std::pair<std::string, std::string>> saved_;
};

// Waits until `name` reads a value `ok` accepts; returns the last value read.
std::optional<double> WaitForMetric(RowbridgeProcess& rb, const std::string& name,
                                    const std::function<bool(double)>& ok) {
  std::optional<double> value;
  WaitFor(
      [&] {
        value = rb.Metric(name);
        return value && ok(*value);
      },
      30s);
  return value;
}

// One test, as the settings are the server's: two tests changing them at once would see each
// other's values.
TEST_F(PipelineRetentionTest, GaugesAndValidateFollowTheSourcesPurgeSettings) {
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  TestDir dir("pipeline-retention-gauges");
  // A warning threshold above the expiry: every headroom is low.
  PipelineConfig config = RetentionConfig("2d");
  // A day: short next to MySQL's 30-day default, and MariaDB's default is never.
  SetGlobal("binlog_expire_logs_seconds", "86400");
  const bool auto_purge = Global("binlog_expire_logs_auto_purge").has_value();
  if (auto_purge) SetGlobal("binlog_expire_logs_auto_purge", "ON");
  const bool size_limit = Global("max_binlog_total_size").has_value();
  uint64_t limit = 0;
  if (size_limit) {
    // Far above what the binlogs hold, so that nothing is purged.
    uint64_t total = 0;
    for (const auto& [name, size] : BinaryLogs()) total += size;
    limit = total + (uint64_t{1} << 30);
    SetGlobal("max_binlog_total_size", std::to_string(limit));
  }

  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t VALUES (1, 1)");
  rb.WaitCaughtUp();

  EXPECT_EQ(WaitForMetric(rb, "rowbridge_binlog_retention_expire_seconds",
                          [](double v) { return v == 86400; }),
            86400)
      << rb.log();
  EXPECT_EQ(rb.Metric("rowbridge_binlog_retention_checkpoint_purged"), 0);
  const std::optional<double> checked =
      rb.Metric("rowbridge_binlog_retention_checked_timestamp_seconds");
  ASSERT_TRUE(checked);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(std::fabs(now - *checked), 30);

  // The checkpoint is in the file being written: at least the expiry, reported as exactly that;
  // or, had the source rotated meanwhile, the expiry less the few seconds since.
  const std::optional<double> seconds = rb.Metric("rowbridge_binlog_retention_headroom_seconds");
  ASSERT_TRUE(seconds) << rb.HttpGet("/metrics");
  EXPECT_LE(*seconds, 86400);
  EXPECT_GE(*seconds, 86400 - 120);

  const std::optional<double> bytes = rb.Metric("rowbridge_binlog_retention_headroom_bytes");
  ASSERT_TRUE(bytes);
  if (size_limit) {
    EXPECT_EQ(rb.Metric("rowbridge_binlog_retention_limit_bytes"), static_cast<double>(limit));
    // The limit less the checkpoint's file and those after it: below the limit by at least the
    // checkpoint's file, above it less everything the source holds.
    uint64_t total = 0;
    for (const auto& [name, size] : BinaryLogs()) total += size;
    EXPECT_LT(*bytes, static_cast<double>(limit));
    EXPECT_GE(*bytes, static_cast<double>(limit) - static_cast<double>(total) - (1 << 20));
  } else {
    EXPECT_TRUE(std::isinf(*bytes) && *bytes > 0) << "no size limit is +Inf: " << *bytes;
    EXPECT_EQ(rb.Metric("rowbridge_binlog_retention_limit_bytes"), 0);
  }

  // No expiry (MariaDB's default; on MySQL also auto purge off): +Inf.
  if (auto_purge) {
    RunMysqlSql(mysql_, "SET GLOBAL binlog_expire_logs_auto_purge = OFF");
  } else {
    RunMysqlSql(mysql_, "SET GLOBAL binlog_expire_logs_seconds = 0");
  }
  const std::optional<double> never = WaitForMetric(
      rb, "rowbridge_binlog_retention_headroom_seconds", [](double v) { return std::isinf(v); });
  ASSERT_TRUE(never);
  EXPECT_TRUE(std::isinf(*never) && *never > 0) << *never;
  EXPECT_EQ(rb.Metric("rowbridge_binlog_retention_expire_seconds"), 0);
  // Measuring never disturbed the stream.
  EXPECT_EQ(rb.Metric("rowbridge_source_reconnects_total").value_or(-1), 0) << rb.log();
  EXPECT_EQ(rb.log().find("binlog retention check on source"), std::string::npos) << rb.log();
  // The current file's headroom (a day) is below 2d, and the log said so.
  EXPECT_NE(rb.log().find("binlog retention of the checkpoint is low"), std::string::npos)
      << rb.log();
  EXPECT_EQ(rb.Terminate(), 0);

  // Validate, with the expiry back at a day.
  RunMysqlSql(mysql_, "SET GLOBAL binlog_expire_logs_seconds = 86400");
  if (auto_purge) RunMysqlSql(mysql_, "SET GLOBAL binlog_expire_logs_auto_purge = ON");

  // The checkpoint's file is no longer the one being written: its headroom runs from the start
  // of the next one.
  const std::optional<state::Checkpoint> checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint);
  RunMysqlSql(mysql_, "FLUSH BINARY LOGS");
  const auto rotated = std::chrono::system_clock::now();
  std::this_thread::sleep_for(2s);
  CliResult validate = rb.RunCommandLine({"validate", "-c", rb.config_path().string()});
  std::string text = validate.out + validate.err;
  EXPECT_EQ(validate.exit_code, 0) << text;
  EXPECT_NE(text.find("binlog file " + checkpoint->file + ": purged by age in "), std::string::npos)
      << text;
  EXPECT_NE(text.find("(binlog_expire_logs_seconds=86400)"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: binlog retention headroom"), std::string::npos) << text;
  // 86400 less the seconds since the rotation: 23h59m (23h5Xm should another test have rotated
  // the binlog in the seconds between our checkpoint and our FLUSH).
  const double since =
      std::chrono::duration<double>(std::chrono::system_clock::now() - rotated).count();
  EXPECT_NE(text.find("purged by age in 23h5"), std::string::npos)
      << text << "(rotated " << since << " s ago)";

  // With a lower threshold the same headroom is no warning.
  PipelineConfig relaxed = config;
  relaxed.source_yaml = "  binlog_retention:\n    warn_below: 1h\n";
  RowbridgeProcess relaxed_rb(dir.path(), relaxed);  // rewrites the config file
  validate = relaxed_rb.RunCommandLine({"validate", "-c", relaxed_rb.config_path().string()});
  text = validate.out + validate.err;
  EXPECT_EQ(validate.exit_code, 0) << text;
  EXPECT_EQ(text.find("warning: binlog retention"), std::string::npos) << text;

  // A checkpoint whose file the source no longer has (as after PURGE BINARY LOGS, which this test
  // does not run: other tests' files would go too): a problem, and the exit status says so.
  std::string saved = ReadCheckpointFile(relaxed_rb);
  const std::string gone = checkpoint->file.substr(0, checkpoint->file.rfind('.') + 1) + "000000";
  for (size_t at = saved.find('"' + checkpoint->file + '"'); at != std::string::npos;
       at = saved.find('"' + checkpoint->file + '"', at + 1)) {
    saved.replace(at + 1, checkpoint->file.size(), gone);
  }
  RestoreCheckpointFile(relaxed_rb, saved);
  validate = relaxed_rb.RunCommandLine({"validate", "-c", relaxed_rb.config_path().string()});
  text = validate.out + validate.err;
  EXPECT_NE(validate.exit_code, 0) << text;
  EXPECT_NE(text.find("its binlog file " + gone + " is no longer on the source"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace rowbridge::testing
