// TableResolver: the replicated-table catalog. It turns a source table, the rule that matches it
// and its columns at a position into a ReplicatedTable: the target it writes into (found in
// ClickHouse, or created from the columns where the rule allows) and how its rows are converted
// (PlanOptionsFor). The stream (pipeline::TableRouter), the copy, `validate` and `check` all
// resolve tables through it, so every one of them sees the same targets, keys and conversions.
//
// It owns the target records: one per ClickHouse table, shared by every source table that writes
// into it, alive as long as the resolver (a retired target, dropped or renamed away, stays valid
// for batches still pending). It also knows which targets rowbridge created, whose schema follows
// the source's under `schema_changes: auto`.
//
// Not thread-safe: one owner at a time (a session's setup, then its reader).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/table_matcher.h"
#include "config/target_template.h"
#include "mapping/conversion_plan.h"
#include "mapping/out_of_range.h"
#include "mapping/time_zone.h"
#include "mysql/connection.h"
#include "tables/replicated_table.h"
#include "tables/target_tables.h"

namespace rowbridge::tables {

struct ResolverOptions {
  // `rowbridge validate`: create nothing; a missing target that would be created is checked
  // against the columns its CREATE TABLE would make.
  bool dry_run = false;
  // Target tables rowbridge created earlier ("db.table", from the checkpoint).
  std::vector<std::string> created_targets;
  // Called right after rowbridge created a target table, with "db.table", so the caller records
  // it durably before rows are written into it.
  std::function<void(const std::string&)> on_created;
  // Source tables ("db.table", sorted) the checkpoint `checkpoint` says are replicated. Their
  // targets must exist: a missing one was dropped (or the rules now name another) after rows went
  // into it, and creating it empty would lose them without a word. ResolveTarget reports it as a
  // problem naming the table and the fix instead, until ForgetReplicatedTables().
  std::vector<std::string> replicated_tables;
  std::string checkpoint;
  // Matched source tables ("db.table") whose copy runs alongside the stream (the checkpoint's
  // table_copy): the stream must not see them until the copy hands them over, so Match answers
  // kNoRule for them until Release().
  std::vector<std::string> held_back;
  // Targets other than the rules' for some source tables ("db.table"): a resnapshot copies into a
  // fresh table.
  std::map<std::string, config::QualifiedName> target_overrides;
  // Counts values converted or clamped under the rules' out-of-range policy.
  std::shared_ptr<mapping::ConversionCounters> conversion_counters =
      std::make_shared<mapping::ConversionCounters>();
};

class TableResolver {
 public:
  TableResolver(const config::Config& config, TargetCatalog& catalog, ResolverOptions options);

  // The index of the first rule matching `name`, or config::TableMatcher::kNoRule (also for a
  // table held back, see ResolverOptions::held_back).
  int Match(const SourceTableName& name) {
    if (!options_.held_back.empty() && IsHeldBack(name)) return config::TableMatcher::kNoRule;
    return matcher_.Match(name.database, name.table);
  }
  bool IsHeldBack(const SourceTableName& name) const;
  // The copy of `name` was handed over to the stream: Match answers its rule from now on.
  void Release(const SourceTableName& name);
  const config::TableRule& Rule(int index) const {
    return config_.tables[static_cast<size_t>(index)];
  }
  // A record for `name` under rule `rule_index`, without columns or target yet.
  ReplicatedTable Describe(const SourceTableName& name, int rule_index) const;

  // The target of `table` (its rule and, to create one, its columns): the one already resolved
  // for another source table, the ClickHouse table, or one created from the replicated columns
  // when the rule says create_table. nullptr, with the reasons appended to `problems`, when there
  // is none. Throws only transient errors.
  TargetTable* ResolveTarget(const ReplicatedTable& table, std::vector<std::string>& problems);
  // The ClickHouse table `name`, already resolved or existing, as the target of `table` (taking
  // its rule's mode); nullptr when there is no such table. Never creates one.
  TargetTable* ResolveExisting(const ReplicatedTable& table, const config::QualifiedName& name);
  // The same, but a missing `name` is created from the table's columns (rule permitting, and
  // recorded as rowbridge's like any it creates); nullptr with the reasons in `problems` when
  // it cannot be.
  TargetTable* ResolveOrCreate(const ReplicatedTable& table, const config::QualifiedName& name,
                               std::vector<std::string>& problems);
  // Renames the target `from` to `name` in ClickHouse (creating the database if needed) and
  // moves the record of rowbridge having created it along. Idempotent: when `from` is gone and
  // `name` exists it was done before. The record itself takes the new name (whoever holds it sees
  // the table under its new name). Throws what ClickHouse throws.
  void RenameTarget(TargetTable& from, const config::QualifiedName& name);
  // Resnapshot: puts ClickHouse table `fresh` (the copy's) in the place of the target `name`: the
  // old table is renamed aside and dropped, `fresh` renamed to `name` (in one RENAME when both
  // exist), `name` recorded as rowbridge's own, and a resolved record of it reads its columns
  // again. Idempotent: with `fresh` gone it was done, but for the old table left aside, which is
  // dropped whenever it is still there. Throws what ClickHouse throws.
  void ReplaceWithFresh(const config::QualifiedName& name, const config::QualifiedName& fresh);
  // The ClickHouse table the rules name as the target of `name` under rule `rule_index`.
  config::QualifiedName TargetName(const SourceTableName& name, int rule_index) const;
  // The same as "db.table".
  std::string TargetLabel(const SourceTableName& name, int rule_index) const;
  // Whether that target is resolved already or exists in ClickHouse.
  bool TargetExists(const SourceTableName& name, int rule_index);
  // The resolved target "db.table", or nullptr.
  TargetTable* FindTarget(const std::string& label);
  // Every target resolved so far (retired ones excluded).
  std::vector<TargetTable*> targets();
  // Reads the target's columns again (after rowbridge altered it).
  void RereadColumns(TargetTable& target);
  // The target was dropped: it is no longer resolved (the record stays valid, see above).
  void Retire(TargetTable& target);
  // Ends the check of ResolverOptions::replicated_tables: a session's setup is over, and a target
  // missing later (replaying a table's rows before its DROP TABLE) is created as it always was.
  void ForgetReplicatedTables() { options_.replicated_tables.clear(); }

  // Whether schema changes of `table` are carried to its target: the rule's schema_changes, and
  // under `auto` whether rowbridge created the target.
  bool AppliesSchemaChanges(const ReplicatedTable& table) const;
  // Whether rowbridge created the target "db.table".
  bool Created(const std::string& label) const;
  const std::vector<std::string>& created_targets() const { return options_.created_targets; }

  // The conversion of `table`'s rows into its target, with `keys` as the key columns. The rule's
  // time zone is loaded once per zone; a zone that cannot be loaded throws Error(kConfig).
  mapping::PlanOptions PlanOptionsFor(const ReplicatedTable& table, std::vector<std::string> keys);
  // The rule's time zone, loaded (once); an unloadable zone is appended to `problems`.
  void LoadZone(const ReplicatedTable& table, std::vector<std::string>& problems);

  // Every table the source has now that a rule matches, with its columns from information_schema
  // and its target (created where allowed); each one's conversion plan is checked against its
  // target. A table with a problem is left out and the problem appended: the copy, `validate` and
  // `check` work on the tables as they are now.
  //
  // When `only` is given, the tables it rejects are only named with the target their rules name
  // when that exists (no columns, no plan, never created, no problem): a copy of some tables
  // alongside the stream must neither create nor judge the targets of tables the stream writes
  // (their live columns may be ahead of the stream), but needs to know which tables share a
  // target with the ones it copies.
  std::vector<ReplicatedTable> ResolveAll(
      mysql::Connection& source, std::vector<std::string>& problems,
      const std::function<bool(const SourceTableName&)>& only = nullptr);

 private:
  TargetTable* Record(const config::QualifiedName& name, const config::TableRule& rule,
                      std::vector<mapping::TargetColumn> columns);
  std::optional<std::vector<mapping::TargetColumn>> CreateTarget(
      const ReplicatedTable& table, const config::QualifiedName& name,
      std::vector<std::string>& problems);

  const config::Config& config_;
  TargetCatalog& catalog_;
  ResolverOptions options_;
  config::TableMatcher matcher_;
  std::map<std::string, std::unique_ptr<TargetTable>> targets_;  // by db.table
  std::vector<std::unique_ptr<TargetTable>> retired_;
  std::map<std::string, std::shared_ptr<const mapping::TimeZone>> zones_;
};

}  // namespace rowbridge::tables
