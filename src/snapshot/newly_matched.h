// The copy of tables that the rules match but the stream does not cover yet: `rowbridge run`
// starting from a checkpoint after a rule was added or widened (docs/running.md, "Tables matched
// later").
//
// The stream of the tables it covers resumes at the checkpoint C as always; the new tables are
// copied first, with the chunked watermark copy of the initial snapshot (snapshot_runner.h), up to
// a position E >= C, and their stream starts at E: the checkpoint records, per copied table,
// "start at E" (state::Checkpoint::table_starts), and the reader ignores the table's rows before E.
//
// Versions: the copy takes the band [V, V + 2^48) where V is C's next_version, and the stream's
// next_version moves to V + 2^48, so every copied row sits below every later change of its key
// and no copied version is ever taken for a replayed one. Moving the versions at C is only safe
// when ClickHouse holds no change after C (a clean stop, or a crash during this very copy): that
// is checked, and a target holding versions >= V stops the start with a message saying what to do.
//
// Durability: before the first chunk the checkpoint records the copy
// (state::Checkpoint::table_copy: the tables and V) together with the moved next_version; the
// copy's own progress is kept like the initial copy's (job "<job>-tables-<V>"), so a crash resumes
// it; when it is done, one checkpoint save records the table starts, adds the tables to
// replicated_tables and clears table_copy.
#pragma once

#include <atomic>

#include "config/config.h"
#include "server/metrics.h"
#include "server/status.h"
#include "state/checkpoint.h"
#include "state/state_store.h"

namespace rowbridge::snapshot {

// Copies every matched source table that `checkpoint` (loaded from `store`) does not cover yet, or
// resumes such a copy, and saves the checkpoint that hands them over to the stream. Does nothing
// when snapshot.enabled is false or the checkpoint has no replicated_tables (saved by an older
// version). Returns false when `stop` was set before the copy finished (the next start resumes it).
bool CopyNewlyMatchedTables(const config::Config& config, state::StateStore& store,
                            state::Checkpoint checkpoint, server::MetricsRegistry& metrics,
                            server::StatusBoard& status, const std::atomic<bool>* stop);

}  // namespace rowbridge::snapshot
