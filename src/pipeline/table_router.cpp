#include "pipeline/table_router.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "config/target_template.h"
#include "mapping/ddl.h"
#include "pipeline/statement_tables.h"

namespace rowbridge::pipeline {

namespace {

mapping::TableMode ToPlanMode(config::TableMode mode) {
  return mode == config::TableMode::kReplica ? mapping::TableMode::kReplica
                                             : mapping::TableMode::kChangelog;
}

mapping::MetaColumnNames ToMetaNames(const config::MetaColumns& meta) {
  mapping::MetaColumnNames names;
  names.version = meta.version;
  names.is_deleted = meta.is_deleted;
  names.event_type = meta.event_type;
  return names;
}

std::string Abbreviated(std::string_view sql) {
  std::string s(sql.substr(0, 300));
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (sql.size() > 300) s += "...";
  return s;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) {
    if (!s.empty()) s += "; ";
    s += l;
  }
  return s;
}

bool AllNamed(const std::vector<binlog::ColumnDef>& columns) {
  return !columns.empty() &&
         std::all_of(columns.begin(), columns.end(), [](const auto& c) { return !c.name.empty(); });
}

}  // namespace

TableRouter::TableRouter(RouterContext context)
    : ctx_(std::move(context)), matcher_(ctx_.config->tables) {}

void TableRouter::AddStopped(const StoppedTable& stopped) {
  SourceTableName name{stopped.database, stopped.table};
  auto table = std::make_unique<SourceTable>();
  table->name = name;
  table->rule_index = matcher_.Match(name.database, name.table);
  table->stopped = true;
  table->stop_reason = stopped.reason;
  tables_[name] = std::move(table);
}

void TableRouter::Prepare(mysql::Connection& source, std::vector<std::string>& problems) {
  for (const SourceTableName& name : ListSourceTables(source)) {
    const int rule = matcher_.Match(name.database, name.table);
    if (rule == config::TableMatcher::kNoRule) continue;
    if (tables_.count(name) != 0) continue;  // stopped earlier
    std::vector<std::string> table_problems;
    SourceTable& table = GetOrCreate(name, rule, &table_problems, "", &source);
    if (table.target != nullptr && table.known) {
      mapping::ConversionPlan::Build(table.known->columns, table.target->columns,
                                     PlanOptionsFor(table), table_problems);
    }
    problems.insert(problems.end(), table_problems.begin(), table_problems.end());
  }
}

std::vector<TargetTable*> TableRouter::targets() {
  std::vector<TargetTable*> out;
  for (auto& [name, t] : target_tables_) out.push_back(t.get());
  return out;
}

std::vector<std::string> TableRouter::KeyNames(const SourceTable& table) const {
  if (table.rule != nullptr && !table.rule->key.empty()) return table.rule->key;
  std::vector<std::string> names;
  if (table.known) {
    for (uint32_t i : table.known->primary_key) names.push_back(table.known->columns[i].name);
  }
  if (names.empty() && table.decoded) {
    for (uint32_t i : table.decoded->map.primary_key) {
      if (i < table.decoded->map.columns.size())
        names.push_back(table.decoded->map.columns[i].name);
    }
  }
  return names;
}

mapping::PlanOptions TableRouter::PlanOptionsFor(const SourceTable& table) const {
  const config::TableRule& rule = *table.rule;
  mapping::PlanOptions o;
  o.source_database = table.name.database;
  o.source_table = table.name.table;
  o.mode = ToPlanMode(rule.mode);
  o.meta = ToMetaNames(rule.meta_columns);
  o.include_columns = rule.include_columns;
  o.exclude_columns = rule.exclude_columns;
  o.key_columns = KeyNames(table);
  auto zone = zones_.find(rule.conversion.datetime_timezone);
  if (zone != zones_.end()) o.converter.zone = zone->second;
  o.converter.policies = rule.conversion.on_out_of_range == config::OutOfRange::kError
                             ? mapping::RangePolicies::AllError()
                             : mapping::RangePolicies();
  o.converter.counters = ctx_.conversion_counters;
  return o;
}

SourceTable& TableRouter::GetOrCreate(const SourceTableName& name, int rule_index,
                                      std::vector<std::string>* problems,
                                      const std::string& position, mysql::Connection* source) {
  auto it = tables_.find(name);
  if (it != tables_.end()) return *it->second;
  auto owned = std::make_unique<SourceTable>();
  SourceTable& table = *owned;
  tables_[name] = std::move(owned);
  table.name = name;
  table.rule_index = rule_index;
  table.rule = &ctx_.config->tables[static_cast<size_t>(rule_index)];

  std::vector<std::string> local_problems;
  std::vector<std::string>& out = problems != nullptr ? *problems : local_problems;
  const size_t before = out.size();
  const std::string& zone_name = table.rule->conversion.datetime_timezone;
  if (zones_.count(zone_name) == 0) {
    try {
      zones_[zone_name] = mapping::TimeZone::Load(zone_name);
    } catch (const Error& e) {
      out.push_back(fmt::format("{}: conversion.datetime_timezone: {}", name.ToString(), e.what()));
    }
  }
  try {
    std::unique_ptr<mysql::Connection> own;
    if (source == nullptr) {
      own = ctx_.connect_source();
      source = own.get();
    }
    table.known = LoadSourceTableSchema(*source, name.database, name.table);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    out.push_back(fmt::format("{}: {}", name.ToString(), e.what()));
  }
  if (out.size() == before) table.target = ResolveTarget(table, out);
  if (table.target != nullptr) table.stats = ctx_.make_stats(name, *table.target);
  if (out.size() != before) {
    if (problems == nullptr) Stop(table, position, JoinLines(out));
  } else if (problems == nullptr) {
    spdlog::info("replicating {} into {} ({} mode), first seen at {}", name.ToString(),
                 table.target->label, config::TableModeName(table.rule->mode), position);
  }
  return table;
}

TargetTable* TableRouter::ResolveTarget(SourceTable& table, std::vector<std::string>& problems) {
  const config::TableRule& rule = *table.rule;
  const config::QualifiedName qn = config::ExpandTarget(rule.target, ctx_.config->target.database,
                                                        table.name.database, table.name.table);
  const std::string label = qn.database + "." + qn.table;
  auto existing = target_tables_.find(label);
  if (existing != target_tables_.end()) {
    TargetTable* t = existing->second.get();
    if (t->mode != ToPlanMode(rule.mode)) {
      problems.push_back(fmt::format(
          "{}: target {} also receives {} rows from another rule; one target takes one mode",
          table.name.ToString(), label, config::TableModeName(rule.mode)));
      return nullptr;
    }
    return t;
  }
  auto columns = ctx_.targets->ReadColumns(qn.database, qn.table);
  if (!columns) {
    if (!rule.create_table) {
      problems.push_back(
          fmt::format("{}: target table {} does not exist and the rule says create_table: false",
                      table.name.ToString(), label));
      return nullptr;
    }
    if (!table.known) {
      problems.push_back(
          fmt::format("{}: cannot create target table {}: the source table's "
                      "columns are unknown (not in information_schema)",
                      table.name.ToString(), label));
      return nullptr;
    }
    std::vector<binlog::ColumnDef> replicated;
    for (const auto& c : table.known->columns) {
      if (!rule.include_columns.empty() &&
          std::find(rule.include_columns.begin(), rule.include_columns.end(), c.name) ==
              rule.include_columns.end()) {
        continue;
      }
      if (std::find(rule.exclude_columns.begin(), rule.exclude_columns.end(), c.name) !=
          rule.exclude_columns.end()) {
        continue;
      }
      replicated.push_back(c);
    }
    try {
      std::vector<std::string> pk;
      for (uint32_t i : table.known->primary_key) pk.push_back(table.known->columns[i].name);
      const std::vector<std::string> key =
          mapping::ChooseTableKey(table.name.ToString(), replicated, pk, {}, rule.key);
      mapping::DdlOptions ddl;
      ddl.mode = ToPlanMode(rule.mode);
      ddl.meta = ToMetaNames(rule.meta_columns);
      ddl.types.time_zone = rule.conversion.datetime_timezone;
      ddl.partition_by = rule.partition_by;
      ddl.cluster = ctx_.config->target.cluster;
      const auto& features = ctx_.targets->features();
      if (ctx_.dry_run) {
        // Fails like CREATE TABLE would on a type or name problem.
        mapping::CreateTableStatements(qn.database, qn.table, replicated, key, ddl, features);
        columns = mapping::CreatedColumns(replicated, key, ddl, features);
      } else {
        ctx_.targets->Execute(mapping::CreateDatabaseStatement(qn.database, ddl));
        for (const std::string& sql : mapping::CreateTableStatements(
                 qn.database, qn.table, replicated, key, ddl, features)) {
          ctx_.targets->Execute(sql);
        }
        spdlog::info("created ClickHouse table {} for {} ({} mode)", label, table.name.ToString(),
                     config::TableModeName(rule.mode));
      }
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      problems.push_back(fmt::format("{}: cannot create target table {}: {}", table.name.ToString(),
                                     label, e.what()));
      return nullptr;
    }
    if (!ctx_.dry_run) columns = ctx_.targets->ReadColumns(qn.database, qn.table);
    if (!columns) {
      problems.push_back(fmt::format("{}: target table {} is missing right after CREATE TABLE",
                                     table.name.ToString(), label));
      return nullptr;
    }
  }
  auto target = std::make_unique<TargetTable>();
  target->database = qn.database;
  target->table = qn.table;
  target->label = label;
  target->mode = ToPlanMode(rule.mode);
  target->version_column = rule.meta_columns.version;
  target->columns = std::move(*columns);
  const bool has_version =
      std::any_of(target->columns.begin(), target->columns.end(),
                  [&](const mapping::TargetColumn& c) { return c.name == target->version_column; });
  if (has_version && ctx_.have_checkpoint && !ctx_.dry_run) {
    target->present_versions = ctx_.targets->VersionsFrom(
        target->database, target->table, target->version_column, ctx_.resume_version);
    if (!target->present_versions.empty()) {
      spdlog::info(
          "{} already holds {} row(s) of versions {}..{} written after the checkpoint; "
          "replaying their changes skips them",
          label, target->present_versions.size(), target->present_versions.front(),
          target->present_versions.back());
    }
  }
  TargetTable* raw = target.get();
  target_tables_[label] = std::move(target);
  return raw;
}

const Route& TableRouter::OnTableMap(uint64_t table_id,
                                     const std::shared_ptr<const binlog::TableInfo>& map,
                                     const std::string& position) {
  // Table ids are reused only after a table leaves the server's table cache; like the TABLE_MAP
  // cache, start over when the routes grow past any plausible working set.
  if (routes_.size() > 16384 && routes_.count(table_id) == 0) routes_.clear();
  Route& route = routes_[table_id];
  if (route.map == map.get()) return route;
  route.map = map.get();
  route.map_owner = map;
  route.table = nullptr;
  const int rule = matcher_.Match(map->map.database, map->map.table);
  if (rule == config::TableMatcher::kNoRule) return route;
  SourceTable& table =
      GetOrCreate({map->map.database, map->map.table}, rule, nullptr, position, nullptr);
  route.table = &table;
  if (!table.stopped) Use(table, map, position);
  return route;
}

bool TableRouter::Use(SourceTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
                      const std::string& position) {
  if (table.stopped) return false;
  if (table.map == map.get()) return true;
  const auto& columns = map->map.columns;
  if (!table.known) {
    if (!AllNamed(columns)) {
      Stop(table, position,
           "the table is not in the source's information_schema (dropped?) and the binlog does "
           "not name its columns (binlog_row_metadata is not FULL)");
      return false;
    }
    SourceTableSchema schema;
    schema.name = table.name;
    schema.columns = columns;
    schema.primary_key = map->map.primary_key;
    for (uint32_t i : schema.primary_key)
      if (i < schema.columns.size()) schema.columns[i].is_primary_key = true;
    table.known = std::move(schema);
  }
  if (auto diff = SchemaDifference(table.known->columns, columns)) {
    Stop(table, position,
         fmt::format("the TABLE_MAP at {} does not describe the columns rowbridge knows for {}: "
                     "{}. The table's schema changed and rowbridge cannot follow schema changes "
                     "yet",
                     position, table.name.ToString(), *diff));
    return false;
  }
  table.decoded = std::make_unique<binlog::TableInfo>(*map);
  EnrichFromSchema(table.known->columns, table.decoded->map.columns);
  table.map_has_names = AllNamed(columns);
  table.suspect = false;
  table.map = map.get();
  table.map_owner = map;
  return BuildPlan(table, position);
}

bool TableRouter::BuildPlan(SourceTable& table, const std::string& position) {
  std::vector<std::string> problems;
  mapping::ConversionPlan plan = mapping::ConversionPlan::Build(
      table.decoded->map.columns, table.target->columns, PlanOptionsFor(table), problems);
  if (!problems.empty()) {
    Stop(table, position, JoinLines(problems));
    return false;
  }
  std::string signature;
  for (const auto& c : plan.insert_columns()) signature += c.name + " " + c.type.name + "\n";
  TargetTable& target = *table.target;
  TargetGroup*& group = target.groups[signature];
  if (group == nullptr) {
    auto g = std::make_unique<TargetGroup>();
    g->database = target.database;
    g->table = target.table;
    g->label = target.label;
    g->insert_sql = plan.InsertQuery(target.database, target.table);
    g->batches[0].block = plan.NewBlock();
    g->batches[1].block = plan.NewBlock();
    std::lock_guard lock(ctx_.buffers->mutex());
    group = &ctx_.buffers->AddGroup(std::move(g));
  }
  table.group = group;
  table.key_columns.clear();
  for (const std::string& key : KeyNames(table)) {
    const auto& cols = table.decoded->map.columns;
    for (uint32_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name == key) table.key_columns.push_back(i);
    }
  }
  table.plan.emplace(std::move(plan));
  return true;
}

void TableRouter::OnStatement(std::string_view sql, std::string_view default_database,
                              const std::string& position) {
  const StatementTables st = ClassifyStatement(sql, default_database);
  if (!st.changes) return;
  for (const SourceTableName& name : st.tables) {
    auto it = tables_.find(name);
    if (it == tables_.end() || it->second->stopped) continue;
    SourceTable& table = *it->second;
    if (st.verb == "ALTER TABLE" && table.map_has_names) {
      // The binlog names columns: the next TABLE_MAP shows whether the columns changed.
      spdlog::info(
          "{} at {} changes {}; its next TABLE_MAP will be checked against the known "
          "columns",
          st.verb, position, name.ToString());
      table.suspect = true;
      continue;
    }
    Stop(table, position,
         fmt::format("{} at {} may change its columns or rows unseen ({}); rowbridge cannot "
                     "follow schema changes yet",
                     st.verb, position, Abbreviated(sql)));
  }
}

void TableRouter::Stop(SourceTable& table, const std::string& position, const std::string& reason) {
  if (table.stopped) return;
  table.stopped = true;
  table.stop_reason = reason;
  spdlog::error("stopped replicating {}: {}", table.name.ToString(), reason);
  if (table.stats)
    table.stats->status.RecordError("stopped: " + reason, std::chrono::system_clock::now());
  if (ctx_.on_stop) ctx_.on_stop({table.name.database, table.name.table, position, reason});
}

}  // namespace rowbridge::pipeline
