// Table commands while no `run` runs. `rowbridge pause|resume|resnapshot` first ask the running
// `run` over its admin HTTP (cli/tables.h); when none answers, RecordTableCommand checks the
// command against the stored checkpoint as `run` would (a rule matches the table, the table is in
// a state the action applies to, no other copy runs or is pending) and records it there
// (state::PendingCommand). The next `run` hands it to the pipeline once its stream runs, as if it
// came over HTTP, and it stays in the checkpoint until carried out (pipeline.h).
//
// Why not carry it out here: only a running stream knows where a table's rows in ClickHouse end. A
// `run` killed with -9 may have written past its last checkpoint, and a pause or a copy band set
// at the checkpoint would then apply those changes twice.
//
// Recording is refused while a `run` of the job is alive: the source lists a replica with the
// job's server_id (a `run` whose admin HTTP is not reachable from here; the session of one that
// is gone is waited out, up to endpoints::StaleSessionGrace, unless it was this host's and its
// pid is gone), or, with `ha`, another process holds the job's leader lock. With `ha`
// the lock is held while the checkpoint is written, so no `run` starts in between.
//
// One table has at most one pending command. A resume of a table whose pause is pending cancels
// the pause instead of being recorded.
#pragma once

#include <string>

#include "config/config.h"
#include "server/table_commands.h"

namespace rowbridge::cli {

// Records `action` on `table` ("db.table") for the next `run` and returns what was done, for the
// operator. `unreachable` says why no running `run` took it (for the messages). Throws
// Error(kInvalidArgument) when the command is refused, naming why.
std::string RecordTableCommand(const config::Config& config, server::TableAction action,
                               const std::string& table, const std::string& unreachable);

}  // namespace rowbridge::cli
