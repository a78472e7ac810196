// `rowbridge run` on real servers where a row change does not map one to one onto a target row:
// DML the source logged as a statement (binlog_format STATEMENT or MIXED in a session), whose rows
// never reach the binlog, must stop the tables it writes (or the run) loudly; and an UPDATE that
// changes a key must delete the old key in both modes, composite keys included.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class PipelineStatementTest : public PipelineFixture {
 protected:
  PipelineStatementTest() : PipelineFixture("rbs") {}
};

// Statement-based DML stops every replicated table it writes, and only those: a table it only
// reads goes on, and so do tables no rule matches. The stop names the statement, the table, the
// position with its GTID, and the fix; it is in the checkpoint and /status, and outlives a
// restart.
TEST_F(PipelineStatementTest, StatementDmlStopsTheReplicatedTablesItWrites) {
  TestDir dir("pipeline-statement-dml");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE b (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE c (id INT PRIMARY KEY, v INT); CREATE TABLE d (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE u (id INT PRIMARY KEY, v INT);");
  // A file the server may read, for a statement-based LOAD DATA.
  const std::string file_dir = Trimmed(RunMysqlSql(mysql_, "SELECT @@secure_file_priv"));
  ASSERT_FALSE(file_dir.empty());
  const std::string file = (std::filesystem::path(file_dir) / (source_db_ + ".csv")).string();
  Sql(fmt::format("SELECT 5, 5 INTO OUTFILE '{}'", file));

  const std::string db = source_db_;
  PipelineConfig config = Config(
      fmt::format("  - match: [{0}.a, {0}.b, {0}.c, {0}.d, {0}.e]\n    mode: replica\n", db));
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  Sql("INSERT INTO a VALUES (1, 1), (2, 2); INSERT INTO b VALUES (1, 1), (2, 2); "
      "INSERT INTO c VALUES (1, 1); INSERT INTO d VALUES (1, 1);");
  Sql(fmt::format(
      "SET SESSION binlog_format = STATEMENT; "
      "INSERT INTO u SELECT * FROM c; "                      // c is only read
      "UPDATE a JOIN u ON a.id = u.id SET a.v = 10; "        // writes a (and u, not replicated)
      "DELETE b FROM b JOIN u ON b.id = u.id; "              // multi-table DELETE of b
      "LOAD DATA INFILE '{}' INTO TABLE d; "                 // EXECUTE_LOAD_QUERY
      "CREATE TABLE e (PRIMARY KEY (id)) SELECT * FROM c; "  // its rows are not logged
      "SET SESSION binlog_format = ROW; "
      "INSERT INTO a VALUES (3, 3); INSERT INTO c VALUES (2, 2); INSERT INTO d VALUES (9, 9);",
      file));
  rb.WaitCaughtUp();

  std::optional<state::Checkpoint> checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  std::map<std::string, state::StoppedTable> stopped;
  for (const state::StoppedTable& s : checkpoint->stopped_tables) {
    EXPECT_EQ(s.database, db);
    stopped[s.table] = s;
  }
  ASSERT_EQ(stopped.size(), 4u) << rb.log();
  ASSERT_EQ(stopped.count("a") + stopped.count("b") + stopped.count("d") + stopped.count("e"), 4u);
  const std::map<std::string, std::string> statements = {
      {"a", "\"UPDATE a JOIN u ON a.id = u.id SET a.v = 10"},
      {"b", "\"DELETE b FROM b JOIN u ON b.id = u.id"},
      {"d", "\"LOAD DATA "},
      {"e", "\"CREATE TABLE e (PRIMARY KEY (id)) SELECT * FROM c\""}};
  for (const auto& [table, statement] : statements) {
    const std::string& reason = stopped[table].reason;
    EXPECT_NE(reason.find(statement), std::string::npos) << reason;
    EXPECT_NE(reason.find(db + "." + table), std::string::npos) << reason;
    EXPECT_FALSE(stopped[table].position.empty());
    EXPECT_NE(reason.find(stopped[table].position + " (GTID "), std::string::npos) << reason;
    EXPECT_NE(reason.find("set binlog_format=ROW"), std::string::npos) << reason;
    EXPECT_NE(reason.find("copy the table again"), std::string::npos) << reason;
  }

  // Rows of the stopped tables after the statement are not applied; c goes on.
  EXPECT_EQ(Ch("SELECT groupArray((id, v)) FROM (SELECT id, v FROM " + Target("a") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[(1,1),(2,2)]");
  EXPECT_EQ(Ch("SELECT groupArray(id) FROM (SELECT id FROM " + Target("d") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[1]");
  EXPECT_EQ(Ch("SELECT groupArray((id, v)) FROM (SELECT id, v FROM " + Target("c") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[(1,1),(2,2)]")
      << "a table the statement only read must go on";
  const std::string status = rb.HttpGet("/status");
  EXPECT_NE(status.find("stopped: the source logged UPDATE as a statement"), std::string::npos)
      << status;
  EXPECT_NE(rb.HttpGet("/metrics").find("rowbridge_stopped_tables 4"), std::string::npos);
  // Each stopped table is "stopped" with its reason on /status (c goes on streaming), and
  // /healthz fails naming them: the other tables replicate, but these need a person.
  const nlohmann::json status_json = nlohmann::json::parse(status);
  std::map<std::string, std::string> states;
  for (const nlohmann::json& t : status_json["tables"]) {
    const std::string name = t["source"]["table"];
    states[name] = t["state"];
    if (t["state"] == "stopped") {
      EXPECT_EQ(t["stopped"]["reason"], stopped[name].reason);
      EXPECT_EQ(t["stopped"]["position"], stopped[name].position);
    }
  }
  EXPECT_EQ(states, (std::map<std::string, std::string>{{"a", "stopped"},
                                                        {"b", "stopped"},
                                                        {"c", "streaming"},
                                                        {"d", "stopped"},
                                                        {"e", "stopped"}}))
      << status;
  EXPECT_EQ(rb.HttpStatus("/healthz"), 503);
  const std::string health = rb.HttpGet("/healthz");
  EXPECT_EQ(health.rfind("unhealthy: running, but 4 tables are stopped (", 0), 0u) << health;
  for (const char* table : {".a", ".b", ".d", ".e"})
    EXPECT_NE(health.find(db + table), std::string::npos) << health;
  EXPECT_EQ(health.find(db + ".c"), std::string::npos) << health;
  const std::string log = rb.log();
  EXPECT_NE(log.find("stopped replicating " + db + ".b: the source logged DELETE as a statement"),
            std::string::npos)
      << log;

  // A restart keeps them stopped.
  EXPECT_EQ(rb.Terminate(), 0);
  rb.Start();
  Sql("INSERT INTO b VALUES (7, 7); INSERT INTO c VALUES (3, 3);");
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("b") + " FINAL WHERE _is_deleted = 0"), "2");
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("c") + " FINAL WHERE _is_deleted = 0"), "3");
  EXPECT_NE(rb.log().find(db + ".b stays stopped"), std::string::npos);
  // The checkpoint's stopped tables keep /healthz failing after the restart.
  EXPECT_EQ(rb.HttpStatus("/healthz"), 503);
  const std::string health_after = rb.HttpGet("/healthz");
  EXPECT_NE(health_after.find("4 tables are stopped"), std::string::npos) << health_after;
  EXPECT_NE(health_after.find(db + ".b"), std::string::npos) << health_after;
  EXPECT_NE(
      rb.HttpGet("/metrics").find("rowbridge_table_stopped{database=\"" + db + "\",table=\"b\"} 1"),
      std::string::npos);
  EXPECT_EQ(rb.Terminate(), 0);
}

// source.on_statement_dml: stop_run ends `rowbridge run` with the same message, before the
// checkpoint passes the statement: a restart stops again instead of going on without its rows.
TEST_F(PipelineStatementTest, StatementDmlStopsTheRunWhenConfigured) {
  TestDir dir("pipeline-statement-run");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT);");
  PipelineConfig config = Config("  - match: " + source_db_ + ".a\n    mode: changelog\n");
  config.source_yaml = "  on_statement_dml: stop_run\n";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  Sql("INSERT INTO a VALUES (1, 1), (2, 2);");
  rb.WaitCaughtUp();
  // MIXED logs a deterministic statement as a statement.
  Sql("SET SESSION binlog_format = MIXED; DELETE FROM a WHERE id = 1;");
  const int status = rb.Wait(60s);
  ASSERT_NE(status, -2) << "rowbridge went on after statement-based DML; log:\n" << rb.log();
  EXPECT_NE(status, 0);
  const std::string log = rb.log();
  const std::string message = "the source logged DELETE as a statement at ";
  EXPECT_NE(log.find(message), std::string::npos) << log;
  EXPECT_NE(log.find("\"DELETE FROM a WHERE id = 1\" changed rows of " + source_db_ + ".a"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("(GTID "), std::string::npos) << log;
  EXPECT_NE(log.find("(source.on_statement_dml: stop_run)"), std::string::npos) << log;
  std::optional<state::Checkpoint> checkpoint = rb.SavedCheckpoint();
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_TRUE(checkpoint->stopped_tables.empty());
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("a")), "2") << "the inserts before it are written";

  const size_t first_run = log.size();
  rb.Start();
  EXPECT_NE(rb.Wait(60s), 0);
  EXPECT_NE(rb.log().find(message, first_run), std::string::npos) << rb.log().substr(first_run);
}

// An UPDATE that changes the key writes the old key's delete and the new key's row, in both
// modes, for single and composite keys: the changelog's latest change per key replays to the
// source, the replica's current rows equal it, and `rowbridge check` finds both equal.
TEST_F(PipelineStatementTest, KeyChangesDeleteTheOldKeyInBothModes) {
  TestDir dir("pipeline-key-change");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE s (id INT PRIMARY KEY, v INT); "
      "CREATE TABLE cl (a INT, b VARCHAR(8), v INT, PRIMARY KEY (a, b)); "
      "CREATE TABLE rp (a INT, b VARCHAR(8), v INT, PRIMARY KEY (a, b));");
  const std::string db = source_db_;
  PipelineConfig config =
      Config(fmt::format("  - match: [{0}.s, {0}.cl]\n    mode: changelog\n"
                         "  - match: {0}.rp\n    mode: replica\n",
                         db));
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);

  Sql("INSERT INTO s VALUES (5, 50), (6, 60), (7, 70); "
      "UPDATE s SET id = 99 WHERE id = 5; "          // the example
      "UPDATE s SET id = id + 1 ORDER BY id DESC; "  // every row moves, onto freed keys
      "UPDATE s SET v = v + 1 WHERE id = 8;");       // no key change: one update
  for (const char* table : {"cl", "rp"}) {
    Sql(
        fmt::format("INSERT INTO {0} VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3); "
                    "UPDATE {0} SET b = 'z' WHERE a = 1 AND b = 'x'; "  // second key part
                    "UPDATE {0} SET a = a + 10 WHERE b != 'z'; "        // first key part
                    "UPDATE {0} SET v = 9 WHERE a = 11; "
                    "BEGIN; UPDATE {0} SET a = 3, b = 'w' WHERE a = 12; "
                    "DELETE FROM {0} WHERE a = 1; COMMIT;",
                    table));
  }
  rb.WaitCaughtUp();

  // s: 5 -> 99 -> 100, 7 -> 8, 6 -> 7; the old keys' last change is a delete.
  EXPECT_EQ(Ch("SELECT groupArray((id, _event_type, v)) FROM (SELECT id, _event_type, v FROM " +
               Target("s") + " ORDER BY _version, _event_type = 'insert', id)"),
            "[(5,'insert',50),(6,'insert',60),(7,'insert',70),(5,'delete',50),(99,'insert',50),"
            "(99,'delete',50),(100,'insert',50),(7,'delete',70),(8,'insert',70),"
            "(6,'delete',60),(7,'insert',60),(8,'update',71)]");
  // The event type of each key's latest change.
  auto latest = [&](const std::string& key, const std::string& table) {
    return Ch(
        "SELECT groupArray((k, t)) FROM (SELECT k, argMax(_event_type, _version) AS t FROM "
        "(SELECT " +
        key + " AS k, _event_type, _version FROM " + Target(table) + ") GROUP BY k ORDER BY k)");
  };
  EXPECT_EQ(latest("id", "s"),
            "[(5,'delete'),(6,'delete'),(7,'insert'),(8,'update'),(99,'delete'),(100,'insert')]");
  EXPECT_EQ(latest("(a, b)", "cl"),
            "[((1,'x'),'delete'),((1,'y'),'delete'),((1,'z'),'delete'),((2,'x'),'delete'),"
            "((3,'w'),'insert'),((11,'y'),'update'),((12,'x'),'delete')]");
  // The changelog's latest non-deleted change per key, and the replica, equal the source.
  const std::string source_rows = Trimmed(
      RunMysqlSql(mysql_, "SELECT CONCAT(a, '|', b, '|', v) FROM `" + db + "`.cl ORDER BY a, b"));
  EXPECT_EQ(source_rows, "3|w|3\n11|y|9");
  EXPECT_EQ(Ch("SELECT concat(toString(a), '|', b, '|', toString(v)) FROM (SELECT a, b, "
               "argMax(v, _version) AS v, argMax(_event_type, _version) AS t FROM " +
               Target("cl") + " GROUP BY a, b) WHERE t != 'delete' ORDER BY a, b"),
            source_rows);
  EXPECT_EQ(Ch("SELECT concat(toString(a), '|', b, '|', toString(v)) FROM " + Target("rp") +
               " FINAL WHERE _is_deleted = 0 ORDER BY a, b"),
            Trimmed(RunMysqlSql(
                mysql_, "SELECT CONCAT(a, '|', b, '|', v) FROM `" + db + "`.rp ORDER BY a, b")));

  const CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("check: 3 target tables: 3 equal"), std::string::npos)
      << check.out << check.err;
  EXPECT_EQ(rb.Terminate(), 0);
}

// A changelog key change is two rows of one version (the old key's delete, the new key's insert).
// When a batch fills up between them and rowbridge dies after inserting only the first, the
// replay must write the second one only (as for a replica's tombstone and new row).
TEST_F(PipelineStatementTest, ChangelogKeyChangeSplitOverTwoBatchesIsReplayedOnce) {
  TestDir dir("pipeline-changelog-key-move");
  RowbridgeProcess rb(dir.path(), KeyMoveConfig("changelog"));
  const std::string before_changes = StartAndKeyMove(rb);
  ASSERT_FALSE(HasFailure());
  const std::string events =
      "SELECT groupArray((id, _event_type)) FROM (SELECT id, _event_type "
      "FROM " +
      Target("t") + " ORDER BY _version, _event_type = 'insert', id)";
  ASSERT_EQ(Ch(events), "[(1,'insert'),(1,'delete'),(2,'insert')]");

  // The crash between the two INSERTs: the new key's row never arrived, the checkpoint is the
  // one before the changes.
  ASSERT_NO_FATAL_FAILURE(DeleteTargetRows("t", "id = 2"));
  ASSERT_EQ(Ch("SELECT count() FROM " + Target("t")), "2");
  RestoreCheckpointFile(rb, before_changes);
  rb.Start();
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch(events), "[(1,'insert'),(1,'delete'),(2,'insert')]")
      << "the replay must add the missing insert and nothing else";
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
