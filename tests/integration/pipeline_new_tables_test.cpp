// Tables the rules match only after the first start (a rule added between two runs, a table
// renamed under a matched name): `rowbridge run` copies them before streaming and then streams
// them from where their copy ended, while the tables it already covered resume at the old
// checkpoint — nothing lost, nothing applied twice, also across kill -9 during the copy.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
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

// Random single-row changes to tables `(id INT PRIMARY KEY, v INT, s VARCHAR(40))`, each hitting
// exactly one row, counted per table. Keys move only in tables marked movable (changelog checks
// compare the latest change per key, which needs fixed keys).
class Changes {
 public:
  Changes(uint32_t seed, std::string database) : rng_(seed), db_(std::move(database)) {}

  void AddTable(const std::string& table, bool movable) { tables_[table].movable = movable; }

  // `rows` inserts into one table, as one statement.
  std::string Fill(const std::string& table, int rows) {
    Table& t = tables_.at(table);
    std::string sql = fmt::format("INSERT INTO `{}`.`{}` VALUES ", db_, table);
    for (int i = 0; i < rows; ++i) {
      const int64_t id = t.next++;
      t.ids.insert(id);
      sql += fmt::format("{}({}, {}, '{}')", i ? ", " : "", id, Uniform(0, 1000000), Text());
    }
    t.changes += rows;
    return sql + ";\n";
  }

  // `count` transactions of 1..4 changes to random tables among `tables`.
  std::string Next(const std::vector<std::string>& tables, int count) {
    std::string sql;
    for (int i = 0; i < count; ++i) {
      sql += "BEGIN;\n";
      const int n = Uniform(1, 4);
      for (int k = 0; k < n; ++k) sql += Change(tables[Uniform(0, int(tables.size()) - 1)]);
      sql += "COMMIT;\n";
    }
    return sql;
  }

  uint64_t changes(const std::string& table) const { return tables_.at(table).changes; }

  static std::vector<ColumnCompare> Columns() {
    return {{"id", Compare::kText}, {"v", Compare::kText}, {"s", Compare::kHex}};
  }

 private:
  struct Table {
    std::set<int64_t> ids;
    int64_t next = 1;
    uint64_t changes = 0;
    bool movable = false;
  };

  std::string Change(const std::string& name) {
    Table& t = tables_.at(name);
    const std::string table = fmt::format("`{}`.`{}`", db_, name);
    ++t.changes;
    const int kind = t.ids.size() < 5 ? 0 : Uniform(0, 9);
    if (kind <= 3) {
      const int64_t id = t.next++;
      t.ids.insert(id);
      return fmt::format("INSERT INTO {} VALUES ({}, {}, '{}');\n", table, id, Uniform(0, 1000000),
                         Text());
    }
    const int64_t id = Pick(t.ids);
    if (kind <= 6) {
      return fmt::format("UPDATE {} SET v = v + 1, s = '{}' WHERE id = {};\n", table, Text(), id);
    }
    if (kind == 7 && t.movable) {
      const int64_t to = t.next++;
      t.ids.erase(id);
      t.ids.insert(to);
      return fmt::format("UPDATE {} SET id = {} WHERE id = {};\n", table, to, id);
    }
    t.ids.erase(id);
    return fmt::format("DELETE FROM {} WHERE id = {};\n", table, id);
  }

  int64_t Pick(const std::set<int64_t>& ids) {
    auto it = ids.begin();
    std::advance(it, Uniform(0, int(ids.size()) - 1));
    return *it;
  }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string Text() {
    std::string s;
    const int n = Uniform(0, 30);
    for (int i = 0; i < n; ++i) s += static_cast<char>('a' + Uniform(0, 25));
    return s;
  }

  std::mt19937 rng_;
  std::string db_;
  std::map<std::string, Table> tables_;
};

class PipelineNewTablesTest : public PipelineFixture {
 protected:
  PipelineNewTablesTest() : PipelineFixture("rbn") {}

  // One server_id for the whole test: every start is the same replica coming back.
  PipelineConfig Config(const std::string& rules) {
    PipelineConfig c = PipelineFixture::Config(rules);
    if (server_id_ == 0) server_id_ = c.server_id;
    c.server_id = server_id_;
    c.snapshot = true;
    c.file_state = true;
    c.max_rows = 40;
    return c;
  }
  std::string Rule(const std::string& table, const char* mode) {
    return fmt::format("  - match: {}.{}\n    mode: {}\n", source_db_, table, mode);
  }
  void CreateTables(const std::vector<std::string>& tables) {
    std::string sql = "CREATE DATABASE IF NOT EXISTS `" + source_db_ + "`;\n";
    for (const std::string& t : tables) {
      sql += fmt::format("CREATE TABLE `{}`.`{}` (id INT PRIMARY KEY, v INT, s VARCHAR(40));\n",
                         source_db_, t);
    }
    RunMysqlSql(mysql_, sql);
  }

  // 30,000 rows in `table`: 600 chunks of 50 rows, a copy that lasts well beyond a second.
  void FillForALongCopy(Changes& changes, const std::string& table) {
    std::string fill;
    for (int i = 0; i < 30; ++i) fill += changes.Fill(table, 1000);
    RunMysqlSql(mysql_, fill);
  }
  // Starts `rb`, whose rules match a table more than its checkpoint covers, and waits until that
  // table's copy runs alongside the stream.
  void StartWithACopyAlongside(RowbridgeProcess& rb) {
    rb.Start();
    ASSERT_TRUE(WaitFor(
        [&] { return rb.log().find("being copied alongside the stream") != std::string::npos; },
        60s))
        << rb.log();
  }

  void ExpectReplica(const std::string& table) {
    EXPECT_EQ(ReplicaRows(ch_, target_db_, table, Changes::Columns(), "id"),
              MysqlRows(mysql_, source_db_, table, Changes::Columns(), "id"))
        << table;
    EXPECT_EQ(Trimmed(RunClickHouseSql(
                  ch_, fmt::format("SELECT count() FROM (SELECT id, _version, count() AS n FROM "
                                   "`{}`.`{}` GROUP BY id, _version HAVING n > 1)",
                                   target_db_, table))),
              "0")
        << table << ": a key with two rows of one version";
  }
  // A changelog table the stream covered from its first row: every change exactly once.
  void ExpectChangelogExact(const std::string& table, uint64_t changes) {
    const std::string expected = std::to_string(changes);
    EXPECT_EQ(Trimmed(RunClickHouseSql(ch_, fmt::format("SELECT count(), uniqExact(_version) FROM "
                                                        "`{}`.`{}`",
                                                        target_db_, table))),
              expected + "\t" + expected)
        << table << ": rows and distinct versions must both equal the committed changes";
    ExpectChangelogLatest(table);
  }
  // A changelog table that began with a copy: the copied rows (one version per chunk) and then
  // each later change once, above them.
  void ExpectChangelogLatest(const std::string& table) {
    EXPECT_EQ(ChangelogLatestRows(ch_, target_db_, table, Changes::Columns(), "id", "_event_type",
                                  "_version"),
              MysqlRows(mysql_, source_db_, table, Changes::Columns(), "id"))
        << table;
    EXPECT_EQ(Trimmed(RunClickHouseSql(
                  ch_, fmt::format("SELECT id, _version, _event_type, n FROM (SELECT id, _version, "
                                   "_event_type, count() AS n FROM `{}`.`{}` GROUP BY id, "
                                   "_version, _event_type HAVING n > 1) ORDER BY id LIMIT 10",
                                   target_db_, table))),
              "")
        << table << ": changes written twice (id, version, type, times)";
  }

  uint32_t server_id_ = 0;
};

// Writes `rounds` rounds of changes to `tables` on a thread, for as long as the test needs.
class BackgroundWriter {
 public:
  BackgroundWriter(const MysqlAddress& mysql, Changes& changes, std::vector<std::string> tables,
                   int rounds)
      : thread_([this, &mysql, &changes, tables, rounds] {
          try {
            for (int i = 0; i < rounds; ++i) {
              RunMysqlSql(mysql, changes.Next(tables, 15));
              std::this_thread::sleep_for(100ms);
            }
          } catch (const Error& e) {
            error_ = e.what();
          }
        }) {}
  ~BackgroundWriter() {
    if (thread_.joinable()) thread_.join();
  }
  std::string Join() {
    thread_.join();
    return error_;
  }

 private:
  std::string error_;
  std::thread thread_;
};

TEST_F(PipelineNewTablesTest, TableMatchedByANewRuleIsCopiedThenStreamed) {
  TestDir dir("pipeline-new-table");
  CreateTables({"a", "al", "b", "bl"});
  Changes changes(20240611, source_db_);
  changes.AddTable("a", true);
  changes.AddTable("al", false);
  changes.AddTable("b", true);
  changes.AddTable("bl", false);
  // Rows b and bl hold before the first checkpoint reach ClickHouse only through a copy.
  RunMysqlSql(mysql_, changes.Fill("b", 100) + changes.Fill("bl", 100));

  // Run 1: rules for a and al only.
  PipelineConfig first = Config(Rule("a", "replica") + Rule("al", "changelog"));
  {
    RowbridgeProcess rb(dir.path(), first);
    rb.Start();
    ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
    RunMysqlSql(mysql_, changes.Next({"a", "al"}, 30));
    rb.WaitCaughtUp();
    ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  }
  // While rowbridge is stopped: a and al change (their stream must resume at the checkpoint), b
  // and bl are filled.
  RunMysqlSql(mysql_, changes.Next({"a", "al"}, 20) + changes.Fill("b", 400) +
                          changes.Fill("bl", 300) + changes.Next({"b", "bl"}, 20));

  // Run 2: rules for b and bl added; every table keeps changing during the copy.
  PipelineConfig second = first;
  second.tables_yaml += Rule("b", "replica") + Rule("bl", "changelog");
  RowbridgeProcess rb(dir.path(), second);
  {
    BackgroundWriter writer(mysql_, changes, {"a", "al", "b", "bl"}, 20);
    rb.Start();
    ASSERT_EQ(writer.Join(), "");
  }
  rb.WaitCaughtUp(120s);
  const std::string log = rb.log();
  EXPECT_NE(
      log.find("matched since the last checkpoint: " + source_db_ + ".b, " + source_db_ + ".bl"),
      std::string::npos)
      << log;
  for (const char* t : {"a", "b"}) ExpectReplica(t);
  ExpectChangelogExact("al", changes.changes("al"));
  ExpectChangelogLatest("bl");
  // bl's copy is its rows as of the copy's end, then every later change once: fewer rows than
  // its changes (changes before the copy's end are folded into the copied rows), never more.
  const uint64_t bl_rows = std::stoull(
      Trimmed(RunClickHouseSql(ch_, fmt::format("SELECT count() FROM `{}`.bl", target_db_))));
  EXPECT_LE(bl_rows, changes.changes("bl"));

  // A restart copies nothing again and goes on streaming every table.
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const size_t before = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, changes.Next({"a", "al", "b", "bl"}, 20));
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.log().find("matched since the last checkpoint", before), std::string::npos)
      << rb.log().substr(before);
  for (const char* t : {"a", "b"}) ExpectReplica(t);
  ExpectChangelogExact("al", changes.changes("al"));
  ExpectChangelogLatest("bl");
  EXPECT_EQ(rb.Terminate(), 0);
  const auto checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_TRUE(checkpoint->table_starts.empty()) << "the stream passed the copy's end";
  EXPECT_FALSE(checkpoint->table_copy.has_value());
}

// The copy of a table matched later runs alongside the stream: the tables already replicated keep
// streaming while it copies, and it is handed over without a gap or a double.
TEST_F(PipelineNewTablesTest, TableMatchedLaterIsCopiedWhileTheOthersStream) {
  TestDir dir("pipeline-new-table-alongside");
  CreateTables({"a", "al", "big"});
  Changes changes(20261203, source_db_);
  changes.AddTable("a", true);
  changes.AddTable("al", false);
  changes.AddTable("big", true);
  PipelineConfig first = Config(Rule("a", "replica") + Rule("al", "changelog"));
  {
    RowbridgeProcess rb(dir.path(), first);
    rb.Start();
    ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
    RunMysqlSql(mysql_, changes.Next({"a", "al"}, 10));
    rb.WaitCaughtUp();
    ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  }
  FillForALongCopy(changes, "big");
  PipelineConfig second = first;
  second.tables_yaml += Rule("big", "replica");
  RowbridgeProcess rb(dir.path(), second);
  ASSERT_NO_FATAL_FAILURE(StartWithACopyAlongside(rb));
  // A change of an already replicated table reaches ClickHouse while the copy still runs.
  RunMysqlSql(mysql_, "INSERT INTO `" + source_db_ + "`.a VALUES (1000000, 7, 'during the copy')");
  ASSERT_TRUE(WaitFor(
      [&] {
        return Trimmed(RunClickHouseSql(
                   ch_, fmt::format("SELECT count() FROM `{}`.a FINAL WHERE id = 1000000",
                                    target_db_))) == "1";
      },
      60s))
      << rb.log();
  EXPECT_EQ(rb.log().find("handed over"), std::string::npos)
      << "the copy ended before the stream wrote a change of another table: the stream waited "
         "for the copy, or the copy was too short to tell\n"
      << rb.log();
  {
    BackgroundWriter writer(mysql_, changes, {"a", "al", "big"}, 30);
    ASSERT_EQ(writer.Join(), "");
  }
  ASSERT_TRUE(WaitFor([&] { return rb.log().find("handed over") != std::string::npos; }, 300s))
      << rb.log();
  RunMysqlSql(mysql_, changes.Next({"a", "al", "big"}, 20));
  rb.WaitCaughtUp(120s);
  RunMysqlSql(mysql_, "DELETE FROM `" + source_db_ + "`.a WHERE id = 1000000");
  rb.WaitCaughtUp();
  for (const char* t : {"a", "big"}) ExpectReplica(t);
  ExpectChangelogExact("al", changes.changes("al"));
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const auto checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_FALSE(checkpoint->table_copy.has_value());
  ASSERT_TRUE(checkpoint->replicated_tables.has_value());
  EXPECT_TRUE(std::binary_search(checkpoint->replicated_tables->begin(),
                                 checkpoint->replicated_tables->end(), source_db_ + ".big"));
}

// A copy that cannot be done (a table without a key, refused by the copy) is given up: the other
// tables stream on, the table is shown stopped with the reason (so /healthz fails), and nothing of
// it is streamed without its rows.
TEST_F(PipelineNewTablesTest, ACopyThatFailsLeavesTheStreamRunning) {
  TestDir dir("pipeline-new-table-copy-fails");
  CreateTables({"a"});
  RunMysqlSql(mysql_, fmt::format("CREATE TABLE `{}`.nokey (id INT, v INT, s VARCHAR(40));\n"
                                  "INSERT INTO `{}`.nokey VALUES (1, 1, 'one'), (2, 2, 'two');",
                                  source_db_, source_db_));
  Changes changes(4242, source_db_);
  changes.AddTable("a", true);
  PipelineConfig first = Config(Rule("a", "replica"));
  first.tables_yaml = Rule("a", "replica");
  {
    RowbridgeProcess rb(dir.path(), first);
    rb.Start();
    ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
    ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  }
  PipelineConfig second = first;
  second.tables_yaml += Rule("nokey", "replica");
  RowbridgeProcess rb(dir.path(), second);
  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] { return rb.log().find("the stream goes on without it") != std::string::npos; }, 60s))
      << rb.log();
  ASSERT_TRUE(WaitFor([&] { return rb.HttpStatus("/healthz") == 503; }, 30s)) << rb.log();
  EXPECT_NE(rb.HttpGet("/healthz").find(source_db_ + ".nokey is stopped"), std::string::npos)
      << rb.HttpGet("/healthz");
  RunMysqlSql(mysql_, changes.Next({"a"}, 20) + fmt::format("INSERT INTO `{}`.nokey VALUES (3, 3, "
                                                            "'three');",
                                                            source_db_));
  rb.WaitCaughtUp();
  ExpectReplica("a");
  EXPECT_TRUE(rb.running()) << rb.log();
  const auto checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_FALSE(checkpoint->table_copy.has_value()) << "the failed copy is given up";
  EXPECT_FALSE(std::binary_search(checkpoint->replicated_tables->begin(),
                                  checkpoint->replicated_tables->end(), source_db_ + ".nokey"))
      << "a table without its rows is not streamed";
  EXPECT_EQ(
      Trimmed(RunClickHouseSql(ch_, fmt::format("EXISTS TABLE `{}`.nokey", target_db_))) == "1"
          ? Trimmed(
                RunClickHouseSql(ch_, fmt::format("SELECT count() FROM `{}`.nokey", target_db_)))
          : std::string("0"),
      "0");
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A failed copy's fresh table that a kill -9 kept from being dropped is named in the checkpoint
// (targets_to_drop, saved with the copy's end): the next start drops it and forgets it. Without it,
// the table stayed in ClickHouse for good (unpaced DDL workload, seed 402:
// `d3_rowbridge_resnapshot`). The kill -9 itself falls between two statements, so the checkpoint
// it leaves is written here.
TEST_F(PipelineNewTablesTest, AFailedCopysTableAKillNineLeftIsDroppedAtTheNextStart) {
  TestDir dir("pipeline-new-table-left-over");
  CreateTables({"a"});
  PipelineConfig config = Config(Rule("a", "replica"));
  config.tables_yaml = Rule("a", "replica");
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const std::string left_over = target_db_ + ".a_rowbridge_resnapshot";
  Ch("CREATE TABLE " + Target("a_rowbridge_resnapshot") + " (id Int32) ENGINE = Memory");
  nlohmann::json saved = nlohmann::json::parse(ReadCheckpointFile(rb));
  saved["targets_to_drop"] = {left_over};
  RestoreCheckpointFile(rb, saved.dump());

  rb.Start();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::optional<state::Checkpoint> c = rb.SavedCheckpoint();
        return c && c->targets_to_drop.empty();
      },
      60s))
      << rb.log();
  EXPECT_EQ(Ch("EXISTS TABLE " + Target("a_rowbridge_resnapshot")), "0") << rb.log();
  EXPECT_NE(rb.log().find("dropped " + left_over), std::string::npos) << rb.log();
  Sql("INSERT INTO a VALUES (100, 1, 'after');");
  rb.WaitCaughtUp();
  ExpectReplica("a");
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A table matched later whose copy a schema change races (a column added while its chunks are
// read): the copy is begun again at once into a fresh table built from the new columns, and the
// table ends equal to its source, new column and its default included, with no restart and no
// table stopped.
TEST_F(PipelineNewTablesTest, TableMatchedLaterWhoseCopyASchemaChangeRacesIsCopiedAgain) {
  TestDir dir("pipeline-new-table-raced");
  CreateTables({"a", "big"});
  Changes changes(20261204, source_db_);
  changes.AddTable("a", true);
  changes.AddTable("big", true);
  PipelineConfig first = Config(Rule("a", "replica"));
  {
    RowbridgeProcess rb(dir.path(), first);
    rb.Start();
    ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
    ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  }
  FillForALongCopy(changes, "big");
  PipelineConfig second = first;
  second.tables_yaml += Rule("big", "replica");
  RowbridgeProcess rb(dir.path(), second);
  ASSERT_NO_FATAL_FAILURE(StartWithACopyAlongside(rb));
  RunMysqlSql(mysql_, fmt::format("ALTER TABLE `{0}`.big ADD COLUMN extra INT NOT NULL DEFAULT 9;\n"
                                  "UPDATE `{0}`.big SET extra = 10 WHERE id % 7 = 0;\n",
                                  source_db_) +
                          changes.Next({"a"}, 10));
  ASSERT_TRUE(WaitFor([&] { return rb.log().find("handed over") != std::string::npos; }, 300s))
      << rb.log();
  RunMysqlSql(mysql_, changes.Next({"a"}, 20) +
                          fmt::format("UPDATE `{0}`.big SET v = v + 1 WHERE id % 5 = 0;\n"
                                      "DELETE FROM `{0}`.big WHERE id % 11 = 0;\n",
                                      source_db_));
  rb.WaitCaughtUp(120s);
  ExpectReplica("a");
  std::vector<ColumnCompare> columns = Changes::Columns();
  columns.push_back({"extra", Compare::kText});
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "big", columns, "id"),
            MysqlRows(mysql_, source_db_, "big", columns, "id"));
  EXPECT_EQ(rb.HttpStatus("/healthz"), 200) << rb.HttpGet("/healthz");
  const auto checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_TRUE(checkpoint->stopped_tables.empty());
  EXPECT_TRUE(std::binary_search(checkpoint->replicated_tables->begin(),
                                 checkpoint->replicated_tables->end(), source_db_ + ".big"));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

TEST_F(PipelineNewTablesTest, KillNineDuringTheNewTablesCopyResumesIt) {
  TestDir dir("pipeline-new-table-kill9");
  CreateTables({"a", "al", "b", "bl"});
  Changes changes(8675309, source_db_);
  changes.AddTable("a", true);
  changes.AddTable("al", false);
  changes.AddTable("b", true);
  changes.AddTable("bl", false);
  RunMysqlSql(mysql_, changes.Fill("b", 100) + changes.Fill("bl", 100));
  PipelineConfig first = Config(Rule("a", "replica") + Rule("al", "changelog"));
  {
    RowbridgeProcess rb(dir.path(), first);
    rb.Start();
    ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
    RunMysqlSql(mysql_, changes.Next({"a", "al"}, 20));
    rb.WaitCaughtUp();
    ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  }
  std::string fill;
  for (int i = 0; i < 10; ++i) fill += changes.Fill("b", 300) + changes.Fill("bl", 300);
  RunMysqlSql(mysql_, fill + changes.Next({"a", "al", "b", "bl"}, 20));

  PipelineConfig second = first;
  second.tables_yaml += Rule("b", "replica") + Rule("bl", "changelog");
  RowbridgeProcess rb(dir.path(), second);
  std::mt19937 rng(99);
  int kills_during_copy = 0;
  {
    BackgroundWriter writer(mysql_, changes, {"a", "al", "b", "bl"}, 30);
    for (int attempt = 0; attempt < 3; ++attempt) {
      const size_t from = rb.log().size();
      rb.Start();
      ASSERT_TRUE(WaitFor(
          [&] {
            const std::string log = rb.log();
            return log.find("matched since the last checkpoint", from) != std::string::npos ||
                   log.find("resuming the copy of the newly matched", from) != std::string::npos;
          },
          60s))
          << rb.log();
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(200, 900)(rng)));
      rb.Kill();
      const auto saved = rb.SavedCheckpoint();
      ASSERT_TRUE(saved.has_value());
      if (!saved->table_copy.has_value()) break;  // the copy was done
      ++kills_during_copy;
    }
    rb.Start();
    ASSERT_EQ(writer.Join(), "");
  }
  rb.WaitCaughtUp(180s);
  std::printf("rowbridge was killed %d time(s) while the new tables were being copied\n",
              kills_during_copy);
  EXPECT_GE(kills_during_copy, 1) << "no kill hit the copy; the test proves nothing";
  for (const char* t : {"a", "b"}) ExpectReplica(t);
  ExpectChangelogExact("al", changes.changes("al"));
  ExpectChangelogLatest("bl");
  EXPECT_EQ(rb.Terminate(), 0);
}

// A kill -9 after the stream followed a CREATE TABLE (the table's rows written) but before a
// checkpoint recorded the table as covered: the restart replays the CREATE from the older
// checkpoint, so the table is the stream's again. It is neither copied as a table matched later
// (which the versions beyond the checkpoint would refuse) nor given its present columns at the
// checkpoint; every change, in both modes, ends in ClickHouse exactly once.
TEST_F(PipelineNewTablesTest, TableCreatedAfterTheLastCheckpointIsReplayedAfterKillNine) {
  TestDir dir("pipeline-new-table-replayed");
  CreateTables({"a", "al"});
  Changes changes(4242, source_db_);
  for (const char* t : {"a", "c"}) changes.AddTable(t, true);
  for (const char* t : {"al", "cl"}) changes.AddTable(t, false);
  PipelineConfig config = Config(Rule("a", "replica") + Rule("al", "changelog") +
                                 Rule("c", "replica") + Rule("cl", "changelog"));
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
  RunMysqlSql(mysql_, changes.Next({"a", "al"}, 10));
  rb.WaitCaughtUp();
  const std::string before_create = ReadCheckpointFile(rb);

  CreateTables({"c", "cl"});
  RunMysqlSql(mysql_, changes.Fill("c", 30) + changes.Fill("cl", 30) +
                          changes.Next({"a", "al", "c", "cl"}, 20));
  rb.WaitCaughtUp();
  rb.Kill();
  // The saves that covered c and cl are lost, as in a crash just before them.
  RestoreCheckpointFile(rb, before_create);
  const size_t from = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, changes.Next({"a", "al", "c", "cl"}, 10));
  rb.WaitCaughtUp();
  const std::string log = rb.log().substr(from);
  EXPECT_NE(log.find(source_db_ + ".c is created again by the binlog the stream replays"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("matched since the last checkpoint"), std::string::npos) << log;
  for (const char* t : {"a", "c"}) ExpectReplica(t);
  ExpectChangelogExact("al", changes.changes("al"));
  ExpectChangelogExact("cl", changes.changes("cl"));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// The checkpoint that first covers a table the stream met is saved at once, with the position of
// the last write before the table's CREATE. A kill -9 before the next one leaves a checkpoint that
// covers a table created after its position, whose columns changed since (here ADD COLUMN with a
// DEFAULT, then values of its own). The restart must not give the table its present columns at
// the checkpoint: it is replayed from its CREATE, and every column and value ends equal.
TEST_F(PipelineNewTablesTest,
       CoveredTableCreatedAfterTheCheckpointPositionIsReplayedFromItsCreate) {
  TestDir dir("pipeline-covered-created-later");
  CreateTables({"a"});
  Changes changes(5151, source_db_);
  changes.AddTable("a", true);
  changes.AddTable("c", true);
  PipelineConfig config = Config(Rule("a", "replica") + Rule("c", "replica"));
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
  RunMysqlSql(mysql_, changes.Next({"a"}, 10));
  rb.WaitCaughtUp();
  const nlohmann::json before = nlohmann::json::parse(ReadCheckpointFile(rb));

  CreateTables({"c"});
  RunMysqlSql(mysql_, changes.Fill("c", 30) + changes.Next({"a", "c"}, 20));
  rb.WaitCaughtUp();
  // Its schema history has c from its CREATE on (a history is saved pruned at its own position).
  nlohmann::json saved = nlohmann::json::parse(ReadCheckpointFile(rb));
  // (Changes writes rows without column names: c's later rows are written here.)
  Sql("ALTER TABLE c ADD COLUMN e INT NOT NULL DEFAULT 8; UPDATE c SET e = id * 3 WHERE id % 2 = "
      "0; INSERT INTO c (id, v, s, e) VALUES (900001, 1, 'after', 5), (900002, 2, 'after', 8);");
  RunMysqlSql(mysql_, changes.Next({"a"}, 20));
  rb.WaitCaughtUp();
  rb.Kill();
  // The checkpoint as the save that first covered c left it: c covered, its history from its
  // CREATE on, the position and versions those of before the CREATE.
  const auto covered = saved.value("replicated_tables", std::vector<std::string>());
  ASSERT_NE(std::find(covered.begin(), covered.end(), source_db_ + ".c"), covered.end())
      << saved.dump();
  for (const char* field : {"file", "position", "gtid", "next_version"}) {
    if (before.contains(field)) saved[field] = before[field];
  }
  RestoreCheckpointFile(rb, saved.dump());
  const size_t from = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, changes.Next({"a"}, 10));
  Sql("UPDATE c SET e = e + 1, v = v + 1 WHERE id % 3 = 0;");
  rb.WaitCaughtUp();
  const std::string log = rb.log().substr(from);
  EXPECT_NE(log.find(source_db_ + ".c is created again by the binlog the stream replays"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find(source_db_ + ".c: columns read from the source's information_schema"),
            std::string::npos)
      << log;
  for (const char* t : {"a", "c"}) ExpectReplica(t);
  std::vector<ColumnCompare> with_e = Changes::Columns();
  with_e.push_back({"e"});
  EXPECT_EQ(ReplicaRows(ch_, target_db_, "c", with_e, "id"),
            MysqlRows(mysql_, source_db_, "c", with_e, "id"));
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// RENAME TABLE of an unreplicated table to a matched name while running: its rows were never
// replicated. A warning says so, and the table is copied again alongside the stream.
TEST_F(PipelineNewTablesTest, TableRenamedUnderAMatchedNameIsCopiedAlongsideTheStream) {
  TestDir dir("pipeline-new-table-rename");
  CreateTables({"r_a", "staging"});
  Changes changes(31337, source_db_);
  changes.AddTable("r_a", true);
  changes.AddTable("staging", true);
  RunMysqlSql(mysql_, changes.Fill("staging", 120));
  PipelineConfig config = Config(fmt::format("  - match: {}.r_*\n    mode: replica\n", source_db_));
  RowbridgeProcess rb(dir.path(), config);
  rb.Start();
  ASSERT_TRUE(WaitFor([&] { return rb.SavedCheckpoint().has_value(); }, 60s)) << rb.log();
  RunMysqlSql(mysql_, changes.Next({"r_a"}, 10) + "RENAME TABLE `" + source_db_ + "`.staging TO `" +
                          source_db_ + "`.r_b;\n");
  changes.AddTable("r_b", true);
  // Its later changes are streamed at once, and its earlier rows come with the copy.
  RunMysqlSql(mysql_, "UPDATE `" + source_db_ + "`.r_b SET v = -1 WHERE id = 7");
  ASSERT_TRUE(WaitFor(
      [&] {
        return rb.log().find("resnapshot of " + source_db_ + ".r_b handed over") !=
               std::string::npos;
      },
      120s))
      << rb.log();
  EXPECT_NE(rb.log().find(source_db_ + ".r_b: it was renamed at"), std::string::npos) << rb.log();
  RunMysqlSql(mysql_, changes.Next({"r_a"}, 10) + "UPDATE `" + source_db_ +
                          "`.r_b SET v = v + 1 WHERE id BETWEEN 20 AND 50;\nDELETE FROM `" +
                          source_db_ + "`.r_b WHERE id BETWEEN 60 AND 70;\n");
  rb.WaitCaughtUp();
  EXPECT_EQ(Trimmed(RunClickHouseSql(
                ch_, fmt::format("SELECT v FROM `{}`.r_b FINAL WHERE id = 7", target_db_))),
            "-1");
  ExpectReplica("r_a");
  ExpectReplica("r_b");
  // A restart copies nothing again.
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const size_t before = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, "UPDATE `" + source_db_ + "`.r_b SET v = -2 WHERE id = 8");
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.log().find("matched since the last checkpoint", before), std::string::npos)
      << rb.log().substr(before);
  ExpectReplica("r_a");
  ExpectReplica("r_b");
  EXPECT_EQ(rb.Terminate(), 0);
}

// An online schema change's swap (an unmatched shadow renamed onto a matched name) replayed after
// a restart, when the swapped-in table has been renamed on since: the session lists the source's
// tables at its start, which name only the later name. The replay stops the swapped-in name (its
// columns are known neither to the source now nor, without FULL row metadata, to the binlog), and
// the copy the swap asked for under it must follow the RENAME: waiting under the old name it
// failed for good and was begun again at every restart of the stream, without end.
TEST_F(PipelineNewTablesTest, ASwapReplayedAfterTheTableWasRenamedOnIsCopiedAgain) {
  TestDir dir("pipeline-new-table-swap-replayed");
  CreateTables({"r_t", "shadow"});
  Changes changes(4242, source_db_);
  changes.AddTable("r_t", true);
  changes.AddTable("shadow", true);
  RunMysqlSql(mysql_, changes.Fill("r_t", 40) + changes.Fill("shadow", 90));
  PipelineConfig config = Config(fmt::format("  - match: {}.r_*\n    mode: replica\n", source_db_));
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  RunMysqlSql(mysql_, changes.Next({"r_t"}, 10));
  rb.WaitCaughtUp();
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const std::string db = "`" + source_db_ + "`.";
  RunMysqlSql(mysql_, changes.Next({"shadow"}, 10) + "RENAME TABLE " + db + "r_t TO " + db +
                          "old_t, " + db + "shadow TO " + db + "r_t;\n");
  RunMysqlSql(mysql_, "UPDATE " + db + "r_t SET v = -1 WHERE id = 7;\nRENAME TABLE " + db +
                          "r_t TO " + db + "r_u;\n");
  const size_t before = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, "UPDATE " + db + "r_u SET v = v + 1 WHERE id BETWEEN 20 AND 50");
  ASSERT_TRUE(WaitFor(
      [&] {
        return rb.log().find("handed over", before) != std::string::npos ||
               rb.log().find("cannot", before) != std::string::npos;
      },
      120s))
      << rb.log().substr(before);
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.log().find("does not cover it", before), std::string::npos)
      << rb.log().substr(before);
  ExpectReplica("r_u");
  // No stop left under the name no table has any more (/healthz would stay unhealthy for good).
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log().substr(before);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log().substr(before);
}

// The same swap replayed after the swapped-in table was dropped: its copy is given up, once.
TEST_F(PipelineNewTablesTest, ASwapReplayedAfterTheTableWasDroppedGivesItsCopyUp) {
  TestDir dir("pipeline-new-table-swap-dropped");
  CreateTables({"r_t", "r_keep", "shadow"});
  Changes changes(4243, source_db_);
  for (const char* t : {"r_t", "r_keep", "shadow"}) changes.AddTable(t, true);
  RunMysqlSql(mysql_,
              changes.Fill("r_t", 40) + changes.Fill("r_keep", 30) + changes.Fill("shadow", 90));
  PipelineConfig config = Config(fmt::format("  - match: {}.r_*\n    mode: replica\n", source_db_));
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  rb.WaitCaughtUp();
  ASSERT_EQ(rb.Terminate(), 0) << rb.log();
  const std::string db = "`" + source_db_ + "`.";
  RunMysqlSql(mysql_, "RENAME TABLE " + db + "r_t TO " + db + "old_t, " + db + "shadow TO " + db +
                          "r_t;\nUPDATE " + db + "r_t SET v = -1 WHERE id = 7;\nDROP TABLE " + db +
                          "r_t;\n");
  const size_t before = rb.log().size();
  rb.Start();
  RunMysqlSql(mysql_, changes.Next({"r_keep"}, 10));
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.log().find("failed", before), std::string::npos) << rb.log().substr(before);
  ExpectReplica("r_keep");
  EXPECT_EQ(rb.SavedCheckpoint()->stopped_tables.size(), 0u) << rb.log().substr(before);
  EXPECT_EQ(rb.Terminate(), 0) << rb.log().substr(before);
}

}  // namespace
}  // namespace rowbridge::testing
