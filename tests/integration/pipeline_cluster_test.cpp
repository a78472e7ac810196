// `rowbridge run` into a ClickHouse cluster (target.cluster) on real servers: three
// clickhouse-server 18.16 nodes and a ZooKeeper (SharedCluster: shard 1 = node1, shard 2 = node2
// + node3), one cluster per test process or the one scripts/test.sh starts for the whole run. The
// tables are Replicated local tables plus a Distributed table; rowbridge talks to one node
// (target.host). Covered: the randomized workload (replica and changelog tables) copied and
// streamed through a kill -9 of rowbridge and a restart of a replica of the two-replica shard;
// ALTERs during writes (ADD, DROP, MODIFY, RENAME COLUMN) with no table stopped; the checkpoint
// surviving the loss of the node rowbridge wrote through; `rowbridge check` equal on the
// Distributed tables; the final rows (FINAL over the Distributed table) equal to the source's.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "integration/pipeline_workload.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineClusterTest : public PipelineFixture {
 protected:
  PipelineClusterTest() : PipelineFixture("rbcl") {}

  void SetUp() override {
    PipelineFixture::SetUp();
    if (::testing::Test::IsSkipped() || ::testing::Test::HasFailure()) return;
    try {
      cluster_ = &SharedCluster();
    } catch (const Error& e) {
      GTEST_FAIL() << "the ClickHouse cluster did not start: " << e.what();
    }
    ch_ = cluster_->node(0);
  }

  void TearDown() override {
    if (cluster_ != nullptr) {
      try {
        cluster_->Start();  // a node a test stopped
        for (size_t n = 0; n < cluster_->size(); ++n) cluster_->Sql(n, "SYSTEM START FETCHES");
        cluster_->Sql(0, fmt::format("DROP DATABASE IF EXISTS `{}` ON CLUSTER `{}`", target_db_,
                                     cluster_->name()));
      } catch (const Error&) {
        // Best effort: the next test process starts any node that does not run.
      }
    }
    PipelineFixture::TearDown();
  }

  PipelineConfig ClusterConfig(const std::string& rules) const {
    PipelineConfig c = Config(rules);
    c.target_yaml = "  cluster: " + cluster_->name() + "\n";
    return c;
  }

  // Every replica has fetched what its shard holds (SYSTEM SYNC REPLICA on every node), so that a
  // read through the Distributed table sees the same rows whichever replica it picks.
  void SyncReplicas() {
    for (size_t n = 0; n < cluster_->size(); ++n) {
      const std::string tables = Trimmed(cluster_->Sql(
          n, fmt::format("SELECT name FROM system.tables WHERE database = '{}' AND engine LIKE "
                         "'Replicated%'",
                         target_db_)));
      size_t start = 0;
      while (start < tables.size()) {
        size_t end = tables.find('\n', start);
        if (end == std::string::npos) end = tables.size();
        cluster_->Sql(n, fmt::format("SYSTEM SYNC REPLICA `{}`.`{}`", target_db_,
                                     tables.substr(start, end - start)));
        start = end + 1;
      }
    }
  }

  // `rowbridge check` of the job: exit 0 (every table equal).
  static void ExpectCheckEqual(const RowbridgeProcess& rb) {
    const CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  // The two replicas of shard 2 hold the same rows (keys and versions) of `table`.
  void ExpectReplicasEqual(const std::string& table) {
    const std::string sql = fmt::format(
        "SELECT count(), sum(cityHash64(id, _version)) FROM `{}`.`{}_local`", target_db_, table);
    EXPECT_EQ(cluster_->Sql(1, sql), cluster_->Sql(2, sql)) << table;
  }

  ScopedCluster* cluster_ = nullptr;
};

// Writes into the source from a thread of its own until stopped: write(0), write(1), ...,
// `pause` apart.
class Writer {
 public:
  Writer(std::function<void(int)> write, std::chrono::milliseconds pause) {
    thread_ = std::thread([this, write = std::move(write), pause] {
      try {
        for (int i = 0; running_; ++i) {
          write(i);
          std::this_thread::sleep_for(pause);
        }
      } catch (const Error& e) {
        error_ = e.what();
      }
    });
  }
  ~Writer() { Stop(); }
  // Stops writing and returns what failed ("" if nothing).
  std::string Stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
    return error_;
  }

 private:
  std::atomic<bool> running_{true};
  std::string error_;
  std::thread thread_;
};

// Rows copied on the first start, then streamed while rowbridge is killed (-9) and restarted and
// while the replica of shard 2 that the Distributed table writes to is stopped and started again:
// the shard's other replica takes the rows meanwhile, nothing is lost or written twice, the
// replicas agree and `rowbridge check` finds every table equal. Neither replica of shard 2
// fetches (SYSTEM STOP FETCHES) from before the kill until the end, and the stopped replica is
// the only one with the rows written after the checkpoint while rowbridge starts again: the
// replay still skips every change already written (the changelog table shows any written
// twice), as it waits for that replica to read its versions.
TEST_F(PipelineClusterTest, WorkloadThroughAKillNineAndAReplicaRestart) {
  TestDir dir("pipeline-cluster-workload");
  Workload workload(20261203, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  RunMysqlSql(mysql_, workload.Next(40));
  // The changelog holds a row per copied row, then one per streamed change.
  const uint64_t copied_events = std::stoull(
      Trimmed(RunMysqlSql(mysql_, fmt::format("SELECT COUNT(*) FROM `{}`.events", source_db_))));
  PipelineConfig config = ClusterConfig(WorkloadRules(source_db_));
  config.snapshot = true;
  config.max_rows = 64;
  config.checkpoint_interval = "5s";  // seconds of changes written after the checkpoint at the kill
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp(120s);
  const uint64_t events_before = workload.changes("events");

  Writer writer(
      [&](int i) {
        RunMysqlSql(mysql_, i % 5 == 4 ? workload.BigTransaction(80) : workload.Next(15));
      },
      100ms);
  // Neither replica of shard 2 fetches from here on, so the rows written after the checkpoint
  // are on the replica the Distributed table writes to (18.16 picks one; node3 here) only; that
  // replica is down while rowbridge resumes after the kill. A read through the Distributed table
  // would then find those versions on neither node it can reach, and the replay would write them
  // again; rowbridge waits for the replica instead.
  auto set_fetches = [&](const char* action) {
    for (size_t n : {size_t{1}, size_t{2}})
      for (const char* table : {"items", "events", "every_type"})
        cluster_->Sql(n,
                      fmt::format("SYSTEM {} FETCHES `{}`.`{}_local`", action, target_db_, table));
  };
  set_fetches("STOP");
  std::this_thread::sleep_for(2s);
  rb.Kill();
  const std::string count = fmt::format("SELECT count() FROM `{}`.`events_local`", target_db_);
  const size_t writer_node =
      std::stoull(Trimmed(cluster_->Sql(1, count))) > std::stoull(Trimmed(cluster_->Sql(2, count)))
          ? 1
          : 2;
  cluster_->StopNode(writer_node);
  rb.Start();
  std::this_thread::sleep_for(3s);
  cluster_->Start();
  std::this_thread::sleep_for(2s);
  ASSERT_EQ(writer.Stop(), "");
  rb.WaitCaughtUp(180s);
  set_fetches("START");

  SyncReplicas();
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "items", Workload::ItemsColumns(), "id"),
            MysqlRows(mysql_, source_db_, "items", Workload::ItemsColumns(), "id"));
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "every_type", Workload::EveryTypeColumns(), "id"),
            MysqlRows(mysql_, source_db_, "every_type", Workload::EveryTypeColumns(), "id"));
  EXPECT_EQ(
      Trimmed(RunClickHouseSql(ch_, fmt::format("SELECT count() FROM `{}`.events", target_db_))),
      std::to_string(copied_events + workload.changes("events") - events_before))
      << "the changelog holds each copied row and each streamed change once";
  EXPECT_EQ(ChangelogLatestRows(ch_, target_db_, "events", Workload::EventsColumns(), "id",
                                "_event_type", "_version"),
            MysqlRows(mysql_, source_db_, "events", Workload::EventsColumns(), "id"));
  for (const char* table : {"items", "events", "every_type"}) {
    EXPECT_EQ(Trimmed(RunClickHouseSql(
                  ch_, fmt::format("SELECT count() FROM (SELECT id, _version, count() AS n FROM "
                                   "`{}`.`{}` GROUP BY id, _version HAVING n > 1)",
                                   target_db_, table))),
              "0")
        << table << ": a replayed change must be skipped, not written twice";
  }
  for (const char* table : {"items", "events", "every_type"}) ExpectReplicasEqual(table);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// The columns the ALTERs below leave, among those they touch.
constexpr const char* kAlteredColumns =
    "d2 Nullable(Int32),t Nullable(String),v Nullable(Int64),w Nullable(Int32)";

// ALTERs of a replica and a changelog table while rows are written: each reaches the local tables
// on every node and the Distributed tables, no table stops, and the rows end equal.
TEST_F(PipelineClusterTest, AltersDuringWritesStopNoTable) {
  TestDir dir("pipeline-cluster-alter");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE r (id INT PRIMARY KEY, v INT, s VARCHAR(20), d INT); "
      "CREATE TABLE c (id INT PRIMARY KEY, v INT, s VARCHAR(20), d INT);");
  PipelineConfig config = ClusterConfig("  - match: " + source_db_ + ".r\n    mode: replica\n" +
                                        "  - match: " + source_db_ + ".c\n    mode: changelog\n");
  config.max_rows = 20;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  // Names only the key and v, which every ALTER below leaves.
  Writer writer(
      [&](int i) {
        Sql(
            fmt::format("INSERT INTO r (id, v) VALUES ({0}, {0}); INSERT INTO c (id, v) VALUES "
                        "({0}, {0}); UPDATE r SET v = v + 1 WHERE id = {1}; UPDATE c SET v = v + 1 "
                        "WHERE id = {1}; DELETE FROM r WHERE id = {2}",
                        i + 1, (i + 2) / 2, i - 4));
      },
      30ms);
  for (const char* alter : {"ADD COLUMN w INT DEFAULT 7", "MODIFY v BIGINT", "DROP COLUMN s",
                            "CHANGE d d2 INT", "ADD COLUMN t VARCHAR(10) DEFAULT 'x' AFTER id"}) {
    std::this_thread::sleep_for(700ms);
    Sql(fmt::format("ALTER TABLE r {0}; ALTER TABLE c {0};", alter));
  }
  std::this_thread::sleep_for(700ms);
  ASSERT_EQ(writer.Stop(), "");
  Sql("UPDATE r SET d2 = id WHERE id % 3 = 0; UPDATE c SET d2 = id WHERE id % 3 = 0;");
  rb.WaitCaughtUp(120s);
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log();

  // Every node: both the local and the Distributed table have the source's columns (names among
  // the ALTERs', with v's type).
  for (size_t n = 0; n < cluster_->size(); ++n) {
    EXPECT_EQ(cluster_->Sql(
                  n, fmt::format("SELECT table, arrayStringConcat(groupArray(concat(name, ' ', "
                                 "type)), ',') FROM (SELECT table, name, type FROM system.columns "
                                 "WHERE database = '{}' AND table IN ('r', 'r_local', 'c', "
                                 "'c_local') AND name IN ('t', 'v', 's', 'd2', 'w') ORDER BY "
                                 "table, name) GROUP BY table ORDER BY table",
                                 target_db_)),
              "c\t" + std::string(kAlteredColumns) + "\nc_local\t" + kAlteredColumns + "\nr\t" +
                  kAlteredColumns + "\nr_local\t" + kAlteredColumns + "\n")
        << "node " << n + 1;
  }
  SyncReplicas();
  // Every mutation reached every part on every node: no active part older than an unfinished
  // mutation (by block number) that it has not changed, no entry left in a replication queue.
  // Not is_done alone: 18.16 can leave a replica's mutation at parts_to_do = 1 for good after a
  // merge's commit raced an ALTER, its parts all mutated and its queue empty (MySQL 9.7 CI run).
  auto unfinished = [&] {
    std::string out;
    for (size_t n = 0; n < cluster_->size(); ++n) {
      const std::string parts = Trimmed(cluster_->Sql(
          n, fmt::format("SELECT table, name, mutation_id, command FROM (SELECT table, name, "
                         "partition_id, min_block_number, data_version FROM system.parts WHERE "
                         "database = '{0}' AND active) ALL INNER JOIN (SELECT table, mutation_id, "
                         "command, mutation_partition, mutation_number FROM system.mutations ARRAY "
                         "JOIN block_numbers.partition_id AS mutation_partition, "
                         "block_numbers.number AS mutation_number WHERE database = '{0}' AND "
                         "is_done = 0) USING table WHERE mutation_partition = partition_id AND "
                         "min_block_number < mutation_number AND data_version < mutation_number",
                         target_db_)));
      const std::string queue = Trimmed(
          cluster_->Sql(n, fmt::format("SELECT table, type, new_part_name, last_exception FROM "
                                       "system.replication_queue WHERE database = '{}'",
                                       target_db_)));
      if (!parts.empty()) out += fmt::format("node {}: parts not mutated yet:\n{}\n", n + 1, parts);
      if (!queue.empty()) out += fmt::format("node {}: replication queue:\n{}\n", n + 1, queue);
    }
    return out;
  };
  EXPECT_TRUE(WaitFor([&] { return unfinished().empty(); }, 60s))
      << unfinished() << "rowbridge's log:\n"
      << rb.log();
  const std::vector<ColumnCompare> columns = {{"id"}, {"t"}, {"v"}, {"d2"}, {"w"}};
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "r", columns, "id"),
            MysqlRows(mysql_, source_db_, "r", columns, "id"));
  EXPECT_EQ(ChangelogLatestRows(ch_, target_db_, "c", columns, "id", "_event_type", "_version"),
            MysqlRows(mysql_, source_db_, "c", columns, "id"));
  ExpectReplicasEqual("r");
  ExpectReplicasEqual("c");
  // The order: a dropped column left every Distributed table before the local tables, an added
  // one reached the local tables first.
  const std::string log = rb.log();
  auto at = [&](const std::string& line) {
    const size_t found = log.find(line);
    EXPECT_NE(found, std::string::npos) << line << "\n" << log;
    return found;
  };
  const std::string on_cluster =
      fmt::format("ALTER TABLE `{}`.`r_local` ON CLUSTER `{}` ", target_db_, cluster_->name());
  const size_t drop_data = at(on_cluster + "DROP COLUMN `s`");
  const size_t add_data = at(on_cluster + "ADD COLUMN `w`");
  for (size_t n = 0; n < cluster_->size(); ++n) {
    const std::string on_host =
        fmt::format("on 127.0.0.1:{}: ALTER TABLE `{}`.`r` ", cluster_->node(n).port, target_db_);
    EXPECT_LT(at(on_host + "DROP COLUMN `s`"), drop_data) << "node " << n + 1;
    EXPECT_GT(at(on_host + "ADD COLUMN `w`"), add_data) << "node " << n + 1;
  }
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// rowbridge writes through node2; node2 is then lost (killed, not restarted). The state table is
// replicated on every node, so rowbridge pointed at node3 resumes from the last checkpoint:
// nothing is lost and no change is written twice.
TEST_F(PipelineClusterTest, TheCheckpointSurvivesTheLossOfTheTargetHost) {
  TestDir dir("pipeline-cluster-state");
  Workload workload(7301, source_db_);
  RunMysqlSql(mysql_, workload.Schema());
  PipelineConfig config = ClusterConfig(WorkloadRules(source_db_));
  config.clickhouse = cluster_->node(1);
  config.max_rows = 64;
  std::filesystem::create_directories(dir.path() / "node2");
  std::filesystem::create_directories(dir.path() / "node3");
  {
    RowbridgeProcess rb(dir.path() / "node2", config);
    StartAndWaitForCheckpoint(rb);
    for (int i = 0; i < 3; ++i) RunMysqlSql(mysql_, workload.Next(30));
    rb.WaitCaughtUp(120s);
    rb.Kill();  // its last checkpoint is what it saved, not a final one
  }
  const std::string job = std::to_string(config.server_id);
  const std::string state_sql = fmt::format(
      "SELECT checkpoint FROM `{}`.rowbridge_state FINAL WHERE job = '{}' FORMAT TSVRaw",
      target_db_, job);
  const std::string saved = cluster_->Sql(1, state_sql);
  ASSERT_FALSE(Trimmed(saved).empty());
  cluster_->KillNode(1);
  // node3 holds the same checkpoint (the save waited for a second replica: insert_quorum).
  EXPECT_EQ(cluster_->Sql(2, state_sql), saved);
  EXPECT_EQ(cluster_->Sql(0, state_sql), saved);

  RunMysqlSql(mysql_, workload.Next(30));
  config.clickhouse = cluster_->node(2);
  RowbridgeProcess rb(dir.path() / "node3", config);
  rb.Start();
  RunMysqlSql(mysql_, workload.Next(30));
  rb.WaitCaughtUp(120s);
  ExpectWorkloadReplicated(mysql_, cluster_->node(2), source_db_, target_db_, workload);
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A copy into a cluster killed while it writes: a Distributed table forwards each block of an
// INSERT to the shards as it comes, and a shard writes what it received when the INSERT is cut
// off. Units of several blocks (a small memory_limit, wide rows, chunk_rows 1000) failed here
// both ways before units became one read on a cluster: "holds 509 of the 1000 rows of the chunk
// that was in flight", and changelog rows written twice (blocks sent before their unit was
// recorded in flight, then copied again). The copy resumes and ends exact: the replica table
// equal to its source, the changelog holding each copied row once.
TEST_F(PipelineClusterTest, ACopyKilledWhileItWritesResumesExactly) {
  TestDir dir("pipeline-cluster-copy-kill");
  constexpr int kRows = 4000;
  RunMysqlSql(mysql_, fmt::format("CREATE DATABASE `{0}`; CREATE TABLE `{0}`.r (id INT PRIMARY "
                                  "KEY, s VARCHAR(1000)); CREATE TABLE `{0}`.c LIKE `{0}`.r;",
                                  source_db_));
  for (int first = 1; first <= kRows; first += 1000) {
    std::string values;
    for (int i = first; i < first + 1000; ++i) {
      values += fmt::format("{}({}, REPEAT('x', {}))", i == first ? "" : ",", i, 900 + i % 97);
    }
    RunMysqlSql(mysql_,
                fmt::format("INSERT INTO `{0}`.r VALUES {1}; INSERT INTO `{0}`.c VALUES {1};",
                            source_db_, values));
  }
  PipelineConfig config = ClusterConfig(fmt::format(
      "  - match: {0}.r\n    mode: replica\n  - match: {0}.c\n    mode: changelog\n", source_db_));
  config.snapshot = true;
  config.snapshot_chunk_rows = 1000;
  config.snapshot_memory_limit = "4MiB";
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  // Killed as soon as shard 1 holds a first unit of r: the next units' INSERTs are open then.
  const std::string first_unit = fmt::format("SELECT count() FROM `{}`.`r_local`", target_db_);
  bool written = false;
  for (int i = 0; i < 6000 && !written; ++i) {
    try {
      written = Trimmed(cluster_->Sql(0, first_unit)) != "0";
    } catch (const Error&) {
      // Not created yet.
    }
    if (!written) std::this_thread::sleep_for(5ms);
  }
  rb.Kill();
  ASSERT_TRUE(written) << "the copy wrote nothing within 30 s";
  const std::string copied = Trimmed(cluster_->Sql(
      0, fmt::format("SELECT (SELECT count() FROM `{0}`.r) + (SELECT count() FROM `{0}`.c)",
                     target_db_)));
  ASSERT_LT(std::stoull(copied), 2u * kRows)
      << "the copy ended before the kill: nothing was tested";
  rb.Start();
  rb.WaitCaughtUp(180s);

  SyncReplicas();
  const std::vector<ColumnCompare> columns{{"id"}, {"s", Compare::kHex}};
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "r", columns, "id"),
            MysqlRows(mysql_, source_db_, "r", columns, "id"));
  EXPECT_EQ(Trimmed(RunClickHouseSql(
                ch_, fmt::format("SELECT count(), uniqExact(id) FROM `{}`.c", target_db_))),
            fmt::format("{}\t{}", kRows, kRows))
      << "the changelog holds each copied row once";
  ExpectCheckEqual(rb);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

}  // namespace
}  // namespace rowbridge::testing
