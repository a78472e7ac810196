// Metrics of a real replication: values clamped under the clamp policy are counted per source
// column and rule (rowbridge_values_clamped_total), by the copy and by the stream alike, and a
// column that never clamps has no series.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

class PipelineMetricsTest : public PipelineFixture {
 protected:
  PipelineMetricsTest() : PipelineFixture("rbq") {}
};

TEST_F(PipelineMetricsTest, ClampedValuesAreCountedPerColumnByTheCopyAndTheStream) {
  TestDir dir("pipeline-clamp-metrics");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  // `small` (SMALLINT) goes into an Int8: 1000, -1000 and 300 do not fit; `fits` into an Int16.
  Sql("CREATE TABLE c (id INT PRIMARY KEY, small SMALLINT, fits SMALLINT); "
      "INSERT INTO c VALUES (1, 1000, 1), (2, 5, 2);");
  RunClickHouseSql(ch_, "CREATE DATABASE `" + target_db_ + "`");
  RunClickHouseSql(ch_, "CREATE TABLE " + Target("c") +
                            " (id Int32, small Int8, fits Int16, _version UInt64, _is_deleted "
                            "UInt8) ENGINE = ReplacingMergeTree(_version) ORDER BY id");
  PipelineConfig config = Config(
      fmt::format("  - match: {}.c\n    mode: replica\n    create_table: false\n    conversion:\n"
                  "      on_out_of_range: clamp\n",
                  source_db_));
  config.snapshot = true;
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  rb.WaitCaughtUp();  // copied (one clamp), and streaming

  const std::string series = fmt::format(
      "rowbridge_values_clamped_total{{database=\"{}\",table=\"c\",column=\"small\","
      "rule=\"integer_overflow\"}} ",
      source_db_);
  std::string metrics = rb.HttpGet("/metrics");
  EXPECT_NE(metrics.find(series + "1\n"), std::string::npos) << "the copy's clamp\n" << metrics;

  Sql("INSERT INTO c VALUES (3, -1000, 3), (4, 300, 4), (5, 7, 5);");
  rb.WaitCaughtUp();
  metrics = rb.HttpGet("/metrics");
  EXPECT_NE(metrics.find(series + "3\n"), std::string::npos) << "the stream's two clamps added\n"
                                                             << metrics;
  EXPECT_EQ(metrics.find("column=\"fits\""), std::string::npos) << metrics;
  EXPECT_EQ(Ch("SELECT id, small FROM " + Target("c") + " FINAL ORDER BY id FORMAT CSV"),
            "1,127\n2,5\n3,-128\n4,127\n5,7");
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
