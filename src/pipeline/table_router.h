// TableRouter: decides, per binlog table id, whether rows are replicated and how.
//
// A TABLE_MAP names a table; the router matches it against the rules once per table map
// (config::TableMatcher caches by name) and keeps a Route per table id, so a rows event of a table
// no rule matches costs one hash lookup and is never decoded.
//
// For a matched table the router keeps a StreamedTable: the columns it is known to have (from
// information_schema when it was first needed, see source_schema.h), its target table, its
// mapping::ConversionPlan and the batch group it writes into. A plan is built for each distinct
// TABLE_MAP: the TABLE_MAP's own column definitions (the authority for decoding), enriched with
// names, signedness, charsets and labels from the known schema.
//
// Schema changes. Every QUERY event is applied to the schema history (RouterContext::history,
// schema/schema_history.h) and a table's columns are always those
// the history holds at the TABLE_MAP's position, never the live ones; information_schema is read
// only for a table the history does not know (first start, CREATE ... LIKE/SELECT of an unknown
// table). A DDL that changes a replicated table is then carried to ClickHouse when the rule's
// schema_changes says so (auto: for target tables rowbridge created): the table's buffered rows
// are written first, then ALTER TABLE ADD/DROP/RENAME/MODIFY COLUMN, TRUNCATE or DROP TABLE is
// run, and the next TABLE_MAP builds the plan for the new columns. RENAME TABLE and CREATE TABLE
// route the table under its new name by the rules, like any table of that name. A renamed table's
// rows stay together: when rowbridge created its target, no other table writes there and the
// rules' target for the new name does not exist yet, the ClickHouse table is renamed too (the
// rename recorded in the checkpoint first, see RouterContext::target_renames); otherwise the table
// keeps writing into its old target, recorded in the checkpoint as an alias so that it does so
// across restarts too (RouterContext::target_aliases; docs/running.md, "Schema changes"). DROP
// TABLE never drops a target another replicated table still writes into (gh-ost's swapped-out
// table). A change that
// cannot be applied (unparseable DDL, schema_changes: stop, a key column dropped, a type
// ClickHouse cannot convert, rows changed without row events) STOPS only that table: its rows are
// no longer applied, /status and the metrics say why, the stop is recorded in the checkpoint,
// and every other table goes on.
//
// Statement-based DML (binlog_format STATEMENT or MIXED: INSERT, REPLACE, UPDATE, DELETE, LOAD
// DATA, CREATE TABLE ... SELECT arriving as QUERY events) changed rows that never reach the binlog
// as row events. When it
// writes a replicated table (tables/statement_tables.h names the tables it writes), that table
// can no longer be followed: by default (source.on_statement_dml: stop_table) every such table
// STOPS as above, with a message naming the statement, the table, the binlog position (and GTID)
// and the fix; with stop_run OnStatement throws Error(kUnsupported) with that message, which ends
// `rowbridge run`. DML on tables no rule matches, or on tables whose copy starts later, is
// ignored.
//
// Tables copied after the stream began (RouterContext::table_starts): before its start position a
// table's TABLE_MAPs and rows are ignored (they are in the copy) and DDL naming it changes the
// history only, never its target (which already holds the table as of its start) nor stops it.
// A table that comes under a matched name by RENAME from a table that was not replicated has rows
// the stream never saw: that is logged as a warning (a restart copies it).
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

#include "binlog/query_event.h"
#include "binlog/table_map_cache.h"
#include "common/retry.h"
#include "config/config.h"
#include "mapping/conversion_plan.h"
#include "mapping/ddl.h"
#include "mapping/out_of_range.h"
#include "mysql/connection.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/target_state.h"
#include "schema/schema_history.h"
#include "schema/sql_lexer.h"
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
  // Target tables renamed after source RENAMEs that a replay from the checkpoint meets again (the
  // checkpoint's target_renames, in order): rows of a table's old name before its RENAME go to the
  // target under its new name.
  std::vector<state::TargetRename> target_renames;
  // Called (buffer lock NOT held) before a target table is renamed: records the rename in the
  // checkpoint and saves it at once, so that a crash after ClickHouse's RENAME replays the old
  // name's rows into the new name instead of creating the old one again.
  std::function<void(const state::TargetRename&)> before_target_rename;
  // Renamed tables that write into their old name's target because it could not be renamed with
  // them (the checkpoint's target_aliases): resolved at a position the alias covers, the table
  // writes there and not into the rules' target.
  std::vector<state::TargetAlias> target_aliases;
  // Called (buffer lock NOT held) when a renamed table goes on writing into its old name's
  // target: records the alias in the checkpoint and saves it at once, before a checkpoint past
  // the RENAME can be saved without it.
  std::function<void(const state::TargetAlias&)> on_target_alias;
  // Called (buffer lock NOT held) when an aliased table leaves its name (dropped, renamed again),
  // with the alias and its end (until_file:until_position) set.
  std::function<void(const state::TargetAlias&)> on_alias_end;
};

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
  // A statement (QUERY event) at `position`, in the transaction of `gtid`: applied to the history
  // and carried to the target tables it changes, or, for statement-based DML, stopping the
  // tables it writes (see above). Throws transient errors (a server gone), and
  // Error(kUnsupported) for statement-based DML on a replicated table under
  // source.on_statement_dml: stop_run, and for a statement the history cannot follow that
  // cannot even be tokenized (no table could be named).
  // `next_version`: the version the reader gives the next row change (the rows before the
  // statement have lower ones).
  void OnStatement(std::string_view sql, const binlog::QueryEvent& query,
                   const schema::BinlogPosition& position, const TransactionGtid& gtid,
                   uint64_t next_version);
  // A new FORMAT_DESCRIPTION: table ids start over.
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

  // The copy of `name`, held back from the stream until now (tables::ResolverOptions::held_back),
  // is complete up to `start`, a transaction boundary at or after `at` (where the reader is,
  // between transactions): its changes after `start` are streamed from now on. Resolves the table
  // as of `at`; a problem stops it.
  StreamedTable& Adopt(const tables::SourceTableName& name, const schema::BinlogPosition& start,
                       const schema::BinlogPosition& at);

  // The resnapshot of `name` is complete up to `start`, a transaction boundary at or after `at`
  // (where the reader is, between transactions), in ClickHouse table `fresh`: the table's buffered
  // rows are written, `before_replace` records the hand-over durably, `fresh` takes the place of
  // the table's target (TableResolver::ReplaceWithFresh), and the table, stopped or not, streams
  // into it from `start` on. False when the pipeline is stopping.
  bool ReplaceTarget(const tables::SourceTableName& name, const schema::BinlogPosition& start,
                     const config::QualifiedName& fresh, const schema::BinlogPosition& at,
                     const std::function<void(const std::string& target)>& before_replace);

  // `rowbridge pause` at `at`, between transactions: the table's buffered rows are written and it
  // stops there (not reported through on_stop: the caller records it at once). nullopt when it
  // is not streaming, or the pipeline is stopping.
  std::optional<state::StoppedTable> Pause(const tables::SourceTableName& name,
                                           const schema::BinlogPosition& at);
  // `rowbridge resume`: the stopped table's changes up to `start` were applied by its resume copy
  // (at <= start, between transactions); it streams from `start` on, against its target's columns
  // read again (a problem stops it again).
  void Resume(const tables::SourceTableName& name, const schema::BinlogPosition& start,
              const schema::BinlogPosition& at);

  // Stops a table (idempotent).
  void Stop(StreamedTable& table, const std::string& position, const std::string& reason);

  const std::map<tables::SourceTableName, std::unique_ptr<StreamedTable>>& tables() const {
    return tables_;
  }
  // Target tables rowbridge created, in this session or earlier ones.
  const std::vector<std::string>& created_targets() const {
    return ctx_.resolver->created_targets();
  }

 private:
  // `problems` null: mid-stream, problems stop the table; `source` null: opens a connection.
  StreamedTable& GetOrCreate(const tables::SourceTableName& name, int rule_index,
                             std::vector<std::string>* problems,
                             const schema::BinlogPosition& position, mysql::Connection* source);
  // The table's columns at `position`: from the history, else (and then seeded into it) from
  // the source's information_schema.
  std::optional<tables::SourceTableSchema> SchemaOf(const tables::SourceTableName& name,
                                                    const schema::BinlogPosition& position,
                                                    mysql::Connection& source);
  // Statement-based DML: the replicated tables it writes stop (or the run, by config).
  void OnStatementDml(std::string_view sql, std::string_view database,
                      const schema::LexOptions& lex, const schema::BinlogPosition& position,
                      const TransactionGtid& gtid);
  // The replicated tables of `written` (not before their stream start) lost rows `sql` changed
  // without row events: they stop, or the run does (source.on_statement_dml: stop_run).
  void StopForUnloggedRows(std::string_view sql, std::string_view verb,
                           const std::vector<tables::SourceTableName>& written,
                           const schema::BinlogPosition& position, const TransactionGtid& gtid);
  // The table to stop under `name` (a stopped stub when the session has not resolved it).
  StreamedTable& TableToStop(const tables::SourceTableName& name, const std::string& position);
  // One table's part of a DDL, by kind of change.
  void OnChange(const schema::TableChange& change, const schema::DdlStatement& statement,
                const schema::BinlogPosition& position, std::string_view sql);
  void OnDropped(const tables::SourceTableName& name, const std::string& where);
  // Drops `target` in ClickHouse (on every node of a cluster) and retires its record. Throws what
  // ClickHouse throws.
  void DropTarget(tables::TargetTable& target);
  // A table the session has not met (the source no longer had it when the session started, so
  // it was not listed then, and no row of it came since) whose target exists: resolved as just
  // before `position`, and returned; nullptr when it has no rule or target, or (said in a warning
  // naming `why`) cannot be resolved.
  StreamedTable* MeetExisting(const tables::SourceTableName& name,
                              const schema::BinlogPosition& position, std::string_view why);
  // RENAME of `from` onto `name` at `position`, where `name`'s target holds the table as copied
  // at a later position (a resnapshot the stream replays up to): the rows of `from`'s target are
  // in that copy, under `name`. The target rowbridge made for `from` (a replica: a changelog's
  // history is in no copy) is dropped, or it would stay behind for good, and a later table of
  // `from`'s name would write into its stale rows.
  void DropLeftBehind(const tables::SourceTableName& from, const tables::SourceTableName& name,
                      const schema::BinlogPosition& position);
  // The replicated table, other than `except`, that writes into `target`; nullptr if none.
  const StreamedTable* OtherWriter(const tables::TargetTable& target,
                                   const tables::SourceTableName& except) const;
  // After `from` was renamed to `to` (a table of rule `rule`) with its rows written: renames its
  // target to the rules' target for `to` when that is rowbridge's to do (see above). True if done.
  bool MoveTarget(tables::TargetTable& target, const tables::SourceTableName& to, int rule,
                  const schema::BinlogPosition& position);
  // The target that table's rows at `at` go to when target renames after `at` moved the target
  // `from` (RouterContext::target_renames); nullptr when none applies. When the renamed target is
  // gone and `from` is another table's by then, it is made again (problems appended to
  // `problems`).
  tables::TargetTable* RenamedTarget(const tables::ReplicatedTable& table,
                                     const schema::BinlogPosition& at, const std::string& from,
                                     std::vector<std::string>& problems);
  // The alias (RouterContext::target_aliases) that sends `label`'s rows at `at` elsewhere than
  // the rules' target; nullptr when none does.
  const state::TargetAlias* AliasAt(const std::string& label,
                                    const schema::BinlogPosition& at) const;
  // `name` left its name at `at`: its alias ends there.
  void EndAlias(const tables::SourceTableName& name, const schema::BinlogPosition& at);
  // The target of `table` resolved at `at` when an alias or later target renames send its rows
  // elsewhere than the rules' target; nullptr when neither does.
  tables::TargetTable* RedirectedTarget(const tables::ReplicatedTable& table,
                                        const schema::BinlogPosition& at,
                                        std::vector<std::string>& problems);
  // Where the copy that replaced the target named `label` at `at` (or that target renamed since)
  // starts, when that is after `at`: the target holds what any table wrote into it until there.
  std::optional<schema::BinlogPosition> TargetCopiedLater(const std::string& label,
                                                          const schema::BinlogPosition& at) const;
  // Whether the table under `name` at `position` (met in this session) has its changes there in
  // a copy (BeforeStart, or InCopy).
  bool NameInCopy(const tables::SourceTableName& name,
                  const schema::BinlogPosition& position) const;
  // Whether a target rename after `at` gives some table the name `label` (not there yet).
  bool RenamedToLater(const std::string& label, const schema::BinlogPosition& at) const;
  // The names target renames after `at` give the target named `label`, in their order (a -> b,
  // b -> c: {b, c}); empty when none does.
  std::vector<std::string> RenamesAfter(const std::string& label,
                                        const schema::BinlogPosition& at) const;
  // CREATE, or RENAME to a name (with the table leaving its old one).
  void OnNewName(const schema::TableChange& change, const schema::BinlogPosition& position);
  // The renamed table leaves `from`, its buffered rows written; `target` is the target it wrote
  // into (nullptr when it was not replicated). False when the pipeline is stopping.
  bool LeaveOldName(const tables::SourceTableName& from, const tables::SourceTableName& to,
                    const std::string& where, tables::TargetTable*& target);
  void OnAltered(StreamedTable& table, const schema::TableChange& change,
                 const schema::DdlStatement& statement, const std::string& where,
                 const std::string& statement_text);
  void OnTruncated(StreamedTable& table, const std::string& where);
  // Writes every buffered row of the table's target. False when the pipeline is stopping.
  bool Drain(StreamedTable& table);
  // Brings the target's columns to `after` (the replicated columns of the source's new schema):
  // renames, drops (columns of `before` gone from `after`), adds, type changes of columns whose
  // source type changed. Idempotent: each step checks the target's current columns. Throws
  // Error(kUnsupported) for a change it cannot make. A transient error (ClickHouse busy: too many
  // queries, memory, a lost connection) is retried per ctx_.ddl_retry, the target's columns read
  // again first (so a step that landed before its connection broke is not sent twice); once the
  // policy is used up it propagates, and the session restarts instead of stopping the table.
  void Reconcile(StreamedTable& table, const std::vector<binlog::ColumnDef>* before,
                 const std::vector<binlog::ColumnDef>& after,
                 const std::vector<std::pair<std::string, std::string>>& renames);
  void ReconcileOnce(StreamedTable& table, const std::vector<binlog::ColumnDef>* before,
                     const std::vector<binlog::ColumnDef>& after,
                     const std::vector<std::pair<std::string, std::string>>& renames);
  // Runs one idempotent statement (DROP TABLE IF EXISTS, TRUNCATE) on the target, retried like
  // Reconcile's.
  void ExecuteOnTarget(const std::string& sql);
  // DdlOptions naming target.cluster, for the DROP and TRUNCATE statements of a target table.
  mapping::DdlOptions ClusterDdlOptions() const;
  // The table leaves the router (dropped or renamed away); it is kept alive for pending batches.
  void Retire(const tables::SourceTableName& name);
  // A stopped table is gone from `name` (`what`: "renamed to x at ..."): retired, its stop ended.
  void EndStop(const tables::SourceTableName& name, const std::string& what);
  void StopForSchema(StreamedTable& table, const std::string& position, const std::string& reason);
  // The runtime state of `target`, made (with the versions a replay skips) on first use.
  TargetState* StateOf(tables::TargetTable* target);
  std::vector<std::string> KeyNames(const StreamedTable& table) const;
  bool BuildPlan(StreamedTable& table, const std::string& position);

  RouterContext ctx_;
  uint64_t statement_version_ = 0;  // OnStatement's next_version, while it runs
  std::map<tables::SourceTableName, std::unique_ptr<StreamedTable>> tables_;
  std::vector<std::unique_ptr<StreamedTable>> retired_;
  // Set while a renamed table is resolved under its new name: it keeps writing there.
  tables::TargetTable* follow_target_ = nullptr;
  std::map<const tables::TargetTable*, std::unique_ptr<TargetState>> target_states_;
  std::unordered_map<uint64_t, Route> routes_;
};

}  // namespace rowbridge::pipeline
