// CheckpointTracker: turns the reader's stream of transaction boundaries into the newest
// checkpoint that is safe to save.
//
// The reader reports every transaction boundary (the position just after its commit event, the
// version the next row change will get, and the transaction's GTID). A boundary is safe once
// every row change before it is in ClickHouse, i.e. once its next_version is at most the lowest
// version still buffered or in flight (`lowest_unflushed`). Advance() applies the safe boundaries
// in order, accumulating GTIDs into the executed set (MySQL) or position (MariaDB).
//
// GTIDs are only ever added to a whole GTID state: a set that holds only the transactions read
// since some position would make a resume by GTID replay everything before them (MySQL sends
// every transaction not in the set). A tracker that starts without a GTID state (after an initial
// copy, which hands over a binlog position) therefore leaves the checkpoint without one, to
// resume by file:pos, until a binlog file starts: its PREVIOUS_GTIDS (MySQL) or GTID_LIST
// (MariaDB) event states the whole state there, and GTIDs are added to it from then on.
//
// Tables stopped by a schema change are attached to the next boundary, so a checkpoint lists a
// table as stopped only when its position is past the stop (replaying from an earlier checkpoint
// must still apply the table's rows before the stop).
//
// Schema history snapshots (taken by the reader right after a DDL) join the checkpoint the same
// way: a checkpoint at or past the DDL carries the history with it, one before it the older one.
//
// Tables that join the stream mid-way (created under a matched name) join replicated_tables at
// once: a replay from an older checkpoint meets their creation again. A table_starts entry is
// dropped once the checkpoint reaches its position: no replay can then go back before it.
//
// A target table renamed after a source RENAME TABLE joins at once too (and its new name joins
// created_targets); the record is dropped once the checkpoint is past the RENAME, and only then
// does the old name leave created_targets (a replay from before it may have to rename the table
// again, which only rowbridge's own tables are), unless rowbridge created a table of that name
// again meanwhile.
//
// A target alias (a renamed table writing into its old name's target, state::TargetAlias) joins at
// once too; its end is recorded when the table leaves the name, and the record is dropped once the
// checkpoint is past that end.
//
// A hold (AddHold) keeps the checkpoint before a transaction whose repair has yet to run
// (pipeline/cascade_repairs.h): no boundary whose next_version is above a held version is applied
// until ReleaseHold, whatever ClickHouse already holds.
//
// Not thread-safe; the pipeline calls it under its buffer lock. Each boundary costs no heap
// allocation (file names are interned).
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/gtid_set.h"
#include "state/checkpoint.h"

namespace rowbridge::pipeline {

struct TransactionGtid {
  state::GtidFlavor flavor = state::GtidFlavor::kNone;
  mysql::Uuid uuid;  // MySQL
  std::string tag;   // MySQL 8.4 tagged GTIDs; usually empty
  uint64_t gno = 0;
  mysql::MariadbGtid mariadb;  // MariaDB

  // "3e11fa47-71ca-11e1-9e33-c80aa9429562:23" (MySQL, with ":tag" before the number when
  // tagged), "0-1-42" (MariaDB); empty when the transaction has none.
  std::string Describe() const;
};

class CheckpointTracker {
 public:
  // Starts from the checkpoint the reader resumes at.
  explicit CheckpointTracker(const state::Checkpoint& start);

  // The binlog file following boundaries are in (after a ROTATE).
  void SetFile(std::string_view file);
  void AddBoundary(uint64_t position, uint64_t next_version, const TransactionGtid& gtid);
  // The whole GTID state at the start of a binlog file (before the next boundary); see above.
  void SetFileGtidState(state::GtidFlavor flavor, std::string state);
  // Records a stopped table; it joins the checkpoint with the next boundary.
  void AddStop(state::StoppedTable stop);
  // The schema history as of the position of the next boundary (SchemaHistory::ToJson()).
  void AddSchemaHistory(std::string json);
  // A target table rowbridge created; it joins the checkpoint at once.
  void AddCreatedTarget(const std::string& label);
  // A source table whose changes the stream covers from now on; it joins the checkpoint at once.
  void AddReplicatedTable(const std::string& label);
  // A table of the copy in progress (the checkpoint's table_copy) handed over to the stream: it
  // leaves table_copy and joins replicated_tables and table_starts at once.
  void AddTableStart(state::TableStart start);
  // The copy in progress (table_copy) was given up; it leaves the checkpoint at once.
  void ClearTableCopy();
  // Tables rowbridge made and no longer needs (state::Checkpoint::targets_to_drop): they join the
  // checkpoint at once, and leave it once dropped.
  void AddTargetsToDrop(const std::vector<std::string>& labels);
  void RemoveTargetsToDrop(const std::vector<std::string>& labels);
  // A table paused by the operator: it joins the checkpoint at once (its rows up to the pause are
  // in ClickHouse, so a replay from an earlier checkpoint need not write them).
  void AddStopNow(state::StoppedTable stop);
  // A stopped table streams again (its resnapshot was handed over): it leaves stopped_tables at
  // once, and a stop of it not yet in the checkpoint never joins it.
  void RemoveStop(const std::string& database, const std::string& table);
  // An operator's command recorded while no `run` ran (state::PendingCommand) was carried out or
  // refused: it leaves the checkpoint at once.
  void RemovePendingCommand(const std::string& table);
  // A copy the stream itself needs (Session::CopyAgain), kept like an operator's command until
  // it begins; nothing when `command.table` has a command recorded already.
  void AddPendingCommand(state::PendingCommand command);
  // The repair of `table` is done (or given up): it leaves the checkpoint at once.
  void RemoveTableRepair(const std::string& table);
  // A target table about to be renamed (see above); it joins the checkpoint at once.
  void AddTargetRename(state::TargetRename rename);
  // A renamed table writes into its old name's target (see above); it joins at once. The same
  // alias recorded again (a replay meets its RENAME again) is kept once.
  void AddTargetAlias(state::TargetAlias alias);
  // The alias `ended` (table, file, position) ends where it says (until_file:until_position).
  void EndTargetAlias(const state::TargetAlias& ended);

  // Keeps the checkpoint at or before the boundary whose next_version is `version` or below, until
  // ReleaseHold(version) (holds may repeat; each release ends one).
  void AddHold(uint64_t version) { holds_.insert(version); }
  void ReleaseHold(uint64_t version) {
    if (auto it = holds_.find(version); it != holds_.end()) holds_.erase(it);
  }

  // Applies every boundary whose next_version <= lowest_unflushed (and no held version). True if
  // the checkpoint moved (or gained a created target since the last call).
  bool Advance(uint64_t lowest_unflushed);
  // The newest safe checkpoint (GTID text refreshed by Advance).
  const state::Checkpoint& checkpoint() const { return checkpoint_; }
  size_t pending() const { return boundaries_.size(); }

 private:
  // After the position moved: the table starts, target renames and ended aliases it is past
  // leave the checkpoint (a replay from it no longer meets them).
  void DropPassedRecords();
  struct Boundary {
    uint32_t file_index;
    uint64_t position;
    uint64_t next_version;
    TransactionGtid gtid;
    size_t stops_end;  // stops_[0, stops_end) belong to this or earlier boundaries
    size_t schemas_end;
    size_t file_states_end;
  };

  struct FileGtidState {
    state::GtidFlavor flavor;
    std::string state;
  };

  state::Checkpoint checkpoint_;
  mysql::MysqlGtidSet mysql_gtids_;
  mysql::MariadbGtidPosition mariadb_gtids_;
  bool gtids_whole_ = false;               // the sets above hold a whole GTID state
  std::deque<FileGtidState> file_states_;  // not yet applied
  size_t file_states_applied_ = 0;
  size_t file_states_added_ = 0;
  std::vector<std::string> files_;  // interned file names; boundaries refer by index
  std::deque<Boundary> boundaries_;
  std::deque<state::StoppedTable> stops_;  // not yet in checkpoint_
  size_t stops_applied_ = 0;               // stops_ entries popped so far (for stops_end offsets)
  size_t stops_added_ = 0;
  std::deque<std::string> schemas_;  // not yet in checkpoint_
  size_t schemas_applied_ = 0;
  bool created_targets_changed_ = false;  // or replicated_tables
  size_t schemas_added_ = 0;
  std::multiset<uint64_t> holds_;
};

}  // namespace rowbridge::pipeline
