// A table's life in the stream beyond its schema changes, at the reader's position between two
// transactions: handed over by the copy that ran alongside (tables matched later, a resnapshot,
// a resume) and paused by the operator. Each works on the stream's catalog of tables
// (TableRouter) and leaves recording to its caller (Pipeline::Session), which saves the
// checkpoint at once.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "pipeline/table_router.h"

namespace rowbridge::pipeline {

// The copy of `name`, held back from the stream until now (tables::ResolverOptions::held_back),
// is complete up to `start`, a transaction boundary at or after `at`: its changes after `start`
// are streamed from now on. Resolves the table as of `at`; a problem stops it.
StreamedTable& AdoptCopiedTable(TableRouter& router, const tables::SourceTableName& name,
                                const schema::BinlogPosition& start,
                                const schema::BinlogPosition& at);

// The resnapshot of `name` is complete up to `start` (at <= start) in ClickHouse table `fresh`:
// the table's buffered rows are written, `before_replace` records the hand-over durably, `fresh`
// takes the place of the table's target (TableResolver::ReplaceWithFresh), and the table, stopped
// or not, streams into it from `start` on. False when the pipeline is stopping.
bool ReplaceTargetWithCopy(TableRouter& router, const tables::SourceTableName& name,
                           const schema::BinlogPosition& start, const config::QualifiedName& fresh,
                           const schema::BinlogPosition& at,
                           const std::function<void(const std::string& target)>& before_replace);

// `rowbridge pause` at `at`: the table's buffered rows are written and it stops there (not
// reported through on_stop: the caller records it at once). nullopt when it is not streaming,
// or the pipeline is stopping.
std::optional<state::StoppedTable> PauseTable(TableRouter& router,
                                              const tables::SourceTableName& name,
                                              const schema::BinlogPosition& at);

// `rowbridge resume`: the stopped table's changes up to `start` were applied by its resume copy
// (at <= start); it streams from `start` on, against its target's columns read again (a problem
// stops it again).
void ResumeTable(TableRouter& router, const tables::SourceTableName& name,
                 const schema::BinlogPosition& start, const schema::BinlogPosition& at);

}  // namespace rowbridge::pipeline
