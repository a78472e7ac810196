// Schema changes under `rowbridge run` on real servers: DDL mixed with DML is carried to the
// ClickHouse tables rowbridge created, rows are decoded with the schema of their binlog position
// (also when replaying from a checkpoint taken before several ALTERs that ClickHouse already
// has), and gh-ost's shadow table + atomic RENAME swap is followed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

class PipelineDdlTest : public PipelineFixture {
 protected:
  PipelineDdlTest() : PipelineFixture("rbd") {}

  // The source table's columns, in order.
  std::vector<std::string> SourceColumns(const std::string& table) {
    return Lines(RunMysqlSql(
        mysql_, fmt::format("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE "
                            "TABLE_SCHEMA = '{}' AND TABLE_NAME = '{}' ORDER BY ORDINAL_POSITION",
                            source_db_, table)));
  }
  std::set<std::string> TargetColumns(const std::string& table) {
    auto lines = Lines(RunClickHouseSql(
        ch_, fmt::format("SELECT name FROM system.columns WHERE database = '{}' AND table = '{}'",
                         target_db_, table)));
    return {lines.begin(), lines.end()};
  }

  // Every source column is in the target and the rows are equal (compared as text), once the
  // target's mutations (a column renamed on a server without RENAME COLUMN) are done.
  void ExpectSame(const std::string& table, std::string target_table = "") {
    if (target_table.empty()) target_table = table;
    EXPECT_TRUE(WaitFor(
        [&] {
          return Trimmed(RunClickHouseSql(
                     ch_,
                     "SELECT count() FROM system.mutations WHERE is_done = 0 AND database = '" +
                         target_db_ + "'")) == "0";
        },
        60s));
    const std::vector<std::string> columns = SourceColumns(table);
    ASSERT_FALSE(columns.empty()) << table;
    const std::set<std::string> target = TargetColumns(target_table);
    std::vector<ColumnCompare> compare;
    for (const std::string& c : columns) {
      EXPECT_EQ(target.count(c), 1u) << table << "." << c << " is missing in ClickHouse";
      compare.push_back({c, Compare::kText});
    }
    EXPECT_EQ(ReplicaRows(ch_, target_db_, target_table, compare, "id"),
              MysqlRows(mysql_, source_db_, table, compare, "id"))
        << table;
  }
};

TEST_F(PipelineDdlTest, DdlIsCarriedToTheTargetTablesRowbridgeCreated) {
  TestDir dir("pipeline-ddl-apply");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT);");
  RowbridgeProcess rb(dir.path(), Config("  - match: " + source_db_ + ".*\n    mode: replica\n"));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1); "
      "ALTER TABLE b ADD INDEX iv (v); INSERT INTO b VALUES (2, 2); "
      "ALTER TABLE a ADD COLUMN w INT FIRST; INSERT INTO a VALUES (5, 2, 2); "
      "ALTER TABLE a MODIFY v BIGINT, ADD COLUMN s VARCHAR(20) DEFAULT 'x'; "
      "INSERT INTO a VALUES (6, 3, 3000000000, 'three'); "
      "ALTER TABLE a DROP COLUMN w; INSERT INTO a VALUES (4, 4, 'four'); "
      "ALTER TABLE a CHANGE v v2 BIGINT; INSERT INTO a VALUES (7, 7, 'seven'); "
      "UPDATE a SET s = 'one' WHERE id = 1; "
      "TRUNCATE TABLE b; INSERT INTO b VALUES (10, 10); "
      "CREATE TABLE c (id INT PRIMARY KEY, d DECIMAL(10,2), t VARCHAR(10)); "
      "INSERT INTO c VALUES (1, 1.5, 'c1');");
  rb.WaitCaughtUp();
  ExpectSame("a");
  ExpectSame("b");
  ExpectSame("c");
  EXPECT_EQ(TargetColumns("a").count("w"), 0u) << "a dropped column stays dropped";
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_NE(rb.HttpGet("/metrics").find("rowbridge_stopped_tables 0"), std::string::npos);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A checkpoint taken before several ALTERs of one table, restored after ClickHouse already has
// them (a crash before the next checkpoint): the rows between are decoded with the schema of
// their position and nothing is lost or doubled.
TEST_F(PipelineDdlTest, ReplayFromACheckpointBeforeSeveralAlters) {
  TestDir dir("pipeline-ddl-replay");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10));");
  PipelineConfig config = Config("  - match: " + source_db_ + ".t\n    mode: replica\n");
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t VALUES (1, 1, 'one'), (2, 2, 'two');");
  rb.WaitCaughtUp();
  const std::filesystem::path state =
      dir.path() / "state" / fmt::format("rowbridge-{}.checkpoint.json", config.server_id);
  const std::filesystem::path saved = dir.path() / "old-checkpoint.json";
  std::filesystem::copy_file(state, saved);

  Sql("INSERT INTO t VALUES (3, 3, 'three'); ALTER TABLE t ADD COLUMN c INT AFTER id; "
      "INSERT INTO t VALUES (4, 40, 4, 'four'); ALTER TABLE t DROP COLUMN a; "
      "INSERT INTO t VALUES (5, 50, 'five'); UPDATE t SET c = 30 WHERE id = 3; "
      "ALTER TABLE t MODIFY b VARCHAR(40), ADD COLUMN d INT FIRST; "
      "INSERT INTO t VALUES (6, 6, 60, 'six'); DELETE FROM t WHERE id = 2;");
  rb.WaitCaughtUp();
  ExpectSame("t");
  rb.Kill();

  // Back to the checkpoint before the ALTERs: the binlog is replayed over ClickHouse's new
  // columns.
  std::filesystem::copy_file(saved, state, std::filesystem::copy_options::overwrite_existing);
  rb.Start();
  Sql("INSERT INTO t VALUES (7, 7, 70, 'seven');");
  rb.WaitCaughtUp();
  ExpectSame("t");
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_,
                                     "SELECT count() FROM (SELECT id, _version, count() AS n "
                                     "FROM `" +
                                         target_db_ + "`.t GROUP BY id, _version HAVING n > 1)")),
            "0")
      << "a replayed change must be skipped, not written twice";
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// gh-ost: shadow table, its ALTER, the copy, then RENAME t TO _t_del, _t_gho TO t.
TEST_F(PipelineDdlTest, GhostShadowTableAndAtomicRenameSwap) {
  TestDir dir("pipeline-ddl-ghost");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE t (id INT PRIMARY KEY, v INT, old_col INT);");
  RowbridgeProcess rb(dir.path(), Config("  - match: " + source_db_ + ".t\n    mode: replica\n"));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO t VALUES (1, 1, 1), (2, 2, 2); "
      "CREATE TABLE _t_gho LIKE t; ALTER TABLE _t_gho ADD COLUMN x INT NOT NULL DEFAULT 0, "
      "DROP COLUMN old_col; "
      "INSERT INTO _t_gho (id, v) SELECT id, v FROM t; INSERT INTO t VALUES (3, 3, 3); "
      "INSERT INTO _t_gho (id, v) VALUES (3, 3); "
      "RENAME TABLE t TO _t_del, _t_gho TO t; "
      "INSERT INTO t VALUES (4, 4, 44); UPDATE t SET x = 11 WHERE id = 1; DROP TABLE _t_del;");
  rb.WaitCaughtUp();
  ExpectSame("t");
  EXPECT_EQ(TargetColumns("t").count("old_col"), 0u);
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A random mix of DDL and DML; afterwards every table's rows and columns match the source.
TEST_F(PipelineDdlTest, RandomDdlAndDmlWorkloadEndsEqual) {
  TestDir dir("pipeline-ddl-random");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE t0 (id INT PRIMARY KEY, c0 INT); CREATE TABLE t1 (id INT PRIMARY KEY, c0 "
      "INT);");
  RowbridgeProcess rb(dir.path(), Config("  - match: " + source_db_ + ".*\n    mode: replica\n"));
  StartAndWaitForCheckpoint(rb);

  std::mt19937 rng(20240607);
  struct Table {
    std::string name;
    std::string target;                // a renamed table keeps writing into its old target
    std::vector<std::string> columns;  // besides id
    int next_id = 1;
  };
  std::vector<Table> tables = {{"t0", "t0", {"c0"}}, {"t1", "t1", {"c0"}}};
  int next_column = 1;
  int next_table = 2;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int step = 0; step < 60; ++step) {
    Table& t = tables[pick(tables.size())];
    std::string sql;
    switch (pick(10)) {
      case 0:
        sql = fmt::format("ALTER TABLE {} ADD COLUMN c{} INT DEFAULT {}", t.name, next_column,
                          next_column);
        t.columns.push_back(fmt::format("c{}", next_column++));
        break;
      case 1:
        if (t.columns.size() < 2) continue;
        {
          const size_t i = pick(t.columns.size());
          sql = fmt::format("ALTER TABLE {} DROP COLUMN {}", t.name, t.columns[i]);
          t.columns.erase(t.columns.begin() + static_cast<long>(i));
        }
        break;
      case 2: {
        const size_t i = pick(t.columns.size());
        sql = fmt::format("ALTER TABLE {} MODIFY {} BIGINT", t.name, t.columns[i]);
        break;
      }
      case 3: {
        const size_t i = pick(t.columns.size());
        const std::string renamed = fmt::format("c{}", next_column++);
        sql = fmt::format("ALTER TABLE {} CHANGE {} {} BIGINT", t.name, t.columns[i], renamed);
        t.columns[i] = renamed;
        break;
      }
      case 4: {
        const std::string renamed = fmt::format("t{}", next_table++);
        sql = fmt::format("RENAME TABLE {} TO {}", t.name, renamed);
        t.name = renamed;
        break;
      }
      case 5:
        sql = fmt::format("TRUNCATE TABLE {}", t.name);
        break;
      case 6: {
        const std::string name = fmt::format("t{}", next_table++);
        Table fresh{name, name, {"c0"}};
        sql = fmt::format("CREATE TABLE {} (id INT PRIMARY KEY, c0 INT)", fresh.name);
        tables.push_back(fresh);
        break;
      }
      default: {
        for (int r = 0; r < 3; ++r) {
          std::string values = std::to_string(t.next_id++);
          for (size_t c = 0; c < t.columns.size(); ++c)
            values += ", " + std::to_string(rng() % 1000);
          sql += fmt::format("INSERT INTO {} VALUES ({}); ", t.name, values);
        }
        sql += fmt::format("UPDATE {} SET {} = {} WHERE id % 3 = {}; DELETE FROM {} WHERE id = {}",
                           t.name, t.columns[0], rng() % 1000, rng() % 3, t.name,
                           1 + pick(static_cast<size_t>(t.next_id)));
        break;
      }
    }
    Sql(sql);
  }
  rb.WaitCaughtUp(120s);
  for (const Table& t : tables) ExpectSame(t.name, t.target);
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
