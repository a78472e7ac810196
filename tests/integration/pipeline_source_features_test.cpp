// `rowbridge run` against a source that uses what users turn on in production and the other
// tests' shared server does not: a time_zone other than UTC, binlog_row_metadata=FULL (so every
// TABLE_MAP below is checked against the schema history), compressed binlogs (MySQL's
// binlog_transaction_compression, MariaDB's log_bin_compress), invisible and generated columns,
// keys in accent- and case-insensitive utf8mb4 collations, partial row images
// (binlog_row_image=MINIMAL/NOBLOB), and, on MySQL, VECTOR columns and tagged GTIDs. Each ends
// with the target equal to the source (and `rowbridge check` agreeing), on every source flavor
// that has the feature.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "integration/pipeline_workload.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineSourceFeatures : public PrivateSourceFixture<PipelineSourceFeatures> {
 public:
  // The suite's own server: the shared one runs in UTC without compression, and other suites
  // running beside this one must not see its settings change.
  static std::vector<std::string> ServerOptions() {
    std::vector<std::string> options = {"--default-time-zone=+05:30", "--binlog-row-metadata=FULL"};
    if (MysqlFromEnv().is_mysql()) {
      options.push_back("--binlog-transaction-compression=ON");
    } else {
      options.push_back("--log-bin-compress=ON");
      options.push_back("--log-bin-compress-min-len=10");
    }
    return options;
  }

 protected:
  PipelineSourceFeatures() : PrivateSourceFixture("rbfeat") {}

  void SetUp() override {
    PrivateSourceFixture::SetUp();
    if (::testing::Test::IsSkipped()) return;
    ASSERT_EQ(Trimmed(RunMysqlSql(mysql_, "SELECT @@global.time_zone")), "+05:30");
  }

  // The test's source database, for the tests without a Workload (whose Schema creates it).
  void CreateSourceDatabase() {
    RunMysqlSql(mysql_, fmt::format("CREATE DATABASE `{}`", source_db_));
  }

  PipelineConfig CopyConfig(const std::string& rules) const {
    PipelineConfig config = Config(rules);
    config.snapshot = true;
    config.file_state = true;
    return config;
  }

  std::string Rows(const std::string& table, const std::vector<ColumnCompare>& columns,
                   const std::string& order_by) {
    return MysqlRows(mysql_, source_db_, table, columns, order_by);
  }
  std::string TargetRows(const std::string& table, const std::vector<ColumnCompare>& columns,
                         const std::string& order_by) {
    return ReplicaRows(ch_, target_db_, table, columns, order_by);
  }

  // `rowbridge check` of the job: exit 0 (every table equal).
  void ExpectCheckEqual(const RowbridgeProcess& rb) {
    const CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  // `more`: further keys of the rule, ", key: value" each.
  std::string Rule(const std::string& table, const std::string& mode = "replica",
                   const std::string& more = "") const {
    return fmt::format("  - {{match: \"{}.{}\", target: \"{}.{}\", mode: {}{}}}\n", source_db_,
                       table, target_db_, table, mode, more);
  }
};

// The workload's every type table (TIMESTAMPs among them) through the stream, every transaction
// compressed in the binlog, on a server whose time_zone is +05:30; a TIMESTAMP table with rows
// before the start through the copy as well.
TEST_F(PipelineSourceFeatures, CompressedBinlogAndANonUtcTimeZoneReplicateExactly) {
  TestDir dir("pipeline-features-compressed");
  Workload workload(20261203, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  Sql("CREATE TABLE tz (id INT PRIMARY KEY, ts TIMESTAMP(3) NULL, dt DATETIME(3) NULL, "
      "d DATE NULL)");
  Sql("INSERT INTO tz VALUES (1, '2026-03-29 01:30:00.125', '2026-03-29 01:30:00.125', "
      "'2026-03-29'), (2, '1999-12-31 23:59:59.999', '1999-12-31 23:59:59.999', '1999-12-31'), "
      "(3, NULL, NULL, NULL)");
  RowbridgeProcess rb(dir.path(), CopyConfig(WorkloadRules(source_db_) + Rule("tz")));
  StartAndWaitForCheckpoint(rb);
  for (int i = 0; i < 4; ++i) RunMysqlSql(mysql_, workload.Next(40));
  RunMysqlSql(mysql_, workload.BigTransaction(300));
  Sql("INSERT INTO tz VALUES (4, '2038-01-19 03:14:07.500', '2100-01-01 00:00:00.001', "
      "'2100-01-01'); UPDATE tz SET ts = '1970-01-01 05:30:01.000' WHERE id = 2");
  rb.WaitCaughtUp();

  ExpectWorkloadReplicated(mysql_, ch_, source_db_, target_db_, workload);
  // MysqlRows reads in UTC, as the target shows TIMESTAMPs; and the instants themselves,
  // whatever time zone either side shows them in.
  const std::vector<ColumnCompare> tz_columns = {
      {"id"}, {"ts", Compare::kSeconds}, {"dt", Compare::kSeconds}, {"d"}};
  EXPECT_EQ(TargetRows("tz", tz_columns, "id"), Rows("tz", tz_columns, "id"));
  EXPECT_EQ(Ch(fmt::format("SELECT id, toUnixTimestamp(ts) FROM {} FINAL WHERE ts IS NOT NULL "
                           "ORDER BY id",
                           Target("tz"))),
            Trimmed(RunMysqlSql(mysql_, fmt::format("SELECT id, UNIX_TIMESTAMP(ts) DIV 1 FROM "
                                                    "`{}`.tz WHERE ts IS NOT NULL ORDER BY id",
                                                    source_db_))));
  // The binlog really was compressed.
  const std::string events = RunMysqlSql(mysql_, "SHOW BINLOG EVENTS");
  EXPECT_NE(events.find(mysql_.is_mysql() ? "Transaction_payload" : "_compressed"),
            std::string::npos)
      << "no compressed event in the binlog";
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// Invisible columns are real columns (SELECT * leaves them out, the binlog does not); generated
// columns, stored or virtual, are replicated with the values the source computed. MariaDB 11 logs
// an UPDATE's images without its generated columns (whatever binlog_row_image says), so there a
// replica table can only leave them out (exclude_columns; docs/type-mapping.md).
TEST_F(PipelineSourceFeatures, InvisibleAndGeneratedColumnsAreCopiedAndStreamed) {
  TestDir dir("pipeline-features-generated");
  const std::string version = Trimmed(RunMysqlSql(mysql_, "SELECT VERSION()"));
  const bool updates_lack_generated = !mysql_.is_mysql() && std::stoi(version) >= 11;
  CreateSourceDatabase();
  Sql("CREATE TABLE g (id INT PRIMARY KEY, a INT NOT NULL, "
      "twice INT AS (a * 2) VIRTUAL, next_one INT AS (a + 1) STORED, "
      "label VARCHAR(20) AS (CONCAT('n', a)) STORED, "
      "hidden INT DEFAULT 9 INVISIBLE, note VARCHAR(10) INVISIBLE)");
  Sql("INSERT INTO g (id, a) VALUES (1, 10), (2, 20); INSERT INTO g (id, a, hidden, note) "
      "VALUES (3, 30, 33, 'three')");
  RowbridgeProcess rb(
      dir.path(),
      CopyConfig(
          Rule("g", "replica",
               updates_lack_generated ? ", exclude_columns: [twice, next_one, label]" : "")));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO g (id, a, hidden) VALUES (4, 40, 44), (5, 50, NULL); "
      "UPDATE g SET a = a + 100 WHERE id IN (1, 4); UPDATE g SET hidden = 7, note = 'seven' "
      "WHERE id = 2; DELETE FROM g WHERE id = 3");
  rb.WaitCaughtUp();
  std::vector<ColumnCompare> columns = {{"id"}, {"a"}, {"hidden"}, {"note"}};
  if (!updates_lack_generated) {
    columns.insert(columns.end(), {{"twice"}, {"next_one"}, {"label"}});
  }
  EXPECT_EQ(TargetRows("g", columns, "id"), Rows("g", columns, "id"));
  EXPECT_EQ(Trimmed(Rows("g", {{"id"}, {"twice"}, {"hidden"}}, "id")),
            "1|220|9\n2|40|7\n4|280|44\n5|100|NULL");
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// Keys in a case- and accent-insensitive collation: the source orders and compares them unlike
// ClickHouse's bytes, and an UPDATE may change a key's bytes without changing it for the source
// ('a' -> 'A'). The target keeps the new bytes only, and check compares chunk by chunk.
TEST_F(PipelineSourceFeatures, KeysInAccentAndCaseInsensitiveCollations) {
  TestDir dir("pipeline-features-collation");
  const bool mysql = mysql_.is_mysql();
  const std::string collation = mysql ? "utf8mb4_0900_ai_ci" : "utf8mb4_uca1400_ai_ci";
  CreateSourceDatabase();
  Sql(
      fmt::format("CREATE TABLE k (name VARCHAR(40) CHARACTER SET utf8mb4 COLLATE {} "
                  "PRIMARY KEY, v INT)",
                  collation));
  std::string values;
  const std::vector<std::string> names = {"a",  "B",  "é",  "Straße", "zz", "Ärger", "😀",
                                          "中", "ÿ1", "_x", "Ω",      "b2", "éa",    "E2"};
  for (size_t i = 0; i < names.size(); ++i) {
    values += fmt::format("{}('{}', {})", i ? ", " : "", names[i], i);
  }
  Sql("INSERT INTO k VALUES " + values);
  // NO PAD collations (MySQL's 0900) keep trailing spaces apart.
  if (mysql) Sql("INSERT INTO k VALUES ('zz ', 100), ('zz  ', 101)");
  PipelineConfig config = CopyConfig(Rule("k"));
  config.max_rows = 3;  // the copy and check in several chunks
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("UPDATE k SET name = 'A' WHERE name = 'a'; UPDATE k SET name = 'e' WHERE name = 'é'; "
      "UPDATE k SET v = v + 1000 WHERE name = 'STRASSE' OR name = 'straße'; "
      "INSERT INTO k VALUES ('c', 50), ('Ç2', 51); DELETE FROM k WHERE name = 'ärger'");
  rb.WaitCaughtUp();
  const std::vector<ColumnCompare> columns = {{"name", Compare::kHex}, {"v"}};
  EXPECT_EQ(TargetRows("k", columns, "v"), Rows("k", columns, "v"));
  EXPECT_EQ(Ch(fmt::format("SELECT count() FROM {} FINAL WHERE name IN ('a', 'é', 'Ärger') AND "
                           "_is_deleted = 0",
                           Target("k"))),
            "0");
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// binlog_row_image=MINIMAL and NOBLOB leave columns out of row images. A changelog records each
// change with the columns the source logged (the others get their defaults), keyed by the row's
// key even when the after image leaves it out; a replica cannot replace a row with part of it, so
// it stops the table with a message naming binlog_row_image.
TEST_F(PipelineSourceFeatures, PartialRowImagesInChangelogAndReplicaModes) {
  TestDir dir("pipeline-features-partial");
  CreateSourceDatabase();
  Sql("CREATE TABLE cl (id INT PRIMARY KEY, a INT, b TEXT, c VARCHAR(10) DEFAULT 'c')");
  Sql("CREATE TABLE rp (id INT PRIMARY KEY, a INT, b TEXT)");
  PipelineConfig config = CopyConfig(Rule("cl", "changelog") + Rule("rp"));
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("SET SESSION binlog_row_image = 'MINIMAL'; INSERT INTO cl VALUES (1, 1, 'one', 'x'); "
      "UPDATE cl SET a = 2 WHERE id = 1; SET SESSION binlog_row_image = 'NOBLOB'; "
      "UPDATE cl SET c = 'y' WHERE id = 1; SET SESSION binlog_row_image = 'MINIMAL'; "
      "DELETE FROM cl WHERE id = 1");
  rb.WaitCaughtUp();
  EXPECT_EQ(
      Ch(fmt::format("SELECT id, _event_type, a, b, c FROM {} ORDER BY _version", Target("cl"))),
      "1\tinsert\t1\tone\tx\n"
      "1\tupdate\t2\t\\N\t\\N\n"
      "1\tupdate\t2\t\\N\ty\n"
      "1\tdelete\t\\N\t\\N\t\\N");

  Sql("INSERT INTO rp VALUES (1, 1, 'one'), (2, 2, 'two'); SET SESSION binlog_row_image = "
      "'MINIMAL'; DELETE FROM rp WHERE id = 2; UPDATE rp SET a = 5 WHERE id = 1");
  ASSERT_TRUE(
      WaitFor([&] { return rb.log().find("stopped replicating") != std::string::npos; }, 60s))
      << rb.log();
  EXPECT_NE(rb.log().find("binlog_row_image"), std::string::npos) << rb.log();
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch(fmt::format("SELECT id, a, b FROM {} FINAL WHERE _is_deleted = 0 ORDER BY id",
                           Target("rp"))),
            "1\t1\tone");
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// MySQL's VECTOR(n) is an Array(Float32) in ClickHouse, through the copy, the stream and check;
// NULL is [] (an Array cannot be Nullable, and no vector is empty).
TEST_F(PipelineSourceFeatures, VectorColumnsBecomeArraysOfFloat32MySqlOnly) {
  if (!mysql_.is_mysql()) GTEST_SKIP() << "VECTOR is MySQL's (run with the mysql source)";
  TestDir dir("pipeline-features-vector");
  CreateSourceDatabase();
  Sql("CREATE TABLE vec (id INT PRIMARY KEY, v VECTOR(3), w VECTOR(2) NOT NULL)");
  Sql("INSERT INTO vec VALUES (1, STRING_TO_VECTOR('[1.5,2,-3.25]'), "
      "STRING_TO_VECTOR('[0,1]')), (2, NULL, STRING_TO_VECTOR('[1e30,-1e-30]'))");
  RowbridgeProcess rb(dir.path(), CopyConfig(Rule("vec")));
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO vec VALUES (3, STRING_TO_VECTOR('[7,8,9]'), STRING_TO_VECTOR('[0.5,0.25]')); "
      "UPDATE vec SET v = STRING_TO_VECTOR('[-1,-2,-3]') WHERE id = 2; "
      "UPDATE vec SET v = NULL WHERE id = 1");
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch(fmt::format("SELECT id, toString(v), toString(w) FROM {} FINAL WHERE "
                           "_is_deleted = 0 ORDER BY id",
                           Target("vec"))),
            "1\t[]\t[0,1]\n2\t[-1,-2,-3]\t[1e30,-1e-30]\n3\t[7,8,9]\t[0.5,0.25]");
  EXPECT_EQ(rb.log().find("stopped replicating"), std::string::npos) << rb.log();
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// MySQL 8.3+ tags GTIDs (SET gtid_next = 'AUTOMATIC:<tag>'): the checkpoint keeps tagged
// intervals, and a restart after kill -9 asks for the binlog with them, neither skipping nor
// repeating a transaction.
TEST_F(PipelineSourceFeatures, TaggedGtidsResumeAfterKillNineMySqlOnly) {
  if (!mysql_.is_mysql()) GTEST_SKIP() << "tagged GTIDs are MySQL's (run with the mysql source)";
  TestDir dir("pipeline-features-tagged");
  CreateSourceDatabase();
  Sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
  // Without the copy: its end position has no GTID state (the stream resumes by file:pos until
  // its first rotation), and the first start here must have one.
  PipelineConfig config = Config(Rule("t", "changelog"));
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  auto insert = [&](int first, int last, const std::string& tag) {
    std::string sql;
    for (int id = first; id <= last; ++id) {
      if (!tag.empty()) sql += fmt::format("SET gtid_next = 'AUTOMATIC:{}'; ", tag);
      sql += fmt::format("INSERT INTO t VALUES ({}, {}); ", id, id * 10);
    }
    Sql(sql);
  };
  insert(1, 20, "orders");
  insert(21, 30, "");
  insert(31, 50, "batch_2");
  rb.WaitCaughtUp();
  const std::optional<state::Checkpoint> saved = rb.SavedCheckpoint();
  ASSERT_TRUE(saved.has_value());
  const std::string gtids = saved->gtid;
  EXPECT_NE(gtids.find(":orders:"), std::string::npos) << gtids;
  EXPECT_NE(gtids.find(":batch_2:"), std::string::npos) << gtids;
  const std::string saved_bytes = ReadCheckpointFile(rb);
  insert(51, 70, "orders");
  rb.WaitCaughtUp();
  rb.Kill();
  // The crash lost the last saves: the restart replays 51..70 from the older checkpoint.
  RestoreCheckpointFile(rb, saved_bytes);
  insert(71, 80, "late");
  rb.Start();
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch(fmt::format("SELECT count(), uniqExact(id), min(id), max(id), sum(v) FROM {}",
                           Target("t"))),
            "80\t80\t1\t80\t32400");
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
