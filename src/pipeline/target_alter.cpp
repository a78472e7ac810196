#include "pipeline/target_alter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "clickhouse/sql_quote.h"
#include "mapping/type_mapping.h"
#include "schema/schema_history.h"

namespace rowbridge::pipeline {

namespace {

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
                         tables::TargetCatalog& targets, tables::TableResolver& resolver)
    : source_(std::move(source)),
      target_(target),
      rule_(rule),
      key_(std::move(key)),
      targets_(targets),
      resolver_(resolver),
      quoted_(clickhouse::QuoteQualified(target.database, target.table)) {}

void TargetAlter::Apply(const SourceColumnChange& change) {
  RenameColumns(change);
  DropColumns(change);
  AddOrRetypeColumns(change);
}

bool TargetAlter::IsKey(const std::string& name) const {
  return std::any_of(key_.begin(), key_.end(),
                     [&](const std::string& k) { return tables::SameColumnName(k, name); });
}

std::string TargetAlter::TypeOf(const binlog::ColumnDef& column) const {
  mapping::TypeMappingOptions types;
  types.time_zone = rule_.conversion.datetime_timezone;
  return mapping::DefaultClickHouseType(column, types, targets_.features(), IsKey(column.name))
      .name;
}

void TargetAlter::Run(const std::string& sql) {
  spdlog::info("{}: {}", source_, sql);
  targets_.Execute(sql);
  resolver_.RereadColumns(target_);
}

void TargetAlter::RenameColumns(const SourceColumnChange& change) {
  const bool rename_supported =
      targets_.features().version() >= clickhouse::ServerVersion{20, 4, 0};
  for (const auto& [from, to] : *change.renames) {
    const binlog::ColumnDef* now = FindSourceColumn(*change.after, to);
    if (now == nullptr || !tables::IsReplicatedColumn(*now, rule_)) continue;
    if (FindTargetColumn(target_.columns, from) == nullptr ||
        FindTargetColumn(target_.columns, to) != nullptr)
      continue;
    if (IsKey(from) || IsKey(to)) {
      Fail(ErrorCode::kUnsupported,
           "{}: column {} renamed to {} is part of the target's key (ORDER BY); ClickHouse cannot "
           "rename key columns",
           source_, from, to);
    }
    if (rename_supported) {
      Run(fmt::format("ALTER TABLE {} RENAME COLUMN {} TO {}", quoted_,
                      clickhouse::QuoteIdentifier(from), clickhouse::QuoteIdentifier(to)));
    } else {
      // No RENAME COLUMN before 20.4: the new column is added and filled from the old one by a
      // mutation; the old column stays (its rows written after the rename get its default).
      Run(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", quoted_, clickhouse::QuoteIdentifier(to),
                      TypeOf(*now)));
      Run(fmt::format("ALTER TABLE {} UPDATE {} = CAST({} AS {}) WHERE 1", quoted_,
                      clickhouse::QuoteIdentifier(to), clickhouse::QuoteIdentifier(from),
                      TypeOf(*now)));
    }
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
    Run(fmt::format("ALTER TABLE {} DROP COLUMN {}", quoted_,
                    clickhouse::QuoteIdentifier(old.name)));
  }
}

void TargetAlter::AddOrRetypeColumns(const SourceColumnChange& change) {
  for (const binlog::ColumnDef& c : *change.after) {
    if (!tables::IsReplicatedColumn(c, rule_) || c.name.empty()) continue;
    const mapping::TargetColumn* tc = FindTargetColumn(target_.columns, c.name);
    if (tc == nullptr) {
      // The source fills its existing rows with the column's default without row events; a
      // literal default does the same in ClickHouse.
      std::string default_clause;
      auto d = change.added_defaults->find(c.name);
      if (d != change.added_defaults->end()) default_clause = " DEFAULT " + d->second;
      Run(fmt::format("ALTER TABLE {} ADD COLUMN {} {}{}", quoted_,
                      clickhouse::QuoteIdentifier(c.name), TypeOf(c), default_clause));
      continue;
    }
    if (change.before == nullptr) continue;
    // Only a source type change changes the target's type: a target column of another type the
    // user chose stays.
    const binlog::ColumnDef* old = FindSourceColumn(*change.before, c.name);
    for (const auto& [from, to] : *change.renames) {
      if (tables::SameColumnName(to, c.name)) old = FindSourceColumn(*change.before, from);
    }
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
    Run(fmt::format("ALTER TABLE {} MODIFY COLUMN {} {}{}", quoted_,
                    clickhouse::QuoteIdentifier(c.name), wanted,
                    kept_default.empty() ? "" : " DEFAULT " + kept_default));
  }
}

}  // namespace rowbridge::pipeline
