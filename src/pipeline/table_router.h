// TableRouter: decides, per binlog table id, whether rows are replicated and how.
//
// A TABLE_MAP names a table; the router matches it against the rules once per table map
// (config::TableMatcher caches by name) and keeps a Route per table id, so a rows event of a table
// no rule matches costs one hash lookup and is never decoded.
//
// For a matched table the router keeps a StreamedTable: the columns it is known to have, its
// target table, its mapping::ConversionPlan and the batch group it writes into. A table's columns
// are always those the schema history (RouterContext::history, schema/schema_history.h) holds at
// the TABLE_MAP's position, never the live ones; information_schema is read only for a table the
// history does not know (first start, CREATE ... LIKE/SELECT of an unknown table). A plan is built
// for each distinct TABLE_MAP: the TABLE_MAP's own column definitions (the authority for decoding),
// enriched with names, signedness, charsets and labels from the known schema. A column the target
// lacks (added while rowbridge was away) is added before the plan needs it.
//
// A table's target is the rules' one, unless the target renames and aliases in flight
// (RouterContext::target_routes, schema_changes/target_routes.h) send its rows at that position
// elsewhere, or a copy that replaced its target holds its changes until a later position.
//
// The router is also the stream's catalog of tables: schema changes (decided by
// schema_changes::Planner, carried out by SchemaChangeExecutor) and table commands
// (table_lifecycle.h) resolve, stop and retire tables through it. A table that cannot be
// replicated STOPS: its rows are no longer applied, /status and the metrics say why, the stop is
// recorded in the checkpoint, and every other table goes on.
//
// Tables copied after the stream began (RouterContext::table_starts): before its start position a
// table's TABLE_MAPs and rows are ignored (they are in the copy).
//
// table_router.cpp routes and keeps the catalog; table_decoding.cpp makes a table decode a
// TABLE_MAP (its columns there, its target reconciled, its plan).
//
// Used by the session's setup (Prepare) and then by the reader thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "binlog/table_map_cache.h"
#include "common/retry.h"
#include "config/config.h"
#include "mapping/conversion_plan.h"
#include "mapping/ddl.h"
#include "mapping/out_of_range.h"
#include "mysql/connection.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/target_ddl.h"
#include "pipeline/target_state.h"
#include "schema/schema_history.h"
#include "schema_changes/target_routes.h"
#include "server/table_stats.h"
#include "state/checkpoint.h"
#include "tables/replicated_table.h"
#include "tables/source_schema.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::pipeline {

struct CascadeParent;  // pipeline/cascade_repairs.h

// The stream's runtime state of a replicated table: the catalog's record (name, rule, columns,
// target) plus what the reader does with it.
struct StreamedTable : tables::ReplicatedTable {
  TargetState* target_state = nullptr;  // the runtime state of `target`
  std::unique_ptr<server::TableStats> stats;

  // For the TABLE_MAP rows are currently decoded with.
  const binlog::TableInfo* map = nullptr;  // the cache's entry the plan was built for
  std::shared_ptr<const binlog::TableInfo> map_owner;
  std::unique_ptr<binlog::TableInfo> decoded;  // that TABLE_MAP with enriched columns
  std::optional<mapping::ConversionPlan> plan;
  TargetGroup* group = nullptr;
  std::vector<uint32_t> key_columns;  // column indices whose change makes an UPDATE a move

  bool stopped = false;
  std::string stop_reason;
  // Set while the table's rows are still in its copy (RouterContext::table_starts), or in the
  // copy that replaced its target (a table whose target renames lead into a table copied later,
  // e.g. gh-ost's shadow swapped in before a resnapshot of the table that took its name); the
  // reader ignores its rows events before this position and clears it at the first one after.
  std::optional<schema::BinlogPosition> starts_at;
  // The rows before starts_at still take their versions, as they did when the stream wrote them
  // (into a resnapshot's replaced target: RouterContext::counted_starts; into a target a copy
  // replaced later).
  bool counts_before_start = false;
  // Its children whose foreign-key actions the source does not log (pipeline/cascade_repairs.h),
  // decided for schema epoch `cascade_epoch`; nullptr: none.
  const CascadeParent* cascades = nullptr;
  uint64_t cascade_epoch = 0;
};

struct Route {
  const binlog::TableInfo* map = nullptr;  // identity of the TABLE_MAP this route is for
  // Keeps that TABLE_MAP alive, so a later one for the same id cannot reuse its address.
  std::shared_ptr<const binlog::TableInfo> map_owner;
  StreamedTable* table = nullptr;  // nullptr: not replicated
};

// The retry of DDL carried to a target: from 500 ms, doubling up to 5 s, at most 30 s in all
// (the reader waits meanwhile; after that the session restarts with the stream's backoff).
RetryPolicy DdlRetryPolicy();

// How many row changes one byte of binlog can carry at most: a row image takes at least one byte,
// and neither zlib (MariaDB's compressed events, at most about 1:1032) nor zstd (MySQL's
// transaction payloads: a 128 KiB block is at least 4 bytes) shrinks data further than this.
inline constexpr uint64_t kChangesPerBinlogByte = 65536;

struct RouterContext {
  const config::Config* config = nullptr;
  // The replicated-table catalog: targets, keys, conversions, which targets rowbridge created.
  tables::TableResolver* resolver = nullptr;
  // ClickHouse's admin connection, for the DDL the router carries to targets.
  tables::TargetCatalog* targets = nullptr;
  // How DDL on a target is retried after a transient error (DdlRetryPolicy() unless a test says
  // otherwise); a stop request (optional) ends the waiting.
  RetryPolicy ddl_retry = DdlRetryPolicy();
  const std::atomic<bool>* stop = nullptr;
  BatchBuffers* buffers = nullptr;
  // Opens a short-lived connection to the source for information_schema.
  std::function<std::unique_ptr<mysql::Connection>()> connect_source;
  // Makes the metric/status handles of a table.
  std::function<std::unique_ptr<server::TableStats>(const tables::SourceTableName&,
                                                    const tables::TargetTable&)>
      make_stats;
  // Called (buffer lock NOT held) when a table stops; records it for the checkpoint.
  std::function<void(const state::StoppedTable&)> on_stop;
  // Versions >= this are looked up in target tables first seen during the session.
  uint64_t resume_version = 1;
  bool have_checkpoint = true;
  // Above every version a replay from the checkpoint can hand out (each row change takes at least
  // one byte of binlog before compression, and compression shrinks no event by more than
  // kChangesPerBinlogByte). A target holding a version at or above it cannot have been written
  // from this checkpoint: the session refuses to start (Error kCorruption) rather than write
  // changes that would lose against those rows. The bytes and the checkpoint it came from are for
  // the message.
  uint64_t replay_version_limit = ~uint64_t{0};
  uint64_t replay_binlog_bytes = 0;
  std::string checkpoint_description;
  // The session's schema history (required) and where the session starts (where
  // tables the history does not know are seeded from information_schema during Prepare).
  schema::SchemaHistory* history = nullptr;
  schema::BinlogPosition start;
  // Called (buffer lock NOT held) after a DDL changed the history, with the history pruned to
  // the DDL's position: it joins the checkpoint at the DDL's boundary.
  std::function<void(const schema::SchemaHistory&)> on_history;
  // Called (buffer lock NOT held) when a schema change could not be applied.
  std::function<void()> on_schema_error;
  // Called when a column's source DEFAULT is not carried to its target (it was warned about).
  std::function<void(const tables::SourceTableName&, const std::string& column)>
      on_default_not_carried;
  // Tables copied after the stream began, and the position their stream starts at.
  std::map<tables::SourceTableName, schema::BinlogPosition> table_starts;
  // Of the source's tables `listed` now, the matched ones the checkpoint does not cover (or whose
  // columns the schema history lacks at `start`) that statements after `start` create
  // (tables/replay_window.h): the stream meets their creation again, so Prepare gives them no
  // columns at `start`, where they do not exist yet. Prepare asks after listing the source's
  // tables, so that the binlog it reads holds the CREATE or RENAME of every table in the list (one
  // renamed in while the session starts included). Unset: none.
  std::function<std::set<tables::SourceTableName>(
      const std::vector<tables::SourceTableName>& listed)>
      created_in_replay;
  // Those of them copied again by a resnapshot (state::TableStart::fresh_target).
  std::set<tables::SourceTableName> counted_starts;
  // Called (buffer lock NOT held) when a table joins the stream mid-way (created under a matched
  // name, or renamed from a replicated table), with "db.table".
  std::function<void(const std::string&)> on_replicated;
  // Called (buffer lock NOT held) when a table's target lacks rows the stream cannot bring (a
  // table renamed from one no rule replicated, e.g. gh-ost's unmatched shadow swapped in), with
  // "db.table" and why: it is copied again alongside the stream (resnapshot) where that can be.
  std::function<void(const std::string& table, const std::string& why)> on_needs_copy;
  // A table of the stream (also a stopped one) left its name for `to` (RENAME): a copy waiting
  // for `from` follows it.
  std::function<void(const std::string& from, const std::string& to)> on_renamed;
  // A table was dropped (DROP TABLE): a copy waiting for it is dropped, one running is not begun
  // again when it fails.
  std::function<void(const std::string& table)> on_dropped;
  // A stopped table left its name (RENAME or DROP): its stop ends, since no table has the name
  // any more (the renamed table's own target lacking rows is the new name's affair).
  std::function<void(const std::string& table)> on_stop_ended;
  // The target renames and aliases in flight (the checkpoint's target_renames and
  // target_aliases): a table resolved at a position they cover writes where they say.
  schema_changes::TargetRoutes target_routes;
  // Called (buffer lock NOT held) before a target table is renamed: records the rename in the
  // checkpoint and saves it at once, so that a crash after ClickHouse's RENAME replays the old
  // name's rows into the new name instead of creating the old one again.
  std::function<void(const state::TargetRename&)> before_target_rename;
  // Called (buffer lock NOT held) when a renamed table goes on writing into its old name's
  // target: records the alias in the checkpoint and saves it at once, before a checkpoint past
  // the RENAME can be saved without it.
  std::function<void(const state::TargetAlias&)> on_target_alias;
  // Called (buffer lock NOT held) when an aliased table leaves its name (dropped, renamed again),
  // with the alias and its end (until_file:until_position) set.
  std::function<void(const state::TargetAlias&)> on_alias_end;
};

// The history's name of a source table.
inline schema::TableRef SourceRef(const tables::SourceTableName& name) {
  return {name.database, name.table};
}
// Problems of a table, as one stop reason.
std::string JoinedProblems(const std::vector<std::string>& problems);

// A table's columns as the history holds them.
tables::SourceTableSchema SchemaFromHistory(const schema::TableSchema& table,
                                            const tables::SourceTableName& name);

class TableRouter {
 public:
  explicit TableRouter(RouterContext context);

  // Setup: registers the tables the checkpoint lists as stopped.
  void AddStopped(const state::StoppedTable& stopped);
  // Setup: resolves every matched table the source has now (schema, target, check plan) and
  // appends every problem found to `problems`.
  void Prepare(mysql::Connection& source, std::vector<std::string>& problems);
  // The target tables resolved so far.
  std::vector<TargetState*> targets();

  // A TABLE_MAP for `table_id` was read (the cache already holds it). Returns its route.
  const Route& OnTableMap(uint64_t table_id, const std::shared_ptr<const binlog::TableInfo>& map,
                          const schema::BinlogPosition& position);
  // The route of a rows event; nullptr if no TABLE_MAP for the id was seen.
  Route* Find(uint64_t table_id) {
    auto it = routes_.find(table_id);
    return it == routes_.end() ? nullptr : &it->second;
  }
  // Makes sure `table` decodes with `map` (several table ids may name one table).
  bool Use(StreamedTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
           const schema::BinlogPosition& position);
  // A new FORMAT_DESCRIPTION: table ids start over. Also after a table left the catalog: every
  // table's next TABLE_MAP routes afresh (DDL and table commands run between transactions, so
  // every rows event after them follows its own TABLE_MAP).
  void ResetRoutes() { routes_.clear(); }

  // Whether `name`'s changes at `position` are still in its copy (see above).
  bool BeforeStart(const tables::SourceTableName& name,
                   const schema::BinlogPosition& position) const {
    auto it = ctx_.table_starts.find(name);
    return it != ctx_.table_starts.end() && position < it->second;
  }
  // Whether `table`'s changes at `position` are in a copy: its own (BeforeStart), or the one that
  // replaced its target (StreamedTable::starts_at).
  static bool InCopy(const StreamedTable& table, const schema::BinlogPosition& position) {
    return table.starts_at && position < *table.starts_at;
  }
  // Whether the table under `name` at `position` (met in this session) has its changes there in
  // a copy (BeforeStart, or InCopy).
  bool NameInCopy(const tables::SourceTableName& name,
                  const schema::BinlogPosition& position) const;

  // The catalog, for schema changes and table commands.
  //
  // The table met under `name`; nullptr when none is.
  StreamedTable* FindTable(const tables::SourceTableName& name);
  // The table under `name` (rule `rule_index`) as of `at`, resolved on first use: its columns,
  // its target (`follow_target` when given, else where the target routes or the rules send it)
  // and its metrics. `problems` null: mid-stream, a problem stops the table; `source` null: opens
  // a connection if information_schema must be read.
  StreamedTable& Resolve(const tables::SourceTableName& name, int rule_index,
                         std::vector<std::string>* problems, const schema::BinlogPosition& at,
                         mysql::Connection* source, tables::TargetTable* follow_target = nullptr);
  // The table leaves the router (dropped or renamed away); it is kept alive for pending batches.
  void Retire(const tables::SourceTableName& name);
  // `name` left its name at `at` (dropped, renamed, copied into its own target): an alias that
  // sent its rows into another target ends there (recorded through on_alias_end).
  void EndAlias(const tables::SourceTableName& name, const schema::BinlogPosition& at);
  // Writes every buffered row of the table's target. False when the pipeline is stopping.
  bool Drain(StreamedTable& table);
  // Stops a table (idempotent).
  void Stop(StreamedTable& table, const std::string& position, const std::string& reason);
  // The same for a schema change that could not be carried (counted as a schema error).
  void StopForSchema(StreamedTable& table, const std::string& position, const std::string& reason);
  // The table to stop under `name` (a stopped stub when the session has not resolved it).
  StreamedTable& TableToStop(const tables::SourceTableName& name, const std::string& position);
  // The runtime state of `target`, made (with the versions a replay skips) on first use.
  TargetState* StateOf(tables::TargetTable* target);
  // Forgets the target's batch groups (its inserts name the table by its old name) and, with
  // `present_rows`, the versions a replay skips (its rows are gone, or another table's).
  void ResetTargetState(const tables::TargetTable* target, bool present_rows);
  // The key columns of `table` (its rule's, or its source's).
  std::vector<std::string> KeyNames(const StreamedTable& table) const;
  TargetDdl& ddl() { return ddl_; }
  RouterContext& context() { return ctx_; }

  const std::map<tables::SourceTableName, std::unique_ptr<StreamedTable>>& tables() const {
    return tables_;
  }
  // Target tables rowbridge created, in this session or earlier ones.
  const std::vector<std::string>& created_targets() const {
    return ctx_.resolver->created_targets();
  }

 private:
  // The table's columns at `position`: from the history, else (and then seeded into it) from
  // the source's information_schema.
  std::optional<tables::SourceTableSchema> SchemaOf(const tables::SourceTableName& name,
                                                    const schema::BinlogPosition& position,
                                                    mysql::Connection& source);
  // The columns of `table` at `at` (the history's, information_schema's, or the TABLE_MAP's when
  // it names them, seeded into the history), or false with the table stopped.
  bool KnowColumns(StreamedTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
                   const schema::BinlogPosition& at);
  // The target that table's rows at `at` go to when target renames after `at` moved the target
  // `from` (RouterContext::target_routes); nullptr when none applies. When the renamed target is
  // gone and `from` is another table's by then, it is made again (problems appended to
  // `problems`).
  tables::TargetTable* RenamedTarget(const tables::ReplicatedTable& table,
                                     const schema::BinlogPosition& at, const std::string& from,
                                     std::vector<std::string>& problems);
  // The target of `table` resolved at `at` when an alias or later target renames send its rows
  // elsewhere than the rules' target; nullptr when neither does.
  tables::TargetTable* RedirectedTarget(const tables::ReplicatedTable& table,
                                        const schema::BinlogPosition& at,
                                        std::vector<std::string>& problems);
  // Where the copy that replaced the target named `label` at `at` (or that target renamed since)
  // starts, when that is after `at`: the target holds what any table wrote into it until there.
  std::optional<schema::BinlogPosition> TargetCopiedLater(const std::string& label,
                                                          const schema::BinlogPosition& at) const;
  bool BuildPlan(StreamedTable& table, const std::string& position);

  RouterContext ctx_;
  TargetDdl ddl_;
  std::map<tables::SourceTableName, std::unique_ptr<StreamedTable>> tables_;
  std::vector<std::unique_ptr<StreamedTable>> retired_;
  std::map<const tables::TargetTable*, std::unique_ptr<TargetState>> target_states_;
  std::unordered_map<uint64_t, Route> routes_;
};

}  // namespace rowbridge::pipeline
