// Checkpoint: where `rowbridge run` resumes. It names a transaction boundary in the source's
// binlog (file:pos, and the GTID state there when the source has one) together with the version
// the next row change gets. The pipeline only ever saves a boundary whose rows, and all rows
// before it, are in ClickHouse; replaying the binlog from it hands out exactly the same versions
// again (docs/architecture.md, "Versions and exactly-once").
//
// It also remembers the tables that were stopped (a schema change rowbridge cannot follow yet):
// they stay stopped across restarts, because their rows after the stop position were not applied.
//
// And the source's schema history (schema/schema_history.h) valid at its position, so rows
// replayed from it are decoded with the schema of their moment, and the target tables rowbridge
// created (their schema changes are applied by default). Checkpoints of older versions lack both
// and stay loadable.
//
// And which source tables its stream covers (replicated_tables), so a start with rules that match
// more tables finds the new ones and copies them (docs/running.md, "Tables matched later"): a
// copy in progress (table_copy) and, per copied table, the position its stream starts at
// (table_starts; the table's changes before it are in the copy).
//
// Serialized as one JSON object (the state stores keep it as text).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::state {

enum class GtidFlavor : uint8_t { kNone, kMysql, kMariadb };

struct StoppedTable {
  std::string database;
  std::string table;
  std::string position;  // "file:pos" of the event that stopped it
  std::string reason;
  // Stopped by an operator's `rowbridge pause` (its rows up to `position` are in ClickHouse).
  bool paused = false;
  bool operator==(const StoppedTable&) const = default;
};

// A table copied after the stream began: its row events before `file:position` are in the copy and
// are not applied (nor given versions). Dropped once the checkpoint is at or past that position.
//
// A table copied again (rowbridge resnapshot) was streamed into its old target until then: its
// changes before the start still take their versions (a replay must hand out the same ones), and
// `fresh_target` names the table its copy went into, which takes the old target's place at the
// start (renamed over it; done again by the next session if a crash came in between).
struct TableStart {
  std::string table;  // db.table
  std::string file;
  uint64_t position = 0;
  std::string fresh_target;  // db.table; empty for a table matched later
  // The table's changes before the start take their versions (a resnapshot, a resume): the
  // stream handed them out when it wrote them, or counted them while the table was stopped.
  bool counted = false;
  bool operator==(const TableStart&) const = default;
};

// A ClickHouse table rowbridge renamed from `from` to `to` ("db.table") because its source table
// was renamed by the statement at file:position. Until the checkpoint is past that statement, a
// replay meets rows of the source table under its old name, whose target is now called `to`: the
// record says where they go. Saved before ClickHouse's RENAME runs, so a crash in between finds
// `from` still there and the replayed statement renames it.
struct TargetRename {
  std::string from;
  std::string to;
  std::string file;
  uint64_t position = 0;
  // rowbridge created a new `from` after this rename (a swap's shadow no rule matched, or a table
  // created under the old name): once the checkpoint is past the rename, `from` stays among the
  // created targets. Kept here, not in memory, so that a restart before then keeps the mark.
  bool from_created_again = false;
  bool operator==(const TargetRename&) const = default;
};

// The same statement's rename of the same target (whatever became of `from` since).
inline bool SameRename(const TargetRename& a, const TargetRename& b) {
  return a.from == b.from && a.to == b.to && a.file == b.file && a.position == b.position;
}

// A source table that writes into a ClickHouse table other than the one the rules name for it:
// it was renamed by the statement at file:position from a table that wrote into `target`, and
// that target could not be renamed with it (rowbridge did not create it, other tables write into
// it, or the new name's rule forbids creating or altering tables). Its rows stay together there,
// across restarts (docs/running.md, "Schema changes"). Saved at once, before a checkpoint past the
// RENAME can be. `until_file:until_position` is where the table left that name (dropped, renamed
// again, copied again into its own target); empty while it has not. A replay from before then
// still writes its rows there; the record is dropped once the checkpoint is past it.
struct TargetAlias {
  std::string table;   // db.table, the source table's (new) name
  std::string target;  // db.table in ClickHouse
  std::string file;
  uint64_t position = 0;
  std::string until_file;
  uint64_t until_position = 0;
  bool operator==(const TargetAlias&) const = default;
};

// A copy of newly matched tables that has begun and not finished: the stream resumes only after
// it. Its rows take versions from [version_base, version_base + 2^48); the checkpoint's
// next_version was moved to version_base + 2^48 when it began.
//
// A resnapshot (rowbridge resnapshot) copies replicated tables again, each into a fresh target
// (`fresh_targets`, in the order of `tables`) while the stream goes on writing into the old one,
// until the hand-over swaps them. Empty for tables matched later.
struct TableCopy {
  uint64_t version_base = 0;
  std::vector<std::string> tables;  // db.table, sorted
  std::vector<std::string> fresh_targets;
  // A resume (rowbridge resume) of stopped or paused tables: no rows are copied; each table's
  // changes from where it stopped ("file:pos", in the order of `tables`) are applied to its own
  // target, then the stream takes it over. Empty otherwise.
  std::vector<std::string> resume_from;
  // Tables matched later whose first copy a schema change raced, copied again into fresh targets
  // (`fresh_targets`) built from their current columns: the stream still holds them back, and
  // the hand-over puts each fresh target in its rules' target's place.
  bool matched_later = false;

  enum class Kind { kMatchedLater, kResnapshot, kResume };
  Kind kind() const {
    return !fresh_targets.empty() && !matched_later ? Kind::kResnapshot
           : !resume_from.empty()                   ? Kind::kResume
                                                    : Kind::kMatchedLater;
  }
  bool operator==(const TableCopy&) const = default;
};

// A table command (`rowbridge pause|resume|resnapshot`) given while no `run` was running: kept in
// the checkpoint until the next `run` has carried it out (or refused it), because only a running
// stream knows where the table's rows in ClickHouse end (a process killed with -9 may have written
// past its last checkpoint). The stream records its own resnapshots here too (a swap from a shadow
// table no rule replicated, a copy a schema change raced), at once, so that kill -9 between the
// cause and the copy's start loses none, and one that waits for a running copy stays here.
struct PendingCommand {
  std::string table;         // db.table
  std::string action;        // "pause", "resume" or "resnapshot"
  std::string requested_at;  // UTC, ISO 8601; for people
  bool operator==(const PendingCommand&) const = default;
};

// A repair in place (`rowbridge check --repair`, `rowbridge repair`) of the target of a streamed
// table: the key ranges where the target differs from the source get the source's rows, and the
// keys only the target has get deletes, written straight into the live target while the stream
// goes on writing into it (check/table_repair.h). The repair's rows take versions from the band
// [version_base, version_base + 2^48), reserved like a copy's when the repair was recorded (a
// clean stop of the stream, so every version in ClickHouse is below it, and the stream's
// next_version moved above it): every change the stream writes after that point outranks what
// the repair writes for its key, whenever either is written. Leaves the checkpoint when done.
struct TableRepair {
  std::string table;  // db.table (a source table; the repair covers its whole target)
  uint64_t version_base = 0;
  std::string requested_at;  // UTC, ISO 8601; for people
  bool operator==(const TableRepair&) const = default;
};

// "copy of tables matched later", "resnapshot", "resume": for messages.
const char* TableCopyKindName(TableCopy::Kind kind);

struct Checkpoint {
  std::string file;       // binlog file name
  uint64_t position = 0;  // offset in `file` just after the boundary's last event
  GtidFlavor gtid_flavor = GtidFlavor::kNone;
  // MySQL: the executed GTID set; MariaDB: the GTID position (one GTID per domain). Empty if the
  // source has none. Only meaningful when gtid_flavor is not kNone.
  std::string gtid;
  uint64_t next_version = 1;  // version of the first row change after the boundary
  std::vector<StoppedTable> stopped_tables;
  // SchemaHistory::ToJson(); empty when the checkpoint has none (written by an older version).
  std::string schema_history;
  // "db.table" of every ClickHouse table rowbridge created, sorted.
  std::vector<std::string> created_targets;
  // "db.table" of every matched source table whose changes the stream covers, sorted. nullopt in
  // checkpoints of older versions (then every table matched at the next start counts as covered).
  std::optional<std::vector<std::string>> replicated_tables;
  std::vector<TableStart> table_starts;
  std::optional<TableCopy> table_copy;
  // In the order the renames were made (a chain a -> b, b -> c follows that order).
  std::vector<TargetRename> target_renames;
  // In the order they were made; at most one per table without an end.
  std::vector<TargetAlias> target_aliases;
  // In the order they were given.
  std::vector<PendingCommand> pending_commands;
  // In the order they run (one after the other).
  std::vector<TableRepair> table_repairs;
  // "db.table" of ClickHouse tables rowbridge made for a copy that failed (its fresh tables),
  // sorted: named in the same save that gives the copy up, dropped after it, and dropped by the
  // next session if a kill -9 came between, so that none stays in ClickHouse for good.
  std::vector<std::string> targets_to_drop;

  // The stopped (or paused) table "db.table"; nullptr when it is not stopped.
  const StoppedTable* FindStopped(std::string_view label) const;
  // The pending command for `label` ("db.table"), if any (there is at most one per table).
  const PendingCommand* FindPending(std::string_view label) const;
  // The recorded repair of `label` ("db.table"), if any.
  const TableRepair* FindRepair(std::string_view label) const;

  // "mysql-bin.000003:1234" (+ " gtid 0-1-42" when known).
  std::string Describe() const;
  std::string ToJson() const;
  // Throws Error(kCorruption) naming `origin` when the text is not a checkpoint.
  static Checkpoint FromJson(std::string_view text, std::string_view origin);
  bool operator==(const Checkpoint&) const = default;
};

const char* GtidFlavorName(GtidFlavor flavor);

// Versions stay below 2^62: a version column may be Int64 (it ends at 2^63), and each copy of
// tables matched later moves the counter up by 2^48. No job hands out 2^62 versions (ten million
// changes a second take 14,000 years), so a larger next version is damage, refused before it wraps.
inline constexpr uint64_t kVersionLimit = uint64_t{1} << 62;

// Throws Error(kCorruption) when `next_version`, the next version of `whose` (e.g. "the checkpoint
// in <store>"), is at or above kVersionLimit; the message ends with `fix`.
void RequireVersionRoom(uint64_t next_version, std::string_view whose, std::string_view fix);

}  // namespace rowbridge::state
