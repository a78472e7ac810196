// Decision: what a schema change (a DDL statement the source logged) must do to the replicated
// tables, their targets and the checkpoint, as data. The planner (planner.h) makes one from the
// statement and a view of the catalog (catalog_view.h) without any I/O; the pipeline carries it
// out step by step, in order (pipeline/schema_change_executor.h), and records what it did.
//
// A step that needs a server may fail. A step says itself what then happens, so that the whole
// decision is known before anything runs:
//   - DrainTable: the pipeline is stopping; the rest of the decision is not carried out (the
//     statement is met again by the next session, from a checkpoint before it).
//   - AlterTarget, TruncateTarget, DropTarget: a permanent error stops the table (or, for a
//     target left behind, is only warned about); a transient one ends the session.
//   - RenameTarget: a refusal by ClickHouse runs `if_refused` instead of the rest.
// Steps about a table the statement brings under a name (ReplicateUnderName) run against what
// resolving it found: RecordAlias only if the table writes into the alias's target, and
// ReconcileNewName only if the table streams and its schema changes are carried.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "binlog/table_map.h"
#include "schema/catalog.h"
#include "schema/schema_history.h"
#include "state/checkpoint.h"
#include "tables/source_schema.h"

namespace rowbridge::schema_changes {

using tables::SourceTableName;

enum class NoteLevel { kDebug, kInfo, kWarn };

// A line for the log, naming what happened and why.
struct Note {
  NoteLevel level = NoteLevel::kInfo;
  std::string text;
};

// The run ends with Error(kUnsupported) and this message.
struct FailRun {
  std::string message;
};

// The table stops with `reason` (a table the session has not met is stopped under its name).
// `schema_error`: counted as a schema change that could not be applied.
struct StopTable {
  SourceTableName table;
  std::string reason;
  bool schema_error = false;
};

// The table's buffered rows are written before its target changes.
struct DrainTable {
  SourceTableName table;
};

// The target of `table` is brought to `after` (its replicated columns): `renames` (old -> new
// column names) first, then drops of `before`'s columns that `after` lacks, adds and type
// changes. On a permanent error the table stops with `stop_context` + the error.
struct AlterTarget {
  SourceTableName table;
  std::optional<std::vector<binlog::ColumnDef>> before;
  std::vector<binlog::ColumnDef> after;
  std::vector<std::pair<std::string, std::string>> renames;
  std::string stop_context;
};

// The table's known columns become `schema` (the history's, after the statement). `new_plan`:
// the conversion plan is dropped (the columns changed); else only the next TABLE_MAP is checked.
struct SetColumns {
  SourceTableName table;
  schema::TableSchema schema;
  bool new_plan = false;
};

// The table's (replica) target is truncated; a replay writes the rows it finds there again.
struct TruncateTarget {
  SourceTableName table;
  std::string where;
};

// The ClickHouse table `label`, written by `table`, is dropped (on every node of a cluster) and
// leaves the catalog; `done` is logged. On a permanent error, `failure` + the error is the
// table's stop reason (`stop_on_error`: the decision ends there) or a warning (the decision goes
// on).
struct DropTarget {
  SourceTableName table;
  std::string label;
  bool stop_on_error = true;
  std::string failure;
  std::string done;
};

// The table leaves the stream's catalog (dropped or renamed away).
struct RetireTable {
  SourceTableName table;
};

// A stopped table is gone from its name (`what`: "dropped at ...", "renamed to ... at ..."):
// it leaves the catalog and its stop ends.
struct EndStop {
  SourceTableName table;
  std::string what;
};

// What the rest of the pipeline hears about a table (copies waiting for it, the checkpoint's
// list of replicated tables, resnapshots).
struct Announce {
  enum class Kind {
    kDropped,     // `table` was dropped
    kRenamed,     // `table` left its name for `to`
    kReplicated,  // `table` joins the stream mid-way
    kNeedsCopy,   // `table`'s target lacks rows the stream cannot bring (`why`)
  };
  Kind kind = Kind::kReplicated;
  SourceTableName table;
  SourceTableName to;
  std::string why;
};

// The alias that sends `table`'s rows into another target than its rules' ends at `at`.
struct EndAlias {
  SourceTableName table;
  schema::BinlogPosition at;
};

struct Decision;

// The target `rename.from` takes the name `rename.to`, the rename recorded in the checkpoint
// first (and saved), `to` announced as replicated. If ClickHouse refuses the rename, `if_refused`
// is carried out instead of the steps after this one.
struct RenameTarget {
  state::TargetRename rename;
  SourceTableName to;
  std::shared_ptr<const Decision> if_refused;
};

// The table under `name` (rule `rule`) is resolved at `at`; with `follow_target`, it writes into
// that target (its old name's) instead of the rules' target.
struct ReplicateUnderName {
  SourceTableName name;
  int rule = -1;
  schema::BinlogPosition at;
  std::string follow_target;
};

// `alias` is recorded (and saved) if the table resolved by ReplicateUnderName writes into
// alias.target.
struct RecordAlias {
  SourceTableName table;
  state::TargetAlias alias;
};

// The target of the table resolved by ReplicateUnderName is brought to its columns (`before`:
// the columns of the table that had the name just before, whose extra columns are dropped), if
// the table streams and its schema changes are carried.
struct ReconcileNewName {
  SourceTableName name;
  std::optional<std::vector<binlog::ColumnDef>> before;
};

using Step = std::variant<Note, FailRun, StopTable, DrainTable, AlterTarget, SetColumns,
                          TruncateTarget, DropTarget, RetireTable, EndStop, Announce, EndAlias,
                          RenameTarget, ReplicateUnderName, RecordAlias, ReconcileNewName>;

struct Decision {
  std::vector<Step> steps;

  template <typename T>
  void Add(T step) {
    steps.emplace_back(std::move(step));
  }
  void Append(Decision other);
  bool empty() const { return steps.empty(); }
};

// Before deciding, the pipeline resolves the tables a change names that the session has not met
// yet, as they were just before the statement (their target, their columns): a decision is about
// tables the catalog holds.
struct Meet {
  SourceTableName table;
  int rule = -1;
  schema::BinlogPosition at;
  // Only when its rules' target exists; a table that cannot be resolved then is left out with a
  // warning naming `why` (else it stops).
  bool only_existing_target = false;
  std::string why;
};

// One line per step (nested steps indented), for the decision tests and debug logs.
std::string Describe(const Decision& decision);
std::string Describe(const std::vector<Meet>& meets);

}  // namespace rowbridge::schema_changes
