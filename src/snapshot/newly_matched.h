// The copy of tables that the rules match but the stream does not cover yet: `rowbridge run`
// starting from a checkpoint after a rule was added or widened (docs/running.md, "Tables matched
// later").
//
// The stream of the tables it covers resumes at the checkpoint C as always and keeps running; the
// new tables are copied alongside it, on their own connections, with the chunked watermark copy of
// the initial snapshot (snapshot_runner.h), up to a transaction boundary E, and handed over: the
// stream's reader, between two transactions at P <= E, records per copied table "start at E"
// (state::Checkpoint::table_starts) and ignores the table's rows before E. Until then the stream
// ignores the tables altogether. A stream already past E declines, and the copy catches its tables
// up to a later E and offers again (pipeline/hand_over_desk.h).
//
// Versions: the copy takes the band [V, V + 2^48) where V is C's next_version, and the stream's
// next_version moves to V + 2^48, so every copied row sits below every later change of its key
// and no copied version is ever taken for a replayed one. Moving the versions at C is only safe
// when ClickHouse holds no change after C (a clean stop, or a crash during this very copy): that
// is checked, and a target holding versions >= V stops the start with a message saying what to do.
// The held-back tables' changes take no versions in the stream, before or after the hand-over
// (their rows before E), so a replay from any checkpoint hands out the same versions again.
//
// Durability: before the first chunk the checkpoint records the copy
// (state::Checkpoint::table_copy: the tables and V) together with the moved next_version; the
// copy's own progress is kept like the initial copy's (job "<job>-tables-<V>"), so a crash resumes
// it; the hand-over saves the checkpoint that records the table starts, adds the tables to
// replicated_tables and clears table_copy, before the stream reads on.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "config/config.h"
#include "config/target_template.h"
#include "mysql/source_check.h"
#include "server/metrics.h"
#include "server/status.h"
#include "snapshot/snapshot_state.h"
#include "state/checkpoint.h"
#include "state/state_store.h"

namespace rowbridge::snapshot {

// Finds the matched source tables `checkpoint` (loaded from `store`) does not cover yet and records
// their copy (checkpoint.table_copy, with the moved next_version; saved), or finds the copy the
// checkpoint records already (an interrupted one, resumed). Returns the copy to run; nullopt when
// there is none, snapshot.enabled is false, or the checkpoint has no replicated_tables (saved by
// an older version).
std::optional<state::TableCopy> PendingTableCopy(const config::Config& config,
                                                 state::StateStore& store,
                                                 state::Checkpoint& checkpoint);

// Runs the copy `checkpoint` records (table_copy) while the stream runs from that checkpoint with
// the copied tables held back (pipeline::PipelineOptions::copy_alongside), and ends by offering
// them to the stream with `hand_over` (SnapshotOptions::hand_over): the stream then records their
// start and saves the checkpoint. Returns false when `stop` was set before the stream took them
// (the next start resumes the copy). Throws the copy's errors.
bool CopyTablesAlongside(const config::Config& config, const state::Checkpoint& checkpoint,
                         const std::string& store_description, server::MetricsRegistry& metrics,
                         server::StatusBoard& status, const std::atomic<bool>* stop,
                         const std::function<bool(const BinlogPoint& end)>& hand_over);

// The source tables ("db.table") whose changes the stream of `checkpoint` covers: replicated,
// started after a copy, or stopped (paused too). Empty when the checkpoint has no
// replicated_tables (saved by an older version).
std::set<std::string> CoveredTables(const state::Checkpoint& checkpoint);

// "db.table" split; Error(kInternal) without a dot.
config::QualifiedName SplitLabel(const std::string& label);
// The table a resnapshot copies `target` into before it takes its place.
config::QualifiedName FreshTargetName(const config::QualifiedName& target);
// Drops the fresh tables ("db.table", DROP TABLE IF EXISTS) of a copy that no checkpoint names any
// more: their rows are of a copy that will never take a target's place. Throws what ClickHouse
// throws.
void DropFreshTables(const config::Config& config, const std::vector<std::string>& fresh);

// Whether the stream of `checkpoint` covers `table` ("db.table"): replicated or stopped. A table
// renamed later in the binlog than the checkpoint is not covered under its new name until the
// stream reads the RENAME.
bool StreamCovers(const state::Checkpoint& checkpoint, const std::string& table);

// Why `table` ("db.table") cannot be copied again now, given the last checkpoint; empty when it
// can: matched by a rule that creates tables, covered by the stream (replicated or stopped), and
// no other copy running.
std::string ResnapshotRefusal(const config::Config& config, const state::Checkpoint& checkpoint,
                              const std::string& table);

// Why `table` cannot be paused now; empty when it can: streamed, and neither stopped nor paused.
std::string PauseRefusal(const state::Checkpoint& checkpoint, const std::string& table);

// Why stopped or paused `table` cannot be resumed now; empty when it can.
std::string ResumeRefusal(const state::Checkpoint& checkpoint, const std::string& table);

// `rowbridge resume`: records in `checkpoint` (saved by a clean stop of the stream) a "copy" of the
// stopped `table` that copies no rows and applies its changes from its stop position on to its
// target (SnapshotOptions::window_only_from), with the stream's next_version moved above that
// band, and saves it. The table stays stopped in the checkpoint until the stream takes it over.
// Refused (Error(kInvalidArgument)) when the source no longer has the binlog file it stopped in.
void BeginResume(const config::Config& config, state::StateStore& store,
                 state::Checkpoint& checkpoint, const std::string& table);

// `rowbridge resnapshot`: records in `checkpoint` (saved by a clean stop of the stream, so
// ClickHouse holds no change after it) a copy of `table` again into a fresh target
// (FreshTargetName; a stale one is dropped), with the stream's next_version moved above the copy's
// band, and saves it. The stream then goes on writing into the table's target while the copy runs
// alongside, until the hand-over puts the fresh table in its place (pipeline/hand_over_desk.h).
// Throws Error(kInvalidArgument) with ResnapshotRefusal's reason.
void BeginResnapshot(const config::Config& config, state::StateStore& store,
                     state::Checkpoint& checkpoint, const std::string& table);

// Why `table`'s copy cannot go into a fresh target that takes its rules' target's place; empty
// when it can: matched by a rule that creates tables, on a target that is not a cluster.
std::string FreshCopyRefusal(const config::Config& config, const std::string& table);

// The copy of tables matched later that `checkpoint` records (table_copy), which a schema change
// raced, begun again (saved by a clean stop of the stream): each table into a fresh target built
// from its current columns (the target the first attempt made has the old ones; a stale fresh
// table is dropped), with the stream's next_version moved above the new band. The tables stay held
// back until the hand-over puts each fresh table in its target's place (TableCopy::matched_later).
// Throws Error(kInvalidArgument) with FreshCopyRefusal's reason, before changing anything.
void BeginMatchedLaterAgain(const config::Config& config, state::StateStore& store,
                            state::Checkpoint& checkpoint);

// `source.on_purged_position: recopy`: `checkpoint` resumes from a binlog the source purged. It is
// moved to `now` (the source's current end; `schema_history` is the history valid there), and
// every table it covers (streamed, stopped or paused, or being copied) is copied again alongside
// the stream in one copy, each into a fresh target that takes the old one's place once complete,
// as a resnapshot does; stopped and paused tables stream again from then. The stream meanwhile
// writes their changes from `now` on into the old targets, which readers keep seeing until the
// hand-over. Saved at once. Throws Error(kConfig), before changing anything, when a covered table
// cannot be copied so (its rule says create_table: false, or no rule matches it any more).
void BeginRecopy(const config::Config& config, state::StateStore& store,
                 state::Checkpoint& checkpoint, const mysql::BinlogPosition& now,
                 std::string schema_history);

}  // namespace rowbridge::snapshot
