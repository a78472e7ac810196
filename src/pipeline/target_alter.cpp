#include "pipeline/target_alter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "clickhouse/sql_quote.h"
#include "mapping/column_default.h"
#include "mapping/ddl.h"
#include "mapping/type_mapping.h"
#include "schema/schema_history.h"

namespace rowbridge::pipeline {

namespace {

using Order = tables::ClusterAlter::Order;

const binlog::ColumnDef* FindSourceColumn(const std::vector<binlog::ColumnDef>& columns,
                                          const std::string& name) {
  for (const auto& c : columns)
    if (tables::SameColumnName(c.name, name)) return &c;
  return nullptr;
}

const mapping::TargetColumn* FindTargetColumn(const std::vector<mapping::TargetColumn>& columns,
                                              const std::string& name) {
  for (const auto& c : columns)
    if (tables::SameColumnName(c.name, name)) return &c;
  return nullptr;
}

}  // namespace

TargetAlter::TargetAlter(std::string source, tables::TargetTable& target,
                         const config::TableRule& rule, std::vector<std::string> key,
                         tables::TargetCatalog& targets, tables::TableResolver& resolver,
                         const std::string& cluster,
                         std::function<void(const std::string&)> on_default_not_carried)
    : source_(std::move(source)),
      target_(target),
      rule_(rule),
      key_(std::move(key)),
      targets_(targets),
      resolver_(resolver),
      quoted_(clickhouse::QuoteQualified(target.database, target.table)),
      on_default_not_carried_(std::move(on_default_not_carried)) {
  if (!cluster.empty()) cluster_.emplace(targets, cluster, mapping::DdlOptions{}.local_suffix);
}

void TargetAlter::Apply(const SourceColumnChange& change) {
  RenameColumns(change);
  DropColumns(change);
  AddOrRetypeColumns(change);
  FollowDefaults(change);
}

bool TargetAlter::IsKey(const std::string& name) const {
  return std::any_of(key_.begin(), key_.end(),
                     [&](const std::string& k) { return tables::SameColumnName(k, name); });
}

clickhouse::TypeDesc TargetAlter::TargetTypeOf(const binlog::ColumnDef& column) const {
  mapping::TypeMappingOptions types;
  types.time_zone = rule_.conversion.datetime_timezone;
  return mapping::DefaultClickHouseType(column, types, targets_.features(), IsKey(column.name));
}

std::string TargetAlter::TypeOf(const binlog::ColumnDef& column) const {
  return TargetTypeOf(column).name;
}

void TargetAlter::Run(const std::string& action, tables::ClusterAlter::Order order,
                      const std::optional<tables::ColumnState>& leaves) {
  if (cluster_) {
    // On a cluster no ALTER starts while a mutation of the table has work left on some host: a
    // replica applies the ALTERs of columns and the mutations queued before them in its own
    // time, and an UPDATE it runs after a column change it has not applied yet can meet a column
    // gone or retyped.
    WaitForMutations(action);
    cluster_->Run(target_, action, order, leaves);
  } else {
    const std::string sql = "ALTER TABLE " + quoted_ + " " + action;
    spdlog::info("{}: {}", source_, sql);
    targets_.Execute(sql);
  }
  resolver_.RereadColumns(target_);
}

void TargetAlter::RenameColumns(const SourceColumnChange& change) {
  const bool rename_supported =
      targets_.features().version() >= clickhouse::ServerVersion{20, 4, 0};
  for (const auto& [from, to] : *change.renames) {
    const binlog::ColumnDef* now = FindSourceColumn(*change.after, to);
    if (now == nullptr || !tables::IsReplicatedColumn(*now, rule_)) continue;
    if (FindTargetColumn(target_.columns, from) == nullptr) continue;
    if (FindTargetColumn(target_.columns, to) != nullptr) {
      FillReplayedRows(change, from, to, *now, rename_supported);
      continue;
    }
    if (IsKey(from) || IsKey(to)) {
      Fail(ErrorCode::kUnsupported,
           "{}: column {} renamed to {} is part of the target's key (ORDER BY); ClickHouse cannot "
           "rename key columns",
           source_, from, to);
    }
    if (rename_supported) {
      RunAfterMutations(fmt::format("RENAME COLUMN {} TO {}", clickhouse::QuoteIdentifier(from),
                                    clickhouse::QuoteIdentifier(to)),
                        Order::kDistributedFirst, tables::ColumnState{from, false, ""});
    } else {
      // No RENAME COLUMN before 20.4: the new column is added and filled from the old one by a
      // mutation; the old column stays (its rows written after the rename get its default).
      Run(fmt::format("ADD COLUMN {} {}", clickhouse::QuoteIdentifier(to), TypeOf(*now)),
          Order::kDataFirst, tables::ColumnState{to, true, ""});
      Run(fmt::format("UPDATE {} = CAST({} AS {}) WHERE 1", clickhouse::QuoteIdentifier(to),
                      clickhouse::QuoteIdentifier(from), TypeOf(*now)),
          Order::kDataOnly);
    }
  }
}

void TargetAlter::FillReplayedRows(const SourceColumnChange& change, const std::string& from,
                                   const std::string& to, const binlog::ColumnDef& now,
                                   bool rename_supported) {
  // Not on a cluster: there a retried rename (ON CLUSTER statements time out under load) finds
  // both columns after its own first attempt, and each retry queued another slow ON CLUSTER
  // mutation until the stream gave up. Cluster targets keep the earlier behaviour.
  if (change.next_version == 0 || cluster_) return;
  const std::string& version = target_.version_column;
  if (version.empty() || FindTargetColumn(target_.columns, version) == nullptr) return;
  const std::string quoted_to = clickhouse::QuoteIdentifier(to);
  const std::string quoted_version = clickhouse::QuoteIdentifier(version);
  std::string where;
  if (!rename_supported) {
    // Old columns stay before 20.4, so every row written before the rename (version below it)
    // holds its value in the old column: written there, or filled by an earlier rename's
    // mutation. The new column may be stale (an older column of that name) or its default (rows
    // a replay wrote under the old name).
    where = fmt::format("{} < {}", quoted_version, change.next_version);
  } else {
    // The old column was added back for a replay: the rows this session wrote before the rename
    // have it, while the rows the replay skipped as present have it NULL (or its default) and
    // their new column right. Only rows whose new column still has its default take the value.
    if (change.next_version <= change.session_first_version) return;
    where = fmt::format(
        "{0} >= {1} AND {0} < {2} AND ({3} IS NULL OR {3} = defaultValueOfArgumentType({3}))",
        quoted_version, change.session_first_version, change.next_version, quoted_to);
  }
  Run(fmt::format("UPDATE {} = CAST({} AS {}) WHERE {}", quoted_to,
                  clickhouse::QuoteIdentifier(from), TypeOf(now), where),
      Order::kDataOnly);
  // With RENAME COLUMN the target has no old column after a rename: the one the replay added
  // back goes again (after the UPDATE that reads it: mutations run in order).
  if (rename_supported && !IsKey(from)) {
    RunAfterMutations(fmt::format("DROP COLUMN {}", clickhouse::QuoteIdentifier(from)),
                      Order::kDistributedFirst, tables::ColumnState{from, false, ""});
  }
}

void TargetAlter::DropColumns(const SourceColumnChange& change) {
  if (change.before == nullptr) return;
  for (const binlog::ColumnDef& old : *change.before) {
    if (!tables::IsReplicatedColumn(old, rule_) || FindSourceColumn(*change.after, old.name))
      continue;
    if (std::any_of(change.renames->begin(), change.renames->end(),
                    [&](const auto& r) { return tables::SameColumnName(r.first, old.name); })) {
      continue;
    }
    if (FindTargetColumn(target_.columns, old.name) == nullptr) continue;
    if (IsKey(old.name)) {
      Fail(ErrorCode::kUnsupported,
           "{}: dropped column {} is part of the target's key (ORDER BY) and cannot be dropped "
           "in ClickHouse",
           source_, old.name);
    }
    RunAfterMutations(fmt::format("DROP COLUMN {}", clickhouse::QuoteIdentifier(old.name)),
                      Order::kDistributedFirst, tables::ColumnState{old.name, false, ""});
  }
}

void TargetAlter::AddOrRetypeColumns(const SourceColumnChange& change) {
  for (const binlog::ColumnDef& c : *change.after) {
    if (!tables::IsReplicatedColumn(c, rule_) || c.name.empty()) continue;
    const mapping::TargetColumn* tc = FindTargetColumn(target_.columns, c.name);
    if (tc == nullptr) {
      // The source fills its existing rows with the column's default without row events; the
      // same default does that in ClickHouse.
      const clickhouse::TypeDesc type = TargetTypeOf(c);
      Run(fmt::format("ADD COLUMN {} {}{}", clickhouse::QuoteIdentifier(c.name), type.name,
                      AddedDefault(c, type)),
          Order::kDataFirst, tables::ColumnState{c.name, true, ""});
      continue;
    }
    // Only a source type change changes the target's type: a target column of another type the
    // user chose stays.
    const binlog::ColumnDef* old = ColumnBefore(change, c.name);
    if (old == nullptr || schema::SameColumn(*old, c)) continue;
    const std::string wanted = TypeOf(c);
    if (TypeOf(*old) == wanted || tc->type.name == wanted) continue;
    if (IsKey(c.name)) {
      Fail(ErrorCode::kUnsupported,
           "{}: the type of column {} changed to {}, but it is part of the target's key (ORDER "
           "BY), whose type ClickHouse cannot change",
           source_, c.name, wanted);
    }
    // A column added with a DEFAULT holds no values in the parts written before the ADD: ClickHouse
    // computes them from the default, which a MODIFY without one would drop (they would read as
    // NULL). MySQL materialized them at the ADD, so the ADD-time default stays.
    const std::string kept_default =
        targets_.DefaultExpression(target_.database, target_.table, c.name);
    RunAfterMutations(fmt::format("MODIFY COLUMN {} {}{}", clickhouse::QuoteIdentifier(c.name),
                                  wanted, kept_default.empty() ? "" : " DEFAULT " + kept_default),
                      Order::kDataFirst, tables::ColumnState{c.name, true, wanted});
  }
}

const binlog::ColumnDef* TargetAlter::ColumnBefore(const SourceColumnChange& change,
                                                   const std::string& column) {
  if (change.before == nullptr) return nullptr;
  const binlog::ColumnDef* old = FindSourceColumn(*change.before, column);
  for (const auto& [from, to] : *change.renames) {
    if (tables::SameColumnName(to, column)) old = FindSourceColumn(*change.before, from);
  }
  return old;
}

std::string TargetAlter::AddedDefault(const binlog::ColumnDef& column,
                                      const clickhouse::TypeDesc& type) {
  if (!column.default_known) return "";
  const mapping::TargetDefault wanted = mapping::ClickHouseDefault(column, type);
  if (!wanted.problem.empty()) {
    ReportDefault(column, wanted.problem +
                              "; the rows the target already holds read NULL (Nullable) or "
                              "the type's zero value in it");
  }
  return wanted.expression ? " DEFAULT " + *wanted.expression : "";
}

void TargetAlter::ReportDefault(const binlog::ColumnDef& column, const std::string& why) {
  spdlog::warn("{}: the DEFAULT {} of column {} is not carried to {}: {}", source_,
               column.default_value.value_or("NULL"), column.name, target_.label, why);
  if (on_default_not_carried_) on_default_not_carried_(column.name);
}

// A DEFAULT that changed in the source changes in the target. MySQL keeps the values its rows
// have; in ClickHouse the rows of parts written before the column existed have none and read the
// DEFAULT, so those parts are given the values first.
void TargetAlter::FollowDefaults(const SourceColumnChange& change) {
  for (const binlog::ColumnDef& c : *change.after) {
    if (!tables::IsReplicatedColumn(c, rule_) || c.name.empty() || !c.default_known) continue;
    const binlog::ColumnDef* old = ColumnBefore(change, c.name);
    // An unknown earlier default (a history from before defaults were kept) may differ.
    if (old == nullptr || (old->default_known && old->default_value == c.default_value)) continue;
    const mapping::TargetColumn* tc = FindTargetColumn(target_.columns, c.name);
    if (tc == nullptr) continue;
    const mapping::TargetDefault wanted = mapping::ClickHouseDefault(c, tc->type);
    if (!wanted.problem.empty()) {
      ReportDefault(c, wanted.problem + "; the target column keeps its DEFAULT");
      continue;
    }
    const std::string current = targets_.DefaultExpression(target_.database, target_.table, c.name);
    if (!wanted.expression && current.empty()) continue;
    if (IsKey(c.name)) {
      ReportDefault(c,
                    "the column is part of the target's key (ORDER BY), whose DEFAULT "
                    "rowbridge does not change");
      continue;
    }
    // (MaterializeColumn rereads the target's columns: `tc` is gone after it.)
    const std::string type = tc->type.name;
    MaterializeColumn(c.name);
    const std::string column = clickhouse::QuoteIdentifier(c.name);
    if (wanted.expression) {
      Run(fmt::format("MODIFY COLUMN {} DEFAULT {}", column, *wanted.expression),
          Order::kDataFirst);
    } else if (targets_.features().HasModifyColumnRemove()) {
      Run(fmt::format("MODIFY COLUMN {} REMOVE DEFAULT", column), Order::kDataFirst);
    } else {
      // Before REMOVE: a MODIFY with the type and no DEFAULT leaves the column without one.
      Run(fmt::format("MODIFY COLUMN {} {}", column, type), Order::kDataFirst);
    }
  }
}

uint64_t TargetAlter::PartsWithoutColumn(const std::string& column) {
  if (!cluster_) return targets_.PartsWithoutColumn(target_.database, target_.table, column);
  return cluster_->SumOverHosts(tables::TargetCatalog::PartsWithoutColumnSql(
      target_.database, cluster_->DataTable(target_), column));
}

uint64_t TargetAlter::PendingMutations() {
  if (!cluster_) return targets_.PendingMutations(target_.database, target_.table);
  return cluster_->SumOverHosts(
      tables::TargetCatalog::PendingMutationsSql(target_.database, cluster_->DataTable(target_)));
}

void TargetAlter::MaterializeColumn(const std::string& column) {
  if (PartsWithoutColumn(column) == 0) return;
  // An UPDATE of the column to itself reads it (the DEFAULT, where a part lacks it) and writes
  // it into every part; ClickHouse runs it in the background, so it is waited for.
  const std::string quoted_column = clickhouse::QuoteIdentifier(column);
  Run(fmt::format("UPDATE {} = {} WHERE 1", quoted_column, quoted_column), Order::kDataOnly);
  WaitForMutations(fmt::format("the DEFAULT of column {} changes", column));
}

void TargetAlter::WaitForMutations(const std::string& before) {
  using namespace std::chrono_literals;
  const auto start = std::chrono::steady_clock::now();
  bool told = false;
  for (uint64_t pending; (pending = PendingMutations()) > 0;) {
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > 10min) {
      Fail(ErrorCode::kTimeout,
           "{}: the mutations of {} have not reached every part after 10 minutes ({} parts or "
           "replication queue entries left: system.mutations, system.replication_queue); they "
           "must before {}",
           source_, target_.label, pending, before);
    }
    if (!told && waited > 30s) {
      spdlog::warn(
          "{}: waiting for the mutations of {} ({} parts or replication queue entries "
          "left) before {}",
          source_, target_.label, pending, before);
      told = true;
    }
    std::this_thread::sleep_for(100ms);
  }
}

void TargetAlter::RunAfterMutations(const std::string& action, tables::ClusterAlter::Order order,
                                    const std::optional<tables::ColumnState>& leaves) {
  // Before 20.x ClickHouse drops, retypes and renames a column at once, not as a mutation in
  // line behind the UPDATEs rowbridge queued (a rename's fill, a DEFAULT's materialization, one
  // queued before a crash): an UPDATE that then reads or writes a column gone or retyped never
  // finishes, and holds back every later mutation of the table (18.16 has no KILL MUTATION).
  // On a cluster Run waits so before every ALTER.
  if (!cluster_) WaitForMutations(action);
  Run(action, order, leaves);
}

}  // namespace rowbridge::pipeline
