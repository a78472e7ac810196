// Column DEFAULTs under `rowbridge run` on real servers. Rows replicated after a change carry
// their values anyway; what a DEFAULT decides is what ClickHouse reads for the rows a target
// holds from before a column existed there. So the tests look at the target column's DEFAULT in
// system.columns (evaluated by ClickHouse, so they do not depend on how a server version spells
// it) and at rows written before an ADD COLUMN (or before a gh-ost swap whose shadow added one).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

class PipelineDefaultsTest : public PipelineFixture {
 protected:
  PipelineDefaultsTest() : PipelineFixture("rdf") {}

  // The value of the target column's DEFAULT as ClickHouse computes it, or "none".
  std::string TargetDefault(const std::string& table, const std::string& column) {
    const std::string where =
        fmt::format("database = '{}' AND table = '{}' AND name = '{}'", target_db_, table, column);
    const std::string expression =
        Ch("SELECT default_expression FROM system.columns WHERE " + where + " FORMAT TSVRaw");
    if (expression.empty()) return "none";
    EXPECT_EQ("DEFAULT", Ch("SELECT default_kind FROM system.columns WHERE " + where));
    return Ch("SELECT toString(" + expression + ") FORMAT TSVRaw");
  }

  // Creates the source database with `create_table` in it; a config replicating its table t.
  PipelineConfig ConfigForTableT(const std::string& create_table) {
    RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
    Sql(create_table);
    return Config("  - match: " + source_db_ + ".t\n    mode: replica\n");
  }

  // The rows of `table` in the target and in the source agree on `columns` (as text).
  void ExpectRowsEqual(const std::string& table, const std::vector<std::string>& columns) {
    std::vector<ColumnCompare> compare;
    for (const std::string& c : columns) compare.push_back({c, Compare::kText});
    EXPECT_EQ(ReplicaRows(ch_, target_db_, table, compare, "id"),
              MysqlRows(mysql_, source_db_, table, compare, "id"))
        << table;
  }
};

TEST_F(PipelineDefaultsTest, DefaultChangesFollowToTheTargetColumn) {
  TestDir dir("pipeline-defaults-follow");
  // Known from information_schema at the start (MariaDB and MySQL write it differently).
  RowbridgeProcess rb(dir.path(),
                      ConfigForTableT("CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL DEFAULT "
                                      "1, b VARCHAR(10) DEFAULT 'x', "
                                      "c INT DEFAULT 3, p DECIMAL(6,2) NOT NULL DEFAULT 1.5)"));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t (id) VALUES (1), (2)");
  rb.WaitCaughtUp();

  // The rows the target holds read the added column's default, as the source's do.
  Sql("ALTER TABLE t ADD COLUMN w INT NOT NULL DEFAULT 5, ADD COLUMN s VARCHAR(20) NOT NULL "
      "DEFAULT 'it''s \\\\ here'");
  rb.WaitCaughtUp();
  EXPECT_EQ("5", TargetDefault("t", "w"));
  EXPECT_EQ("it's \\ here", TargetDefault("t", "s"));
  // (s has a quote, which ClickHouse's and MySQL's text escape differently: read on its own.)
  ExpectRowsEqual("t", {"id", "a", "b", "c", "p", "w"});
  EXPECT_EQ("it's \\ here",
            Ch(fmt::format("SELECT s FROM {} FINAL WHERE id = 1 FORMAT TSVRaw", Target("t"))));

  Sql("ALTER TABLE t MODIFY a INT NOT NULL DEFAULT 9");
  Sql("ALTER TABLE t CHANGE b b2 VARCHAR(10) DEFAULT 'y'");
  Sql("ALTER TABLE t ALTER COLUMN c SET DEFAULT 4, ALTER COLUMN p SET DEFAULT 2.25");
  // The rows from before the ADD keep 5 when the default goes away or changes: ClickHouse is
  // given their values before its DEFAULT changes.
  Sql("ALTER TABLE t ALTER COLUMN w DROP DEFAULT");
  rb.WaitCaughtUp();
  EXPECT_EQ("9", TargetDefault("t", "a"));
  EXPECT_EQ("y", TargetDefault("t", "b2"));
  EXPECT_EQ("4", TargetDefault("t", "c"));
  EXPECT_EQ("2.25", TargetDefault("t", "p"));
  EXPECT_EQ("none", TargetDefault("t", "w"));
  Sql("ALTER TABLE t ALTER COLUMN w SET DEFAULT 6; INSERT INTO t (id, b2) VALUES (3, 'z')");
  rb.WaitCaughtUp();
  EXPECT_EQ("6", TargetDefault("t", "w"));
  ExpectRowsEqual("t", {"id", "a", "b2", "c", "p", "w"});
  EXPECT_EQ("5", Ch(fmt::format("SELECT w FROM {} FINAL WHERE id = 1", Target("t"))));
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.log().find("is not carried"), std::string::npos) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// gh-ost's swap with a rule that matches only t: the shadow's ADD COLUMN reaches the target at
// the RENAME, with its default, which the rows copied before read.
TEST_F(PipelineDefaultsTest, GhostSwapAddsTheShadowsDefault) {
  TestDir dir("pipeline-defaults-ghost");
  RowbridgeProcess rb(dir.path(), ConfigForTableT("CREATE TABLE t (id INT PRIMARY KEY, v INT)"));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t VALUES (1, 1), (2, 2); "
      "CREATE TABLE _t_gho LIKE t; ALTER TABLE _t_gho ADD COLUMN w INT NOT NULL DEFAULT 5; "
      "INSERT INTO _t_gho (id, v) SELECT id, v FROM t; "
      "RENAME TABLE t TO _t_del, _t_gho TO t; "
      "INSERT INTO t VALUES (3, 3, 7); DROP TABLE _t_del;");
  rb.WaitCaughtUp();
  EXPECT_EQ("5", TargetDefault("t", "w"));
  ExpectRowsEqual("t", {"id", "v", "w"});
  EXPECT_EQ("5", Ch(fmt::format("SELECT w FROM {} FINAL WHERE id = 1", Target("t"))));
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// An expression default is not carried: a warning names it, a counter counts it, and the table
// keeps replicating. (MySQL refuses a non-deterministic default for a column added to a table
// with rows, so uuid() comes with a later SET DEFAULT.)
TEST_F(PipelineDefaultsTest, ExpressionDefaultIsReportedAndTheTableGoesOn) {
  TestDir dir("pipeline-defaults-expression");
  RowbridgeProcess rb(dir.path(), ConfigForTableT("CREATE TABLE t (id INT PRIMARY KEY, v INT)"));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t VALUES (1, 1)");
  Sql("ALTER TABLE t ADD COLUMN u VARCHAR(36) DEFAULT (concat('a', 'b'))");
  Sql("ALTER TABLE t ALTER COLUMN u SET DEFAULT (uuid())");
  Sql("INSERT INTO t (id, v) VALUES (2, 2)");
  rb.WaitCaughtUp();
  for (const char* shown : {"(concat('a', 'b'))", "(uuid())"}) {
    EXPECT_NE(rb.log().find(fmt::format("{}.t: the DEFAULT {} of column u is not carried",
                                        source_db_, shown)),
              std::string::npos)
        << shown << "\n"
        << rb.log();
  }
  EXPECT_NE(rb.log().find("it is an expression"), std::string::npos) << rb.log();
  EXPECT_NE(rb.HttpGet("/metrics")
                .find(fmt::format("rowbridge_defaults_not_carried_total{{database=\"{}\",table="
                                  "\"t\",column=\"u\"}} 2",
                                  source_db_)),
            std::string::npos);
  EXPECT_EQ("none", TargetDefault("t", "u"));
  // Row 1 got the value the source computed, which no row event carried: the target reads NULL.
  ExpectRowsEqual("t", {"id", "v"});
  EXPECT_EQ("\\N", Ch(fmt::format("SELECT u FROM {} FINAL WHERE id = 1", Target("t"))));
  EXPECT_EQ(
      Trimmed(RunMysqlSql(mysql_, fmt::format("SELECT u FROM `{}`.t WHERE id = 2", source_db_))),
      Ch(fmt::format("SELECT u FROM {} FINAL WHERE id = 2", Target("t"))));
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
