// The shipped monitoring (monitoring/grafana/rowbridge-dashboard.json and
// monitoring/prometheus/rowbridge-alerts.yml) against a real `rowbridge run`: every metric the
// dashboard and the alert rules name must be exported, so neither shows "no data" for a metric
// that does not exist. The run copies a table, streams into it and stops another one, so the
// copy's, the stream's, the stopped table's, a clamped value's and the binlog retention's series
// all exist. (`promtool check rules` checks the rules' syntax: the PrometheusRules test.)
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

// Every rowbridge_* name in a file of the repository.
std::set<std::string> MetricNamesIn(const std::string& relative) {
  std::ifstream in(std::string(ROWBRIDGE_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  EXPECT_FALSE(content.empty()) << relative << " is missing or empty";
  std::set<std::string> names;
  const std::regex pattern("rowbridge_[a-z0-9_]+");
  for (auto it = std::sregex_iterator(content.begin(), content.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    names.insert(it->str());
  }
  return names;
}

class MonitoringTest : public PipelineFixture {
 protected:
  MonitoringTest() : PipelineFixture("rbm") {}
};

TEST_F(MonitoringTest, EveryMetricTheDashboardAndTheAlertsNameIsExported) {
  std::set<std::string> names = MetricNamesIn("monitoring/grafana/rowbridge-dashboard.json");
  const std::set<std::string> rules = MetricNamesIn("monitoring/prometheus/rowbridge-alerts.yml");
  ASSERT_GE(names.size(), 10u);
  ASSERT_GE(rules.size(), 4u);
  names.insert(rules.begin(), rules.end());

  TestDir dir("monitoring-metrics");
  const std::string db = source_db_;
  RunMysqlSql(mysql_, "CREATE DATABASE `" + db + "`; USE `" + db +
                          "`; CREATE TABLE orders (id INT PRIMARY KEY, v INT); "
                          "CREATE TABLE items (id INT PRIMARY KEY, v INT); "
                          "CREATE TABLE clamped (id INT PRIMARY KEY, small SMALLINT); "
                          "INSERT INTO orders VALUES (1, 1), (2, 2), (3, 3); "
                          "INSERT INTO clamped VALUES (1, 1000);");
  // `clamped` goes into an Int8 under the clamp policy: its 1000 is written as 127 and counted.
  RunClickHouseSql(ch_, "CREATE DATABASE `" + target_db_ + "`");
  RunClickHouseSql(ch_, "CREATE TABLE `" + target_db_ +
                            "`.clamped (id Int32, small Int8, _version UInt64, _is_deleted UInt8) "
                            "ENGINE = ReplacingMergeTree(_version) ORDER BY id");
  PipelineConfig config = Config(fmt::format(
      "  - match: {0}.clamped\n    mode: replica\n    create_table: false\n    conversion:\n"
      "      on_out_of_range: clamp\n  - match: {0}.*\n    mode: replica\n",
      db));
  config.snapshot = true;
  // The retention gauges appear with the first measurement: soon.
  config.source_yaml = "  binlog_retention:\n    check_interval: 1s\n";
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  rb.WaitCaughtUp();  // copied, and streaming: what follows is the stream's
  RunMysqlSql(mysql_, "USE `" + db +
                          "`; INSERT INTO orders VALUES (4, 4); INSERT INTO items VALUES (1, 1); "
                          "SET SESSION binlog_format = STATEMENT; UPDATE items SET v = 2; "
                          "SET SESSION binlog_format = ROW;");
  rb.WaitCaughtUp();
  EXPECT_TRUE(WaitFor(
      [&] { return rb.Metric("rowbridge_binlog_retention_checked_timestamp_seconds").has_value(); },
      std::chrono::seconds(30)))
      << rb.log();
  const std::string metrics = rb.HttpGet("/metrics");
  ASSERT_FALSE(metrics.empty()) << rb.log();

  for (const std::string& name : names) {
    // A sample line, not only HELP and TYPE: "name{labels} value" or "name value"; a histogram's
    // name (a text may name the family) has its samples as name_bucket, name_sum and name_count.
    const std::regex sample("(^|\n)" + name + "(_bucket|_sum|_count)?[{ ]");
    EXPECT_TRUE(std::regex_search(metrics, sample))
        << name << " is named by the dashboard or the alerts but not exported";
  }
  // Per-table series carry the source table as {database, table}, the copy's too.
  for (const char* family : {"rowbridge_snapshot_rows_copied", "rowbridge_snapshot_rows_total",
                             "rowbridge_snapshot_rows_estimated", "rowbridge_lag_seconds"}) {
    EXPECT_NE(metrics.find(fmt::format("{}{{database=\"{}\",table=\"orders\"}}", family, db)),
              std::string::npos)
        << family << "\n"
        << metrics;
  }
  EXPECT_NE(metrics.find(fmt::format("rowbridge_snapshot_rows_total{{database=\"{}\",table="
                                     "\"orders\"}} 3\n",
                                     db)),
            std::string::npos)
      << "the copy's rows are counted apart from the stream's\n"
      << metrics;
  EXPECT_NE(
      metrics.find(fmt::format(
          "rowbridge_rows_total{{database=\"{}\",table=\"orders\",change=\"insert\"}} 1\n", db)),
      std::string::npos)
      << metrics;
  EXPECT_NE(
      metrics.find(fmt::format("rowbridge_table_stopped{{database=\"{}\",table=\"items\"}} 1", db)),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(fmt::format("rowbridge_values_clamped_total{{database=\"{}\",table="
                                     "\"clamped\",column=\"small\",rule=\"integer_overflow\"}} 1\n",
                                     db)),
            std::string::npos)
      << metrics;
  EXPECT_EQ(rb.Terminate(), 0);
}

// The source's commit times: MySQL 8 gives each transaction's in microseconds (its GTID event's
// immediate_commit_timestamp), and the last event's time and the lag carry them; MariaDB's binlog
// has whole seconds only (event headers), so there they stay whole.
TEST_F(MonitoringTest, CommitTimesHaveMicrosecondsWhereTheSourceGivesThem) {
  TestDir dir("monitoring-commit-times");
  RunMysqlSql(
      mysql_,
      fmt::format("CREATE DATABASE `{0}`; CREATE TABLE `{0}`.t (id INT PRIMARY KEY)", source_db_));
  RowbridgeProcess rb(dir.path(), Config("  - match: " + source_db_ + ".*\n    mode: replica\n"));
  StartAndWaitForCheckpoint(rb);
  // Several transactions: that all of them commit on a whole second is out of the question.
  for (int i = 1; i <= 5; ++i) {
    RunMysqlSql(mysql_, fmt::format("INSERT INTO `{}`.t VALUES ({})", source_db_, i));
  }
  rb.WaitCaughtUp();
  const std::optional<double> last = rb.Metric("rowbridge_source_last_event_timestamp_seconds");
  ASSERT_TRUE(last.has_value()) << rb.log();
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(*last, now, 60.0);
  if (mysql_.is_mysql()) {
    EXPECT_NE(*last, std::floor(*last)) << "MySQL's commit timestamps have microseconds";
  } else {
    EXPECT_EQ(*last, std::floor(*last)) << "MariaDB's event times are whole seconds";
  }
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
