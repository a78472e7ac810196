#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "pipeline/checkpoint_tracker.h"
#include "schema/schema_history.h"
#include "state/checkpoint.h"
#include "state/state_store.h"

namespace rowbridge::pipeline {
namespace {

state::Checkpoint Sample() {
  state::Checkpoint c;
  c.file = "mysql-bin.000003";
  c.position = 1234;
  c.gtid_flavor = state::GtidFlavor::kMariadb;
  c.gtid = "0-1-42";
  c.next_version = 77;
  c.stopped_tables.push_back({"shop", "orders", "mysql-bin.000003:900", "ALTER TABLE \"x\""});
  return c;
}

TEST(PipelineCheckpoint, JsonRoundTrip) {
  const state::Checkpoint c = Sample();
  EXPECT_EQ(state::Checkpoint::FromJson(c.ToJson(), "test"), c);
  EXPECT_EQ(c.Describe(), "mysql-bin.000003:1234 (gtid 0-1-42)");
}

TEST(PipelineCheckpoint, CarriesTheSchemaHistoryAndCreatedTargets) {
  schema::SchemaHistory history;
  schema::TableSchema t;
  t.name = {"shop", "orders"};
  binlog::ColumnDef id;
  id.name = "id";
  id.type = binlog::ColumnType::kLong;
  id.wire_type = binlog::ColumnType::kLong;  // as the DDL parser and information_schema set them
  id.signedness_known = true;
  id.is_primary_key = true;
  t.columns.push_back(id);
  t.primary_key = {0};
  history.Seed(t, {"mysql-bin.000003", 4});
  state::Checkpoint c = Sample();
  c.schema_history = history.ToJson();
  c.created_targets = {"dst.orders"};
  const state::Checkpoint back = state::Checkpoint::FromJson(c.ToJson(), "test");
  EXPECT_EQ(back, c);
  const schema::SchemaHistory loaded = schema::SchemaHistory::FromJson(back.schema_history, "t");
  const schema::SchemaVersion* v = loaded.SchemaAt({"shop", "orders"}, {"mysql-bin.000003", 900});
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->schema, t);
}

TEST(PipelineCheckpoint, CheckpointsOfOlderVersionsStayLoadable) {
  const state::Checkpoint c = state::Checkpoint::FromJson(
      R"({"file":"f.000001","position":4,"gtid_flavor":"none","gtid":"","next_version":3,)"
      R"("stopped_tables":[]})",
      "t");
  EXPECT_TRUE(c.schema_history.empty());
  EXPECT_TRUE(c.created_targets.empty());
  EXPECT_FALSE(c.replicated_tables.has_value());
  EXPECT_TRUE(c.table_starts.empty());
  EXPECT_FALSE(c.table_copy.has_value());
  EXPECT_TRUE(c.target_renames.empty());
  EXPECT_TRUE(c.target_aliases.empty());
  EXPECT_TRUE(c.pending_commands.empty());
  EXPECT_TRUE(c.table_repairs.empty());
  EXPECT_EQ(c.next_version, 3u);
}

TEST(PipelineCheckpoint, CarriesReplicatedTablesAndTableCopies) {
  state::Checkpoint c = Sample();
  c.replicated_tables = std::vector<std::string>{"shop.a", "shop.b"};
  c.table_starts.push_back({"shop.b", "mysql-bin.000004", 99, "", false});
  c.table_starts.push_back({"shop.d", "mysql-bin.000004", 120, "ch.d_rowbridge_fresh", true});
  c.table_copy = state::TableCopy{1000, {"shop.c"}, {"ch.c_rowbridge_fresh"}, {}};
  c.stopped_tables.push_back({"shop", "p", "mysql-bin.000004:200", "paused by the operator", true});
  c.target_renames.push_back({"ch.logs", "ch.events_log", "mysql-bin.000004", 120});
  c.target_aliases.push_back({"shop.b2", "ch.merged", "mysql-bin.000004", 130, "", 0});
  c.target_aliases.push_back({"shop.c2", "ch.c", "mysql-bin.000004", 140, "mysql-bin.000005", 7});
  c.pending_commands.push_back({"shop.q", "pause", "2026-12-03T11:00:00Z"});
  c.pending_commands.push_back({"shop.a", "resnapshot", "2026-12-03T11:00:01Z"});
  c.table_repairs.push_back({"shop.b", 5000, "2026-12-03T11:00:02Z"});
  c.table_repairs.push_back({"shop.e", 5000, "2026-12-03T11:00:03Z"});
  const state::Checkpoint back = state::Checkpoint::FromJson(c.ToJson(), "test");
  EXPECT_EQ(back, c);
  ASSERT_NE(back.FindPending("shop.a"), nullptr);
  EXPECT_EQ(back.FindPending("shop.a")->action, "resnapshot");
  EXPECT_EQ(back.FindPending("shop.b"), nullptr);
  ASSERT_NE(back.FindRepair("shop.e"), nullptr);
  EXPECT_EQ(back.FindRepair("shop.e")->version_base, 5000u);
  EXPECT_EQ(back.FindRepair("shop.a"), nullptr);
  c.replicated_tables = std::vector<std::string>{};  // an empty list is not "unknown"
  EXPECT_TRUE(state::Checkpoint::FromJson(c.ToJson(), "test").replicated_tables.has_value());
}

// Tables matched later copied again into fresh tables (a schema change raced their first copy)
// are still tables matched later: held back by the stream, not a resnapshot of streamed tables.
TEST(PipelineCheckpoint, AMatchedLaterCopyIntoFreshTablesKeepsItsKind) {
  state::Checkpoint c = Sample();
  c.table_copy = state::TableCopy{1000, {"shop.c"}, {"ch.c_rowbridge_resnapshot"}, {}};
  EXPECT_EQ(c.table_copy->kind(), state::TableCopy::Kind::kResnapshot);
  c.table_copy->matched_later = true;
  EXPECT_EQ(c.table_copy->kind(), state::TableCopy::Kind::kMatchedLater);
  const state::Checkpoint back = state::Checkpoint::FromJson(c.ToJson(), "test");
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.table_copy->kind(), state::TableCopy::Kind::kMatchedLater);
  EXPECT_EQ(back.table_copy->fresh_targets, c.table_copy->fresh_targets);
}

TEST(PipelineCheckpoint, RejectsGarbage) {
  EXPECT_THROW(state::Checkpoint::FromJson("{", "t"), Error);
  EXPECT_THROW(state::Checkpoint::FromJson("{\"file\":\"\",\"position\":1}", "t"), Error);
  EXPECT_THROW(
      state::Checkpoint::FromJson(
          R"({"file":"f","position":4,"gtid_flavor":"x","gtid":"","next_version":1})", "t"),
      Error);
  try {
    state::Checkpoint::FromJson("[1]", "checkpoint file /x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    EXPECT_NE(std::string(e.what()).find("checkpoint file /x"), std::string::npos);
  }
}

TEST(PipelineCheckpointTracker, AdvancesOnlyToFlushedBoundaries) {
  state::Checkpoint start;
  start.file = "bin.000001";
  start.position = 4;
  start.gtid_flavor = state::GtidFlavor::kMariadb;
  start.gtid = "0-1-10";
  start.next_version = 100;
  CheckpointTracker t(start);
  TransactionGtid g;
  g.flavor = state::GtidFlavor::kMariadb;
  g.mariadb = {0, 1, 11};
  t.AddBoundary(500, 103, g);  // versions 100..102 before it
  g.mariadb = {0, 1, 12};
  t.SetFile("bin.000002");
  t.AddBoundary(300, 105, g);
  g.mariadb = {1, 2, 5};
  t.AddBoundary(400, 105, g);  // a transaction without rows of replicated tables

  EXPECT_FALSE(t.Advance(100));  // version 100 not flushed
  EXPECT_FALSE(t.Advance(102));
  EXPECT_EQ(t.checkpoint().position, 4u);
  EXPECT_TRUE(t.Advance(103));
  EXPECT_EQ(t.checkpoint().file, "bin.000001");
  EXPECT_EQ(t.checkpoint().position, 500u);
  EXPECT_EQ(t.checkpoint().next_version, 103u);
  EXPECT_EQ(t.checkpoint().gtid, "0-1-11");
  EXPECT_TRUE(t.Advance(1000));
  EXPECT_EQ(t.checkpoint().file, "bin.000002");
  EXPECT_EQ(t.checkpoint().position, 400u);
  EXPECT_EQ(t.checkpoint().next_version, 105u);
  EXPECT_EQ(t.checkpoint().gtid, "0-1-12,1-2-5");
  EXPECT_EQ(t.pending(), 0u);
  EXPECT_FALSE(t.Advance(1000));
}

// A hold (a cascade repair under way) keeps the checkpoint before its transaction, whatever
// ClickHouse holds, until it is released.
TEST(PipelineCheckpointTracker, AHoldKeepsTheCheckpointBeforeItsTransaction) {
  state::Checkpoint start;
  start.file = "bin.000001";
  start.position = 4;
  start.next_version = 100;
  CheckpointTracker t(start);
  TransactionGtid none;
  t.AddBoundary(500, 103, none);  // versions 100..102
  t.AddHold(104);                 // the parent's change in the next transaction
  t.AddBoundary(600, 106, none);  // versions 103..105
  t.AddBoundary(700, 108, none);
  EXPECT_TRUE(t.Advance(1000));
  EXPECT_EQ(t.checkpoint().position, 500u);
  EXPECT_EQ(t.checkpoint().next_version, 103u);
  t.AddHold(104);  // the same transaction held twice (two jobs): each release ends one
  t.ReleaseHold(104);
  EXPECT_FALSE(t.Advance(1000));
  EXPECT_EQ(t.checkpoint().position, 500u);
  t.ReleaseHold(104);
  EXPECT_TRUE(t.Advance(1000));
  EXPECT_EQ(t.checkpoint().position, 700u);
  EXPECT_EQ(t.checkpoint().next_version, 108u);
}

TEST(PipelineCheckpointTracker, MysqlGtidsAccumulate) {
  state::Checkpoint start;
  start.file = "binlog.000001";
  start.position = 4;
  start.gtid_flavor = state::GtidFlavor::kMysql;
  start.gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5";
  CheckpointTracker t(start);
  TransactionGtid g;
  g.flavor = state::GtidFlavor::kMysql;
  g.uuid = mysql::Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  g.gno = 6;
  t.AddBoundary(100, 1, g);
  g.gno = 7;
  t.AddBoundary(200, 1, g);
  EXPECT_TRUE(t.Advance(1));
  EXPECT_EQ(t.checkpoint().gtid, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7");
}

// After an initial copy the stream starts from a position without a GTID state. A set built
// from the GTIDs read since then would make a resume by GTID replay every older transaction, so
// the checkpoint holds no GTID (it resumes by file:pos) until a file's PREVIOUS_GTIDS states the
// whole set, which later GTIDs extend.
TEST(PipelineCheckpointTracker, MysqlGtidsAreOnlyAddedToAWholeSet) {
  state::Checkpoint start;
  start.file = "binlog.000001";
  start.position = 900;
  CheckpointTracker t(start);
  TransactionGtid g;
  g.flavor = state::GtidFlavor::kMysql;
  g.uuid = mysql::Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  g.gno = 4801;
  t.AddBoundary(1000, 1, g);
  EXPECT_TRUE(t.Advance(1));
  EXPECT_EQ(t.checkpoint().position, 1000u);
  EXPECT_EQ(t.checkpoint().gtid_flavor, state::GtidFlavor::kNone);
  EXPECT_EQ(t.checkpoint().gtid, "");

  t.SetFileGtidState(state::GtidFlavor::kMysql, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-4802");
  t.SetFile("binlog.000002");
  g.gno = 4803;
  t.AddBoundary(300, 2, g);
  EXPECT_TRUE(t.Advance(2));
  EXPECT_EQ(t.checkpoint().file, "binlog.000002");
  EXPECT_EQ(t.checkpoint().gtid_flavor, state::GtidFlavor::kMysql);
  EXPECT_EQ(t.checkpoint().gtid, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-4803");
}

// A file's GTID state applies from the boundaries after it: a checkpoint still in the file before
// must not claim that file's later transactions.
TEST(PipelineCheckpointTracker, AFileGtidStateAppliesOnlyAfterItsPlace) {
  state::Checkpoint start;
  start.file = "bin.000001";
  start.position = 4;
  CheckpointTracker t(start);
  TransactionGtid g;
  g.flavor = state::GtidFlavor::kMariadb;
  g.mariadb = {0, 1, 50};
  t.AddBoundary(500, 5, g);
  t.SetFileGtidState(state::GtidFlavor::kMariadb, "0-1-60");
  t.SetFile("bin.000002");
  g.mariadb = {0, 1, 61};
  t.AddBoundary(300, 7, g);
  EXPECT_TRUE(t.Advance(5));
  EXPECT_EQ(t.checkpoint().position, 500u);
  EXPECT_EQ(t.checkpoint().gtid, "");
  EXPECT_TRUE(t.Advance(7));
  EXPECT_EQ(t.checkpoint().gtid, "0-1-61");
}

// A tracker that has a whole state keeps it: a file's own state adds nothing.
TEST(PipelineCheckpointTracker, AWholeStateIsKeptAcrossFiles) {
  state::Checkpoint start;
  start.file = "bin.000001";
  start.position = 4;
  start.gtid_flavor = state::GtidFlavor::kMariadb;
  start.gtid = "0-1-10,1-2-3";
  CheckpointTracker t(start);
  t.SetFileGtidState(state::GtidFlavor::kMariadb, "0-1-10");
  t.SetFile("bin.000002");
  TransactionGtid g;
  g.flavor = state::GtidFlavor::kMariadb;
  g.mariadb = {0, 1, 11};
  t.AddBoundary(300, 1, g);
  EXPECT_TRUE(t.Advance(1));
  EXPECT_EQ(t.checkpoint().gtid, "0-1-11,1-2-3");
}

// How a stop message names the transaction of a statement.
TEST(PipelineTransactionGtid, DescribesEachFlavor) {
  TransactionGtid g;
  EXPECT_EQ(g.Describe(), "");
  g.flavor = state::GtidFlavor::kMysql;
  g.uuid = mysql::Uuid::Parse("3E11FA47-71CA-11E1-9E33-C80AA9429562");
  g.gno = 23;
  EXPECT_EQ(g.Describe(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:23");
  g.tag = "pt";
  EXPECT_EQ(g.Describe(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:pt:23");
  g = {};
  g.flavor = state::GtidFlavor::kMariadb;
  g.mariadb = {0, 1, 977};
  EXPECT_EQ(g.Describe(), "0-1-977");
}

TEST(PipelineCheckpointTracker, StopsJoinTheCheckpointWithTheNextBoundary) {
  state::Checkpoint start;
  start.file = "b.000001";
  start.position = 4;
  CheckpointTracker t(start);
  t.AddBoundary(100, 5, {});
  t.AddStop({"db", "t", "b.000001:150", "ALTER"});
  t.AddBoundary(200, 9, {});
  EXPECT_TRUE(t.Advance(5));
  EXPECT_TRUE(t.checkpoint().stopped_tables.empty());  // position 100 is before the stop
  EXPECT_TRUE(t.Advance(9));
  ASSERT_EQ(t.checkpoint().stopped_tables.size(), 1u);
  EXPECT_EQ(t.checkpoint().stopped_tables[0].table, "t");
}

TEST(PipelineCheckpointTracker, SchemaHistoryJoinsTheCheckpointAtItsBoundary) {
  state::Checkpoint start;
  start.file = "b.000001";
  start.position = 4;
  start.schema_history = "{\"old\":1}";
  CheckpointTracker t(start);
  t.AddBoundary(100, 5, {});
  t.AddSchemaHistory("{\"new\":1}");  // a DDL at 150
  t.AddBoundary(200, 5, {});
  t.AddCreatedTarget("dst.b");
  t.AddCreatedTarget("dst.a");
  t.AddCreatedTarget("dst.b");
  EXPECT_EQ(t.checkpoint().created_targets, (std::vector<std::string>{"dst.a", "dst.b"}));
  EXPECT_TRUE(t.Advance(4));
  EXPECT_EQ(t.checkpoint().position, 4u);
  EXPECT_EQ(t.checkpoint().schema_history, "{\"old\":1}");
  // Both boundaries have next_version 5: they are applied together, the DDL's history with them.
  EXPECT_TRUE(t.Advance(5));
  EXPECT_EQ(t.checkpoint().position, 200u);
  EXPECT_EQ(t.checkpoint().schema_history, "{\"new\":1}");
}

TEST(PipelineCheckpointTracker, TableStartsAreDroppedOnceTheCheckpointPassesThem) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  start.table_starts.push_back({"db.b", "mysql-bin.000001", 500, "", false});
  start.table_starts.push_back({"db.c", "mysql-bin.000002", 50, "", false});
  CheckpointTracker t(start);
  t.AddBoundary(400, 11, {});
  t.AddBoundary(500, 12, {});
  ASSERT_TRUE(t.Advance(11));
  EXPECT_EQ(t.checkpoint().table_starts.size(), 2u) << "400 is before both starts";
  ASSERT_TRUE(t.Advance(12));
  ASSERT_EQ(t.checkpoint().table_starts.size(), 1u) << "500 reaches db.b's start";
  EXPECT_EQ(t.checkpoint().table_starts[0].table, "db.c");
  t.SetFile("mysql-bin.000002");
  t.AddBoundary(60, 13, {});
  ASSERT_TRUE(t.Advance(13));
  EXPECT_TRUE(t.checkpoint().table_starts.empty());
}

TEST(PipelineCheckpointTracker, TargetRenamesJoinAtOnceAndLeaveOncePassed) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  start.created_targets = {"ch.logs"};
  CheckpointTracker t(start);
  t.AddBoundary(300, 11, {});
  t.AddTargetRename({"ch.logs", "ch.events_log", "mysql-bin.000001", 300});
  // Saved at once, at the old position: a replay from 100 meets the RENAME at 300 again, and may
  // have to rename ch.logs, which is rowbridge's until then.
  ASSERT_TRUE(t.Advance(10));
  EXPECT_EQ(t.checkpoint().position, 100u);
  ASSERT_EQ(t.checkpoint().target_renames.size(), 1u);
  EXPECT_EQ(t.checkpoint().created_targets, (std::vector<std::string>{"ch.events_log", "ch.logs"}));
  // A boundary at 300 ends the transaction before the RENAME, which a replay still meets.
  ASSERT_TRUE(t.Advance(11));
  EXPECT_EQ(t.checkpoint().position, 300u);
  EXPECT_EQ(t.checkpoint().target_renames.size(), 1u);
  t.AddBoundary(420, 11, {});  // the RENAME's own boundary
  ASSERT_TRUE(t.Advance(11));
  EXPECT_TRUE(t.checkpoint().target_renames.empty());
  EXPECT_EQ(t.checkpoint().created_targets, std::vector<std::string>{"ch.events_log"});
  EXPECT_FALSE(t.Advance(11)) << "nothing changed since";
}

// gh-ost's swap replayed after a kill -9: the targets were renamed before it, so the session
// records neither rename again; passing them must not take `t` from rowbridge's tables.
TEST(PipelineCheckpointTracker, ASwapsRenamesLeaveTheLiveNameRowbridges) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  start.created_targets = {"ch._t_del", "ch._t_gho", "ch.t"};
  start.target_renames = {{"ch.t", "ch._t_del", "mysql-bin.000001", 300},
                          {"ch._t_gho", "ch.t", "mysql-bin.000001", 300}};
  CheckpointTracker t(start);
  t.AddBoundary(420, 11, {});
  ASSERT_TRUE(t.Advance(11));
  EXPECT_TRUE(t.checkpoint().target_renames.empty());
  EXPECT_EQ(t.checkpoint().created_targets, (std::vector<std::string>{"ch._t_del", "ch.t"}));
}

// A table rowbridge created under a name whose earlier table (and target) was renamed away, then
// a kill -9 before the checkpoint passed the rename: the restarted process passes it without
// having seen the creation, and must still count the new target as rowbridge's (it lost the mark,
// and the table stopped at its next schema change).
TEST(PipelineCheckpointTracker, ATargetCreatedAgainAfterARenameKeepsItsMarkAcrossARestart) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  start.created_targets = {"ch.t"};
  CheckpointTracker first(start);
  first.AddTargetRename({"ch.t", "ch._t_old", "mysql-bin.000001", 300});
  first.AddCreatedTarget("ch.t");  // the shadow swapped in under `t`, made anew
  ASSERT_TRUE(first.Advance(10));
  const state::Checkpoint saved =
      state::Checkpoint::FromJson(first.checkpoint().ToJson(), "the saved checkpoint");
  ASSERT_EQ(saved.target_renames.size(), 1u);
  EXPECT_TRUE(saved.target_renames[0].from_created_again);

  CheckpointTracker restarted(saved);
  restarted.AddBoundary(420, 11, {});
  ASSERT_TRUE(restarted.Advance(11));
  EXPECT_TRUE(restarted.checkpoint().target_renames.empty());
  EXPECT_EQ(restarted.checkpoint().created_targets,
            (std::vector<std::string>{"ch._t_old", "ch.t"}));
}

// A kill -9 after the rename was recorded but before the target was renamed: the replay renames
// it and records the same rename again, then creates the old name anew (an unmatched shadow
// swapped in). Passing the rename must keep that new target rowbridge's (unpaced seed 332: the
// table stopped at its next ALTER, "not created by rowbridge").
TEST(PipelineCheckpointTracker, ARenameRecordedAgainByAReplayKeepsTheNameCreatedAgain) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  start.created_targets = {"ch._t_old", "ch.t"};
  start.target_renames = {{"ch.t", "ch._t_old", "mysql-bin.000001", 300}};
  CheckpointTracker t(start);
  t.AddTargetRename({"ch.t", "ch._t_old", "mysql-bin.000001", 300});
  EXPECT_EQ(t.checkpoint().target_renames.size(), 1u);
  t.AddCreatedTarget("ch.t");
  t.AddBoundary(420, 11, {});
  ASSERT_TRUE(t.Advance(11));
  EXPECT_TRUE(t.checkpoint().target_renames.empty());
  EXPECT_EQ(t.checkpoint().created_targets, (std::vector<std::string>{"ch._t_old", "ch.t"}));
}

TEST(PipelineCheckpointTracker, TargetAliasesJoinAtOnceAndLeaveOnceTheirEndIsPassed) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.next_version = 10;
  CheckpointTracker t(start);
  const state::TargetAlias alias{"shop.b", "ch.a", "mysql-bin.000001", 300, "", 0};
  t.AddTargetAlias(alias);
  ASSERT_TRUE(t.Advance(10)) << "saved at once";
  ASSERT_EQ(t.checkpoint().target_aliases.size(), 1u);
  t.AddTargetAlias(alias);  // a replay meets its RENAME again
  EXPECT_EQ(t.checkpoint().target_aliases.size(), 1u);
  EXPECT_FALSE(t.Advance(10));
  // Far past the RENAME, an open alias stays: the table writes there for good.
  t.SetFile("mysql-bin.000002");
  t.AddBoundary(900, 11, {});
  ASSERT_TRUE(t.Advance(11));
  ASSERT_EQ(t.checkpoint().target_aliases.size(), 1u);
  // The table is dropped at 1000: a replay from before that still writes its rows there.
  state::TargetAlias ended = alias;
  ended.until_file = "mysql-bin.000002";
  ended.until_position = 1000;
  t.EndTargetAlias(ended);
  ASSERT_TRUE(t.Advance(11));
  ASSERT_EQ(t.checkpoint().target_aliases.size(), 1u);
  EXPECT_EQ(t.checkpoint().target_aliases[0], ended);
  t.AddBoundary(1000, 11, {});  // just before the DROP
  ASSERT_TRUE(t.Advance(11));
  EXPECT_EQ(t.checkpoint().target_aliases.size(), 1u);
  t.AddBoundary(1100, 11, {});  // the DROP's own boundary
  ASSERT_TRUE(t.Advance(11));
  EXPECT_TRUE(t.checkpoint().target_aliases.empty());
}

TEST(PipelineCheckpointTracker, ReplicatedTablesJoinAtOnce) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  CheckpointTracker t(start);
  t.AddReplicatedTable("db.b");
  t.AddReplicatedTable("db.a");
  t.AddReplicatedTable("db.b");
  EXPECT_TRUE(t.Advance(1)) << "a new table is worth a save without a boundary";
  EXPECT_EQ(t.checkpoint().replicated_tables, (std::vector<std::string>{"db.a", "db.b"}));
  EXPECT_FALSE(t.Advance(1));
}

// A failed copy's fresh tables are named in the checkpoint until dropped (a kill -9 between the
// save that gives the copy up and the DROP left them in ClickHouse for good otherwise).
TEST(PipelineCheckpointTracker, TargetsToDropJoinAtOnceSortedAndLeaveOnceDropped) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  CheckpointTracker t(start);
  t.AddTargetsToDrop({"db.b_rowbridge_resnapshot", "db.a_rowbridge_resnapshot"});
  t.AddTargetsToDrop({"db.b_rowbridge_resnapshot"});
  EXPECT_TRUE(t.Advance(1)) << "the tables to drop are worth a save without a boundary";
  EXPECT_EQ(t.checkpoint().targets_to_drop,
            (std::vector<std::string>{"db.a_rowbridge_resnapshot", "db.b_rowbridge_resnapshot"}));
  EXPECT_EQ(state::Checkpoint::FromJson(t.checkpoint().ToJson(), "test"), t.checkpoint());
  t.RemoveTargetsToDrop({"db.a_rowbridge_resnapshot", "db.c_rowbridge_resnapshot"});
  EXPECT_TRUE(t.Advance(1));
  EXPECT_EQ(t.checkpoint().targets_to_drop,
            (std::vector<std::string>{"db.b_rowbridge_resnapshot"}));
  t.RemoveTargetsToDrop({"db.a_rowbridge_resnapshot"});
  EXPECT_FALSE(t.Advance(1)) << "nothing left the list";
}

// A resnapshot of two tables (on_purged_position: recopy) hands them over one at a time, saving
// in between: the fresh targets must stay parallel to the tables, or that checkpoint would not
// load.
TEST(PipelineCheckpointTracker, AHandedOverResnapshotTableTakesItsFreshTargetAlong) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.replicated_tables = std::vector<std::string>{"db.a", "db.b"};
  start.table_copy = state::TableCopy{
      7, {"db.a", "db.b"}, {"t.a_rowbridge_resnapshot", "t.b_rowbridge_resnapshot"}, {}};
  CheckpointTracker t(start);
  t.AddTableStart({"db.a", "mysql-bin.000001", 500, "t.a_rowbridge_resnapshot", true});
  ASSERT_TRUE(t.checkpoint().table_copy.has_value());
  EXPECT_EQ(t.checkpoint().table_copy->tables, std::vector<std::string>{"db.b"});
  EXPECT_EQ(t.checkpoint().table_copy->fresh_targets,
            std::vector<std::string>{"t.b_rowbridge_resnapshot"});
  const state::Checkpoint saved = state::Checkpoint::FromJson(t.checkpoint().ToJson(), "test");
  EXPECT_EQ(saved.table_copy, t.checkpoint().table_copy);
  t.AddTableStart({"db.b", "mysql-bin.000001", 500, "t.b_rowbridge_resnapshot", true});
  EXPECT_FALSE(t.checkpoint().table_copy.has_value());
}

TEST(PipelineCheckpointTracker, HandedOverTablesLeaveTheCopyAndStartAtItsEnd) {
  state::Checkpoint start;
  start.file = "mysql-bin.000001";
  start.position = 100;
  start.replicated_tables = std::vector<std::string>{"db.a"};
  start.table_copy = state::TableCopy{7, {"db.b", "db.c"}, {}, {}};
  CheckpointTracker t(start);
  t.AddBoundary(200, 11, {});
  t.AddTableStart({"db.b", "mysql-bin.000001", 500, "", false});
  ASSERT_TRUE(t.Advance(10)) << "the hand-over is saved at once, before any boundary";
  EXPECT_EQ(t.checkpoint().position, 100u);
  ASSERT_TRUE(t.checkpoint().table_copy.has_value());
  EXPECT_EQ(t.checkpoint().table_copy->tables, std::vector<std::string>{"db.c"});
  EXPECT_EQ(t.checkpoint().replicated_tables, (std::vector<std::string>{"db.a", "db.b"}));
  ASSERT_EQ(t.checkpoint().table_starts.size(), 1u);
  t.AddTableStart({"db.c", "mysql-bin.000001", 500, "", false});
  ASSERT_TRUE(t.Advance(10));
  EXPECT_FALSE(t.checkpoint().table_copy.has_value()) << "every table of the copy was handed over";
  EXPECT_EQ(t.checkpoint().table_starts.size(), 2u);
  // A replay from 200 still meets the tables' rows before 500, which are in the copy.
  ASSERT_TRUE(t.Advance(11));
  EXPECT_EQ(t.checkpoint().position, 200u);
  EXPECT_EQ(t.checkpoint().table_starts.size(), 2u);
  t.AddBoundary(500, 11, {});
  ASSERT_TRUE(t.Advance(11));
  EXPECT_TRUE(t.checkpoint().table_starts.empty()) << "no replay goes back before the copy's end";
}

TEST(PipelineFileStateStore, SavesAtomicallyAndLoads) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rowbridge-state-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  state::FileStateStore store(dir.string(), "4242");
  EXPECT_FALSE(store.Load().has_value());
  state::Checkpoint c = Sample();
  store.Save(c);  // creates the directory
  EXPECT_EQ(store.Load(), c);
  c.position = 99999;
  store.Save(c);
  EXPECT_EQ(store.Load(), c);
  EXPECT_FALSE(std::filesystem::exists(store.path() + ".tmp"));
  EXPECT_EQ(store.path(), (dir / "rowbridge-4242.checkpoint.json").string());
  std::ofstream(store.path()) << "not json";
  EXPECT_THROW(store.Load(), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rowbridge::pipeline
