// `rowbridge run` end to end on real servers: a random workload while rowbridge replicates, then
// every replica table (FINAL, not deleted) equals its MariaDB table row for row and every
// changelog table holds each change exactly once — also across kill -9 of rowbridge, ClickHouse
// and MariaDB restarts, binlog rotation and a KILLed dump connection.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "integration/pipeline_workload.h"
#include "mysql/gtid_set.h"
#include "schema/schema_history.h"
#include "state/checkpoint.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineRunTest : public PipelineFixture {
 protected:
  PipelineRunTest() : PipelineFixture("rbp") {}

  // The connection id of the source's binlog dump thread (rowbridge's: the source is a test's
  // own); empty when there is none.
  static std::string DumpThreadId(ScopedMariaDb& source) {
    return Trimmed(source.Sql(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'"));
  }

  // The source's whole GTID state now: MySQL's executed set, MariaDB's binlog position.
  std::string SourceGtidState() {
    return Trimmed(RunMysqlSql(
        mysql_, mysql_.is_mysql() ? "SELECT @@global.gtid_executed" : "SELECT @@gtid_binlog_pos"));
  }

  // A checkpoint's GTID state is absent (resume by file:pos) or holds every transaction of
  // `at_least` (a state of the source at some earlier moment).
  void ExpectWholeGtidStateOrNone(const std::optional<state::Checkpoint>& checkpoint,
                                  const std::string& at_least) {
    ASSERT_TRUE(checkpoint.has_value());
    if (checkpoint->gtid_flavor == state::GtidFlavor::kNone) return;
    if (mysql_.is_mysql()) {
      EXPECT_EQ(Trimmed(RunMysqlSql(
                    mysql_, "SELECT GTID_SUBSET('" + at_least + "', '" + checkpoint->gtid + "')")),
                "1")
          << "checkpoint " << checkpoint->Describe() << " lacks GTIDs of " << at_least;
    } else {
      // Per domain, the checkpoint's sequence number is at least the earlier one.
      const auto earlier = mysql::MariadbGtidPosition::Parse(at_least);
      const auto saved = mysql::MariadbGtidPosition::Parse(checkpoint->gtid);
      for (const mysql::MariadbGtid& g : earlier.gtids()) {
        const auto found = saved.Find(g.domain_id);
        ASSERT_TRUE(found.has_value())
            << "checkpoint " << checkpoint->Describe() << " lacks domain " << g.domain_id;
        EXPECT_GE(found->sequence, g.sequence) << checkpoint->Describe();
      }
    }
  }
};

TEST_F(PipelineRunTest, ReplicaAndChangelogTablesMatchTheSource) {
  TestDir dir("pipeline-basic");
  Workload workload(20240501, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.max_rows = 64;        // the big transaction spans several batches
  config.compression = "lz4";  // the path to a remote server (the default is none on loopback)
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  for (int i = 0; i < 3; ++i) RunMysqlSql(mysql_, workload.Next(40));
  RunMysqlSql(mysql_, workload.BigTransaction(300));
  RunMysqlSql(mysql_, workload.Next(40));
  rb.WaitCaughtUp();
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);

  // A single row in a quiet period reaches ClickHouse within about batch.max_delay (200 ms here;
  // the bound leaves room for a loaded CI machine).
  std::this_thread::sleep_for(1s);
  const auto written = std::chrono::steady_clock::now();
  RunMysqlSql(mysql_, "INSERT INTO `" + source_db_ +
                          "`.items VALUES (999999, 1, 'quiet', 1, NULL, '2020-01-01', NULL)");
  EXPECT_TRUE(WaitFor(
      [&] {
        return Trimmed(RunClickHouseSql(
                   ch_, "SELECT count() FROM `" + target_db_ + "`.items WHERE id = 999999")) == "1";
      },
      5s))
      << "a lone row did not reach ClickHouse within 5 s";
  std::printf("lone row visible in ClickHouse after %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - written)
                                         .count()));

  const std::string metrics = rb.HttpGet("/metrics");
  EXPECT_NE(metrics.find("rowbridge_rows_total{database=\"" + source_db_ +
                         "\",table=\"items\",change=\"insert\"}"),
            std::string::npos)
      << metrics.substr(0, 2000);
  EXPECT_NE(rb.HttpGet("/status").find("\"state\": \"running\""), std::string::npos);

  // SIGTERM: everything flushed, the final checkpoint at the source's end, exit status 0.
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
  const std::string log = rb.log();
  EXPECT_NE(log.find("stopped cleanly at"), std::string::npos) << log;
}

TEST_F(PipelineRunTest, SeedTableReceivesChangesThroughMetaColumns) {
  TestDir dir("pipeline-seed");
  // The seed's MySQL table twice (many-to-one merge) and the seed's own ClickHouse table, as is.
  std::string schema = ReadTestFile("seed/mysql_schema.sql");
  std::string ch_schema = ReadTestFile("seed/clickhouse_schema.sql");
  auto replace_all = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
    return s;
  };
  schema = replace_all(schema, "bifrost_test", source_db_);
  RunMysqlSql(mysql_, schema);
  RunMysqlSql(mysql_, "CREATE TABLE `" + source_db_ + "`.binlog_field_test_2 LIKE `" + source_db_ +
                          "`.binlog_field_test_1");
  RunClickHouseSql(ch_, replace_all(ch_schema, "bifrost_test", target_db_));

  PipelineConfig config = Config("  - match: " + source_db_ +
                                 ".binlog_field_test_*\n"
                                 "    target: " +
                                 target_db_ +
                                 ".binlog_field_test_1\n"
                                 "    mode: changelog\n"
                                 "    create_table: false\n"
                                 "    meta_columns: {event_type: binlog_event_type, version: "
                                 "bifrost_data_version}\n"
                                 "    conversion: {on_out_of_range: clamp}\n");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  std::string sql = "SET NAMES utf8mb4;\n";
  uint64_t changes = 0;
  for (int t = 1; t <= 2; ++t) {
    const int64_t base = t == 1 ? 1 : 1000001;
    for (int i = 0; i < 40; ++i) {
      sql += fmt::format(
          "INSERT INTO `{0}`.binlog_field_test_{1} VALUES ({2}, {3}, {4}, {5}, {6}, {7}, "
          "'varchar {2}', 'c{8}', 'en{9}', 'set1,set3', '{10:02}:{11:02}:05', '2019-0{9}-1{8}', "
          "{12}, '2020-02-0{9} 10:11:12', '2021-03-0{9} 01:02:03', {13}.25, {14}.5, {15}.75, "
          "'text {2}', X'00FF{16:02X}', {17}, {18}, 'mediumblob', 'longblob', 'tinyblob', {19}, "
          "{20}, {21}, {22}, {23});\n",
          source_db_, t, base + i, (i % 256) - 128, i * 100 - 32768, i * 1000 - 8388608,
          i * 100000 - 2147483648LL, i * 1000000000LL - 9223372036854775807LL, i % 10, i % 3 + 1,
          i % 24, i % 60, 1990 + i, i * 3 - 50, i * 7 - 100, i * 11 - 300, i, i * 123456789LL,
          i % 2, i % 256, i * 200, i * 300000, i * 4000000LL,
          static_cast<uint64_t>(i) * 400000000000ULL);
      ++changes;
    }
    sql += fmt::format(
        "UPDATE `{}`.binlog_field_test_{} SET testvarchar = 'changed', testint = "
        "testint + 1 WHERE id < {};\n",
        source_db_, t, base + 10);
    changes += 10;
    sql += fmt::format("DELETE FROM `{}`.binlog_field_test_{} WHERE id >= {};\n", source_db_, t,
                       base + 35);
    changes += 5;
  }
  RunMysqlSql(mysql_, sql);
  rb.WaitCaughtUp();

  const std::vector<ColumnCompare> columns = {{"id"},
                                              {"testtinyint"},
                                              {"testsmallint"},
                                              {"testmediumint"},
                                              {"testint"},
                                              {"testbigint"},
                                              {"testvarchar", Compare::kHex},
                                              {"testchar", Compare::kHex},
                                              {"testenum"},
                                              {"testset"},
                                              {"testtime"},
                                              {"testdate"},
                                              {"testyear"},
                                              {"testtimestamp"},
                                              {"testdatetime"},
                                              {"testfloat", Compare::kRound2},
                                              {"testdouble", Compare::kRound2},
                                              {"testdecimal"},
                                              {"testtext", Compare::kHex},
                                              {"testblob", Compare::kHex},
                                              {"testbit", Compare::kBitNumber},
                                              {"testbool"},
                                              {"testmediumblob", Compare::kHex},
                                              {"testlongblob", Compare::kHex},
                                              {"testtinyblob", Compare::kHex},
                                              {"test_unsinged_tinyint"},
                                              {"test_unsinged_smallint"},
                                              {"test_unsinged_mediumint"},
                                              {"test_unsinged_int"},
                                              {"test_unsinged_bigint"}};
  EXPECT_EQ(ChangelogLatestRows(ch_, target_db_, "binlog_field_test_1", columns, "id",
                                "binlog_event_type", "bifrost_data_version"),
            MysqlRows(mysql_, source_db_, "binlog_field_test_1", columns, "id") +
                MysqlRows(mysql_, source_db_, "binlog_field_test_2", columns, "id"));
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT count(), uniqExact(bifrost_data_version) FROM `" +
                                              target_db_ + "`.binlog_field_test_1")),
            std::to_string(changes) + "\t" + std::to_string(changes));
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT binlog_event_type, count() FROM `" + target_db_ +
                                              "`.binlog_field_test_1 GROUP BY binlog_event_type "
                                              "ORDER BY binlog_event_type")),
            "delete\t10\ninsert\t80\nupdate\t20");
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineRunTest, KillNineAtRandomMomentsLosesAndDuplicatesNothing) {
  TestDir dir("pipeline-kill9");
  Workload workload(777, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.max_rows = 50;
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  std::atomic<bool> writing{true};
  std::string writer_error;
  std::thread writer([&] {
    try {
      for (int chunk = 0; chunk < 16; ++chunk) {
        RunMysqlSql(mysql_, chunk % 5 == 4 ? workload.BigTransaction(200) : workload.Next(25));
        std::this_thread::sleep_for(300ms);
      }
    } catch (const Error& e) {
      writer_error = e.what();
    }
    writing = false;
  });
  std::mt19937 rng(4242);
  int kills = 0;
  while (writing || kills < 4) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(300, 1500)(rng)));
    rb.Kill();
    ++kills;
    rb.Start();
    if (kills >= 10) break;
  }
  writer.join();
  ASSERT_TRUE(writer_error.empty()) << writer_error;
  rb.WaitCaughtUp(120s);
  const std::string log = rb.log();
  size_t replays = 0;
  for (size_t p = log.find("replaying their changes skips them"); p != std::string::npos;
       p = log.find("replaying their changes skips them", p + 1)) {
    ++replays;
  }
  std::printf(
      "rowbridge was killed %d times; %zu restart(s) found rows written after the "
      "checkpoint\n",
      kills, replays);
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  EXPECT_EQ(rb.Terminate(), 0);
}

// A key move writes two rows of one version (the old key's tombstone, then the new row). When a
// batch fills up between them and rowbridge dies after inserting only the first, the replay must
// write the second one only.
TEST_F(PipelineRunTest, KeyMoveSplitOverTwoBatchesIsReplayedOnce) {
  TestDir dir("pipeline-key-move");
  RowbridgeProcess rb(dir.path(), KeyMoveConfig("replica"));
  const std::string before_changes = StartAndKeyMove(rb);
  ASSERT_FALSE(HasFailure());
  const std::string table = Target("t");
  ASSERT_EQ(Ch("SELECT count() FROM " + table), "3");

  // The crash between the two INSERTs: the new row never arrived, the checkpoint is the old one.
  ASSERT_NO_FATAL_FAILURE(DeleteTargetRows("t", "id = 2"));
  ASSERT_EQ(Ch("SELECT count() FROM " + table), "2");
  RestoreCheckpointFile(rb, before_changes);
  rb.Start();
  rb.WaitCaughtUp();
  EXPECT_EQ(Trimmed(RunClickHouseSql(
                ch_, "SELECT groupArray((id, _is_deleted)) FROM (SELECT id, _is_deleted FROM " +
                         table + " ORDER BY _version, id)")),
            "[(1,0),(1,1),(2,0)]")
      << "the replay must add the missing new row and nothing else";
  EXPECT_EQ(Trimmed(RunClickHouseSql(
                ch_, "SELECT groupArray(id) FROM " + table + " FINAL WHERE _is_deleted = 0")),
            "[2]");
  EXPECT_EQ(rb.Terminate(), 0);
}

// Through a Distributed table each shard commits its rows of an INSERT on its own, so a key
// move's new row can be written while its removal is not (the old key's shard failed as the
// INSERT ended). The replay must write the removal and not the new row again, in both modes.
TEST_F(PipelineRunTest, KeyMoveWithOnlyItsNewRowWrittenIsReplayedOnce) {
  for (const std::string mode : {"replica", "changelog"}) {
    SCOPED_TRACE(mode);
    const bool replica = mode == "replica";
    TestDir dir("pipeline-key-move-removal-" + mode);
    if (!replica) {
      RunMysqlSql(mysql_, "DROP DATABASE `" + source_db_ + "`");
      Ch("DROP TABLE IF EXISTS " + Target("t"));
    }
    RowbridgeProcess rb(dir.path(), KeyMoveConfig(mode));
    const std::string before_changes = StartAndKeyMove(rb);
    ASSERT_FALSE(HasFailure());
    const std::string table = Target("t");
    ASSERT_EQ(Ch("SELECT count() FROM " + table), "3");

    ASSERT_NO_FATAL_FAILURE(
        DeleteTargetRows("t", replica ? "_is_deleted = 1" : "_event_type = 'delete'"));
    ASSERT_EQ(Ch("SELECT count() FROM " + table), "2");
    RestoreCheckpointFile(rb, before_changes);
    rb.Start();
    rb.WaitCaughtUp();
    const std::string kind = replica ? "_is_deleted" : "_event_type";
    EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, fmt::format("SELECT groupArray((id, {0})) FROM "
                                                        "(SELECT id, {0} FROM {1} ORDER BY "
                                                        "_version, id)",
                                                        kind, table))),
              replica ? "[(1,0),(1,1),(2,0)]" : "[(1,'insert'),(1,'delete'),(2,'insert')]")
        << "the replay must add the missing removal and nothing else";
    EXPECT_EQ(rb.Terminate(), 0);
  }
}

// snapshot.enabled on a first start: the rows the tables already hold are copied while the
// workload keeps writing, then the stream continues from where the copy ended.
TEST_F(PipelineRunTest, FirstStartCopiesExistingRowsThenStreams) {
  TestDir dir("pipeline-snapshot-first");
  Workload workload(4711, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  for (int i = 0; i < 6; ++i) RunMysqlSql(mysql_, workload.Next(60));
  const std::string gtids_before_copy = SourceGtidState();
  PipelineConfig config = Config("  - match: " + source_db_ + ".items\n    mode: replica\n" +
                                 "  - match: " + source_db_ + ".every_type\n    mode: replica\n" +
                                 "    conversion: {on_out_of_range: clamp}\n");
  config.snapshot = true;
  config.max_rows = 40;
  config.compression = "zstd";
  RowbridgeProcess rb(dir.path(), config);
  std::atomic<bool> writing{true};
  std::string writer_error;
  std::thread writer([&] {
    try {
      for (int i = 0; i < 12; ++i) {
        RunMysqlSql(mysql_, i % 4 == 3 ? workload.BigTransaction(100) : workload.Next(30));
        std::this_thread::sleep_for(150ms);
      }
    } catch (const Error& e) {
      writer_error = e.what();
    }
    writing = false;
  });
  rb.Start();
  writer.join();
  ASSERT_TRUE(writer_error.empty()) << writer_error;
  rb.WaitCaughtUp(120s);
  EXPECT_NE(rb.log().find("initial copy done"), std::string::npos) << rb.log();
  // The copy hands over the columns it read the tables by, valid where it ended, so the stream
  // neither warns of a missing history nor reads information_schema as it is later.
  EXPECT_EQ(rb.log().find("no schema history"), std::string::npos) << rb.log();
  EXPECT_EQ(rb.log().find("columns read from the source's information_schema"), std::string::npos)
      << rb.log();
  {
    const std::optional<state::Checkpoint> copied = rb.SavedCheckpoint();
    ASSERT_TRUE(copied.has_value());
    const schema::SchemaHistory history =
        schema::SchemaHistory::FromJson(copied->schema_history, "the saved checkpoint");
    for (const char* table : {"items", "every_type"}) {
      const schema::SchemaVersion* v =
          history.SchemaAt({source_db_, table}, {copied->file, copied->position});
      ASSERT_NE(v, nullptr) << table << " is not in the checkpoint's schema history";
      EXPECT_EQ(v->state, schema::TableState::kKnown) << table;
      EXPECT_FALSE(v->schema.columns.empty()) << table;
    }
  }
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "every_type", Workload::EveryTypeColumns(), "id"),
            MysqlRows(mysql_, source_db_, "every_type", Workload::EveryTypeColumns(), "id"));
  // The copy hands the stream a position only. A GTID set of just the transactions read since
  // would make a resume by GTID replay all older ones (MySQL sends what the set lacks): the
  // checkpoint either has no GTID state or a whole one.
  ExpectWholeGtidStateOrNone(rb.SavedCheckpoint(), gtids_before_copy);
  // A restart finds the checkpoint and does not copy again.
  EXPECT_EQ(rb.Terminate(), 0);
  const size_t first_run_log = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(30));
  rb.WaitCaughtUp();
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  const std::string log = rb.log().substr(first_run_log);
  EXPECT_EQ(log.find("copying the existing rows"), std::string::npos) << log;
  // The next binlog file states the whole GTID state; from there on the checkpoint has it.
  RunMysqlSql(mysql_, "FLUSH BINARY LOGS");
  RunMysqlSql(mysql_, workload.Next(30));
  // Read before catching up: other tests write to the shared source meanwhile, and the checkpoint
  // only has to hold what was committed before the catch-up's marker.
  const std::string gtids_before_catch_up = SourceGtidState();
  rb.WaitCaughtUp();
  const std::optional<state::Checkpoint> rotated = rb.SavedCheckpoint();
  ASSERT_TRUE(rotated.has_value());
  EXPECT_NE(rotated->gtid_flavor, state::GtidFlavor::kNone) << rotated->Describe();
  ExpectWholeGtidStateOrNone(rotated, gtids_before_catch_up);
  EXPECT_EQ(rb.Terminate(), 0);
  // A resume by that GTID state replays nothing old: the rows stay equal.
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(30));
  rb.WaitCaughtUp();
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(rb.Terminate(), 0);
}

// A session stopped before its first transaction boundary (here: straight after the initial copy,
// on an idle source) still leaves its schema history in the store, so the next session reads old
// rows with the columns of their time, not with information_schema as it is then.
TEST_F(PipelineRunTest, StopBeforeTheFirstTransactionKeepsTheSchemaHistory) {
  TestDir dir("pipeline-stop-before-first-boundary");
  Workload workload(4712, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  RunMysqlSql(mysql_, workload.Next(20));
  PipelineConfig config = Config("  - match: " + source_db_ + ".items\n    mode: replica\n");
  config.snapshot = true;
  RowbridgeProcess rb(dir.path(), config);
  auto wait_for_stream = [&](size_t from) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (rb.log().find("reading the binlog", from) == std::string::npos) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << rb.log();
      std::this_thread::sleep_for(50ms);
    }
  };
  rb.Start();
  wait_for_stream(0);
  EXPECT_EQ(rb.Terminate(), 0);
  const std::optional<state::Checkpoint> saved = rb.SavedCheckpoint();
  ASSERT_TRUE(saved.has_value());
  EXPECT_FALSE(saved->schema_history.empty());
  const size_t first_run_log = rb.log().size();
  rb.Start();
  wait_for_stream(first_run_log);
  const std::string log = rb.log().substr(first_run_log);
  EXPECT_EQ(log.find("has no schema history"), std::string::npos) << log;
  EXPECT_EQ(rb.Terminate(), 0);
}

// A replicated table whose target was dropped in ClickHouse while rowbridge was stopped: the next
// start stops with an error naming the table, its target and the fix, and does not create the
// target again empty (that would lose every row replicated so far without a word).
TEST_F(PipelineRunTest, ATargetDroppedWhileStoppedStopsTheStartNamingIt) {
  TestDir dir("pipeline-target-dropped");
  Workload workload(4713, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  PipelineConfig config = Config("  - match: " + source_db_ + ".items\n    mode: replica\n" +
                                 "  - match: " + source_db_ + ".events\n    mode: changelog\n");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  RunMysqlSql(mysql_, workload.Next(40));
  rb.WaitCaughtUp();
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  RunClickHouseSql(ch_, "DROP TABLE `" + target_db_ + "`.items");
  const size_t before = rb.log().size();
  rb.Start();
  const int status = rb.Wait(60s);
  if (status == -2) rb.Kill();
  const std::string log = rb.log().substr(before);
  EXPECT_NE(status, -2) << "rowbridge kept running without the target; log:\n" << log;
  EXPECT_NE(status, 0) << log;
  EXPECT_NE(
      log.find(source_db_ + ".items: its target table " + target_db_ + ".items does not exist"),
      std::string::npos)
      << log;
  EXPECT_NE(log.find("replicated_tables"), std::string::npos) << log;
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "EXISTS TABLE `" + target_db_ + "`.items")), "0");
}

// Starting over (docs/running.md), as after a purged binlog: the job's state is deleted while the
// source changed unseen, and the next start copies every table into targets that still hold the
// old rows. Rows the source no longer has are deleted, so each target equals its source (replica:
// no stale row under FINAL; changelog: the latest change per key is the source row), then the
// stream goes on.
TEST_F(PipelineRunTest, StartingOverCopiesIntoTheOldTargetsAndMakesThemEqual) {
  TestDir dir("pipeline-start-over");
  Workload workload(4715, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  for (int i = 0; i < 3; ++i) RunMysqlSql(mysql_, workload.Next(40));
  PipelineConfig config = Config("  - match: " + source_db_ + ".items\n    mode: replica\n" +
                                 "  - match: " + source_db_ + ".events\n    mode: changelog\n");
  config.snapshot = true;
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(40));
  rb.WaitCaughtUp(120s);
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  // Changes rowbridge never sees: the binlog they are in counts as lost.
  RunMysqlSql(mysql_, "DELETE FROM `" + source_db_ + "`.items WHERE id % 3 = 0; DELETE FROM `" +
                          source_db_ + "`.events WHERE id % 4 = 1; UPDATE `" + source_db_ +
                          "`.items SET note = 'unseen' WHERE id % 5 = 1;");
  const std::string stale_items = Trimmed(RunClickHouseSql(
      ch_, "SELECT count() FROM `" + target_db_ + "`.items FINAL WHERE _is_deleted = 0"));
  ASSERT_NE(stale_items, "0");
  std::filesystem::remove_all(dir.path() / "state");
  const size_t before = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(40));
  rb.WaitCaughtUp(120s);
  // The copy saves its checkpoint, which WaitCaughtUp may see, a moment before it logs this.
  WaitFor([&] { return rb.log().find("initial copy done", before) != std::string::npos; }, 10s);
  const std::string log = rb.log().substr(before);
  EXPECT_NE(log.find("initial copy done"), std::string::npos) << log;
  EXPECT_NE(log.find("that the source no longer has; deleted them"), std::string::npos) << log;
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(ChangelogLatestRows(ch_, target_db_, "events", Workload::EventsColumns(), "id",
                                "_event_type", "_version"),
            MysqlRows(mysql_, source_db_, "events", Workload::EventsColumns(), "id"));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A checkpoint whose next version is below what a target holds beyond any replay's reach (every
// later change would lose against those rows under FINAL), or near 2^64 (the counter would wrap):
// the start is refused with a message naming the table, both numbers and the fix, and nothing is
// written. The checkpoint as saved (a clean stop) still starts and replicates.
TEST_F(PipelineRunTest, ACheckpointVersionBelowTheTargetOrNearTwoToThe64IsRefused) {
  TestDir dir("pipeline-checkpoint-version");
  Workload workload(4714, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  RunMysqlSql(mysql_, workload.Next(30));
  PipelineConfig config = Config("  - match: " + source_db_ + ".items\n    mode: replica\n");
  config.snapshot = true;  // the copy puts the stream's versions above 2^48
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  // The copy's checkpoint first, then changes the stream writes.
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 120s)) << rb.log();
  RunMysqlSql(mysql_, workload.Next(30));
  rb.WaitCaughtUp(120s);
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const std::string items = "`" + target_db_ + "`.items";
  const std::string max = Trimmed(RunClickHouseSql(ch_, "SELECT max(_version) FROM " + items));
  ASSERT_GE(std::stoull(max), uint64_t{1} << 48) << "the stream wrote nothing";
  const std::string rows = Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM " + items));
  const std::filesystem::path path =
      dir.path() / "state" / ("rowbridge-" + std::to_string(config.server_id) + ".checkpoint.json");
  const std::string original = ReadCheckpointFile(rb);
  const state::Checkpoint saved = state::Checkpoint::FromJson(original, path.string());
  auto write = [&](const std::string& text) { RestoreCheckpointFile(rb, text); };
  for (const uint64_t bad : {uint64_t{1000}, ~uint64_t{0} - 5}) {
    SCOPED_TRACE(bad);
    state::Checkpoint edited = saved;
    edited.next_version = bad;
    write(edited.ToJson());
    RunMysqlSql(mysql_, workload.Next(10));
    const size_t before = rb.log().size();
    rb.Start();
    const int status = rb.Wait(60s);
    if (status == -2) rb.Kill();
    const std::string log = rb.log().substr(before);
    EXPECT_NE(status, -2) << "rowbridge started from the checkpoint; log:\n" << log;
    EXPECT_NE(status, 0) << log;
    if (bad == 1000) {
      EXPECT_NE(log.find(target_db_ + ".items holds version " + max), std::string::npos) << log;
      EXPECT_NE(log.find("says the next change gets version 1000"), std::string::npos) << log;
    } else {
      EXPECT_NE(log.find("is " + std::to_string(bad) + ", at or beyond 2^62"), std::string::npos)
          << log;
    }
    EXPECT_NE(log.find("Starting over"), std::string::npos) << log;
    EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM " + items)), rows)
        << "rows were written from the refused checkpoint";
  }
  write(original);
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(10));
  rb.WaitCaughtUp();
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// With `schema_changes: stop` a DDL that changes a table's columns stops that table only (the
// default for tables rowbridge created is to apply it: pipeline_ddl_test.cpp).
TEST_F(PipelineRunTest, DdlStopsOnlyTheChangedTable) {
  TestDir dir("pipeline-ddl");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; USE `" + source_db_ +
                          "`; CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT "
                          "PRIMARY KEY, v INT);");
  PipelineConfig config =
      Config("  - match: " + source_db_ + ".*\n    mode: replica\n    schema_changes: stop\n");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  RunMysqlSql(mysql_, "USE `" + source_db_ +
                          "`; INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1); "
                          "ALTER TABLE b ADD INDEX iv (v); INSERT INTO b VALUES (2, 2); "
                          "ALTER TABLE a ADD COLUMN w INT FIRST; INSERT INTO a VALUES (5, 2, 2); "
                          "INSERT INTO b VALUES (3, 3);");
  rb.WaitCaughtUp();
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT groupArray(id) FROM (SELECT id FROM `" +
                                              target_db_ + "`.b FINAL ORDER BY id)")),
            "[1,2,3]")
      << "an index change must not stop a table";
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT groupArray(id) FROM (SELECT id FROM `" +
                                              target_db_ + "`.a FINAL ORDER BY id)")),
            "[1]")
      << "rows after an ALTER that changed columns must not be applied";
  const std::string status = rb.HttpGet("/status");
  EXPECT_NE(status.find("stopped: ALTER TABLE"), std::string::npos) << status;
  std::optional<state::Checkpoint> checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  ASSERT_EQ(checkpoint->stopped_tables.size(), 1u);
  EXPECT_EQ(checkpoint->stopped_tables[0].table, "a");
  EXPECT_NE(rb.HttpGet("/metrics").find("rowbridge_stopped_tables 1"), std::string::npos);

  // After a restart the table stays stopped; the other one goes on.
  EXPECT_EQ(rb.Terminate(), 0);
  rb.Start();
  RunMysqlSql(mysql_, "USE `" + source_db_ +
                          "`; INSERT INTO a VALUES (6, 3, 3); INSERT INTO b "
                          "VALUES (4, 4);");
  rb.WaitCaughtUp();
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM `" + target_db_ + "`.a FINAL")),
            "1");
  EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, "SELECT count() FROM `" + target_db_ + "`.b FINAL")),
            "4");
  EXPECT_NE(rb.log().find("stays stopped"), std::string::npos);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineRunTest, ValidateAndRunReportEveryIncompatibleColumnAtOnce) {
  TestDir dir("pipeline-validate");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`; CREATE TABLE `" + source_db_ +
                          "`.t (id INT PRIMARY KEY, d DATE, name VARCHAR(10), extra INT)");
  RunClickHouseSql(ch_, "CREATE DATABASE `" + target_db_ + "`");
  RunClickHouseSql(ch_, "CREATE TABLE `" + target_db_ +
                            "`.t (id Int32, d UUID, name String, _version UInt64, _is_deleted "
                            "UInt8) ENGINE = ReplacingMergeTree(_version) ORDER BY id");
  PipelineConfig config =
      Config("  - match: " + source_db_ + ".t\n    mode: replica\n    create_table: false\n");
  RowbridgeProcess rb(dir.path(), config);  // writes the config file

  CliResult validate = rb.RunCommandLine({"validate", "-c", rb.config_path().string()});
  EXPECT_NE(validate.exit_code, 0);
  const std::string text = validate.out + validate.err;
  EXPECT_NE(text.find(source_db_ + ".t.d"), std::string::npos) << text;
  EXPECT_NE(text.find(source_db_ + ".t.extra"), std::string::npos) << text;
  EXPECT_EQ(text.find(config.source_password), std::string::npos) << "a secret was printed";

  rb.Start();
  const int status = rb.Wait(60s);
  EXPECT_NE(status, 0);
  EXPECT_NE(status, -2) << "rowbridge run kept running with an incompatible target";
  EXPECT_NE(rb.log().find(source_db_ + ".t.extra"), std::string::npos) << rb.log();

  // A source that refuses the login is a problem too, and the password is not printed.
  PipelineConfig bad = config;
  bad.source_user = mysql_.user;
  bad.source_password = "wrong-password-123";
  TestDir bad_dir("pipeline-validate-bad");
  RowbridgeProcess bad_rb(bad_dir.path(), bad);
  CliResult refused = bad_rb.RunCommandLine({"validate", "-c", bad_rb.config_path().string()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ((refused.out + refused.err).find("wrong-password-123"), std::string::npos);
}

TEST_F(PipelineRunTest, KilledDumpConnectionIsDetectedAndResumed) {
  ScopedMariaDb source;
  TestDir dir("pipeline-killdump");
  mysql_ = source.address();
  Workload workload(99, source_db_);
  source.Sql(workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.heartbeat_period = "1s";
  config.read_timeout = "3s";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  source.Sql(workload.Next(30));
  rb.WaitCaughtUp();

  for (int round = 0; round < 2; ++round) {
    const std::string id = DumpThreadId(source);
    ASSERT_FALSE(id.empty()) << "no dump thread on the source";
    const auto killed_at = std::chrono::steady_clock::now();
    source.Sql("KILL " + id);
    // Detected and reconnected: a new dump thread appears (within the heartbeat period plus the
    // reconnect backoff; 10 s leaves room for a loaded machine).
    EXPECT_TRUE(WaitFor(
        [&] {
          const std::string now = DumpThreadId(source);
          return !now.empty() && now != id;
        },
        10s))
        << rb.log();
    std::printf("dump connection back %lld ms after KILL\n",
                static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - killed_at)
                                           .count()));
    source.Sql(workload.Next(20));
  }
  rb.WaitCaughtUp();
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  const std::optional<double> reconnects = rb.Metric("rowbridge_source_reconnects_total");
  ASSERT_TRUE(reconnects.has_value()) << rb.HttpGet("/metrics");
  EXPECT_GE(*reconnects, 2);
  EXPECT_EQ(rb.Terminate(), 0);
}

// rowbridge_buffered_bytes counts what is buffered now: rows held for a long max_delay show, and
// when the session ends (the dump thread is KILLed) the buffers go with it, so while the next
// session waits out its backoff the gauge reads 0, not its last value.
TEST_F(PipelineRunTest, BufferedBytesReadZeroOnceTheSessionsBuffersAreGone) {
  ScopedMariaDb source;
  TestDir dir("pipeline-buffered-gauge");
  mysql_ = source.address();
  Workload workload(31, source_db_);
  source.Sql(workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.max_delay = "1h";
  config.max_rows = 1000000;
  config.reconnect = "{initial_backoff: 30s, max_backoff: 30s}";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  auto buffered = [&] { return rb.Metric("rowbridge_buffered_bytes").value_or(-1); };
  source.Sql(workload.Next(30));
  ASSERT_TRUE(WaitFor([&] { return buffered() > 0; }, 20s)) << rb.HttpGet("/metrics");
  const std::string id = DumpThreadId(source);
  ASSERT_FALSE(id.empty()) << "no dump thread on the source";
  source.Sql("KILL " + id);
  ASSERT_TRUE(WaitFor(
      [&] { return rb.HttpGet("/status").find("reconnecting to source") != std::string::npos; },
      20s))
      << rb.log();
  EXPECT_EQ(buffered(), 0.0) << rb.HttpGet("/status");
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineRunTest, MariaDbRestartAndBinlogRotation) {
  ScopedMariaDb source;
  TestDir dir("pipeline-mariadb-restart");
  mysql_ = source.address();
  Workload workload(1234, source_db_);
  source.Sql(workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.max_rows = 40;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  source.Sql(workload.Next(30));
  source.Sql("FLUSH BINARY LOGS");
  source.Sql(workload.Next(30));
  source.Sql("FLUSH BINARY LOGS");
  source.Stop();
  ASSERT_TRUE(WaitFor(
      [&] { return rb.HttpGet("/status").find("reconnecting to source") != std::string::npos; },
      20s))
      << "/status does not say what it waits for: " << rb.HttpGet("/status");
  source.Start();
  source.Sql(workload.Next(30));
  source.Sql(workload.BigTransaction(150));
  source.Sql("FLUSH BINARY LOGS");
  source.Sql(workload.Next(20));
  rb.WaitCaughtUp(120s);
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  EXPECT_EQ(rb.Terminate(), 0);
}

TEST_F(PipelineRunTest, ClickHouseStoppedAndRestartedMidStream) {
  ScopedClickHouse target;
  TestDir dir("pipeline-ch-restart");
  ch_ = target.address();
  Workload workload(5678, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  PipelineConfig config = Config(WorkloadRules(source_db_));
  config.max_rows = 40;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  RunMysqlSql(mysql_, workload.Next(30));
  target.Stop();
  RunMysqlSql(mysql_, workload.Next(30));
  ASSERT_TRUE(WaitFor(
      [&] { return rb.HttpGet("/status").find("reconnecting to ClickHouse") != std::string::npos; },
      20s))
      << "/status does not say what it waits for: " << rb.HttpGet("/status");
  RunMysqlSql(mysql_, workload.BigTransaction(120));
  target.Start();
  RunMysqlSql(mysql_, workload.Next(30));
  rb.WaitCaughtUp(120s);
  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
