#include "pipeline/table_router.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <variant>

#include "config/target_template.h"
#include "mapping/ddl.h"
#include "mapping/sql_quote.h"
#include "mapping/type_mapping.h"
#include "pipeline/sql_text.h"
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

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

schema::TableRef RefOf(const SourceTableName& name) {
  return {name.database, name.table};
}

SourceTableSchema FromHistory(const schema::TableSchema& table, const SourceTableName& name) {
  SourceTableSchema out;
  out.name = name;
  out.columns = table.columns;
  out.primary_key = table.primary_key;
  return out;
}

bool SameColumns(const std::vector<binlog::ColumnDef>& a, const std::vector<binlog::ColumnDef>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!schema::SameColumn(a[i], b[i])) return false;
  return true;
}

const binlog::ColumnDef* FindColumn(const std::vector<binlog::ColumnDef>& columns,
                                    const std::string& name) {
  for (const auto& c : columns)
    if (SameName(c.name, name)) return &c;
  return nullptr;
}

const mapping::TargetColumn* FindTargetColumn(const std::vector<mapping::TargetColumn>& columns,
                                              const std::string& name) {
  for (const auto& c : columns)
    if (SameName(c.name, name)) return &c;
  return nullptr;
}

// Old -> new column names an ALTER renamed (RENAME COLUMN, CHANGE with a new name).
std::vector<std::pair<std::string, std::string>> RenamedColumns(
    const schema::DdlStatement& statement) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto* alter = std::get_if<schema::AlterTable>(&statement);
  if (alter == nullptr) return out;
  for (const schema::AlterSpec& spec : alter->specs) {
    std::string to;
    if (spec.kind == schema::AlterSpec::Kind::kRenameColumn) {
      to = spec.new_name;
    } else if (spec.kind == schema::AlterSpec::Kind::kChangeColumn) {
      to = spec.definition.name;
    } else {
      continue;
    }
    if (SameName(spec.column, to)) continue;
    bool chained = false;
    for (auto& [from, current] : out) {
      if (SameName(current, spec.column)) {
        current = to;
        chained = true;
      }
    }
    if (!chained) out.emplace_back(spec.column, to);
  }
  return out;
}

// Literal defaults (numbers, plain quoted strings) of the columns an ALTER added.
std::map<std::string, std::string> AddedDefaults(const schema::DdlStatement& statement) {
  std::map<std::string, std::string> out;
  const auto* alter = std::get_if<schema::AlterTable>(&statement);
  if (alter == nullptr) return out;
  for (const schema::AlterSpec& spec : alter->specs) {
    if (spec.kind != schema::AlterSpec::Kind::kAddColumn || !spec.definition.default_value)
      continue;
    const std::string& v = *spec.definition.default_value;
    const bool number = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    });
    const bool text = v.size() >= 2 && v.front() == '\'' && v.back() == '\'' &&
                      v.find('\\') == std::string::npos &&
                      v.substr(1, v.size() - 2).find('\'') == std::string::npos;
    if (number || text) out[spec.definition.name] = v;
  }
  return out;
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
  if (ctx_.history != nullptr) {
    // Defaults of tables created later without a charset (CREATE TABLE in an existing database).
    for (auto& row : source.QueryRows(
             "SELECT s.SCHEMA_NAME, co.ID FROM information_schema.SCHEMATA s JOIN "
             "information_schema.COLLATIONS co ON co.COLLATION_NAME = s.DEFAULT_COLLATION_NAME")) {
      if (row.size() < 2 || !row[0] || !row[1]) continue;
      ctx_.history->SetDatabaseCollation(
          *row[0], static_cast<uint32_t>(std::strtoul(row[1]->c_str(), nullptr, 10)));
    }
  }
  for (const SourceTableName& name : ListSourceTables(source)) {
    const int rule = matcher_.Match(name.database, name.table);
    if (rule == config::TableMatcher::kNoRule) continue;
    if (tables_.count(name) != 0) continue;  // stopped earlier
    std::vector<std::string> table_problems;
    SourceTable& table = GetOrCreate(name, rule, &table_problems, ctx_.start, &source);
    if (table.target != nullptr && table.known) {
      // Resuming before schema changes that were already carried to the target: its columns are
      // those after them. Not a problem here: the first TABLE_MAP reconciles the target's columns
      // (Reconcile) before the plan that writes rows is built, and that plan skips nothing.
      mapping::PlanOptions options = PlanOptionsFor(table);
      options.skip_missing_target_columns = ctx_.have_checkpoint && Applies(table);
      mapping::ConversionPlan::Build(table.known->columns, table.target->columns, options,
                                     table_problems);
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

std::optional<SourceTableSchema> TableRouter::SchemaOf(const SourceTableName& name,
                                                       const schema::BinlogPosition& position,
                                                       mysql::Connection& source) {
  if (ctx_.history != nullptr) {
    const schema::SchemaVersion* v = ctx_.history->SchemaAt(RefOf(name), position);
    if (v != nullptr && v->state == schema::TableState::kKnown) return FromHistory(v->schema, name);
  }
  std::optional<SourceTableSchema> loaded =
      LoadSourceTableSchema(source, name.database, name.table);
  if (loaded && ctx_.history != nullptr) {
    schema::TableSchema seed;
    seed.name = RefOf(name);
    seed.columns = loaded->columns;
    seed.primary_key = loaded->primary_key;
    for (auto& row : source.QueryRows(fmt::format(
             "SELECT co.ID FROM information_schema.TABLES t JOIN information_schema.COLLATIONS co "
             "ON co.COLLATION_NAME = t.TABLE_COLLATION WHERE t.TABLE_SCHEMA = {} AND "
             "t.TABLE_NAME = {}",
             QuoteString(name.database), QuoteString(name.table)))) {
      if (!row.empty() && row[0])
        seed.default_collation = static_cast<uint32_t>(std::strtoul(row[0]->c_str(), nullptr, 10));
    }
    ctx_.history->Seed(seed, position);
    if (!position.file.empty()) {
      spdlog::info("{}: columns read from the source's information_schema, valid from {}",
                   name.ToString(), position.ToString());
    }
  }
  return loaded;
}

SourceTable& TableRouter::GetOrCreate(const SourceTableName& name, int rule_index,
                                      std::vector<std::string>* problems,
                                      const schema::BinlogPosition& at, mysql::Connection* source) {
  const std::string position = at.ToString();
  auto it = tables_.find(name);
  if (it != tables_.end()) return *it->second;
  auto owned = std::make_unique<SourceTable>();
  SourceTable& table = *owned;
  tables_[name] = std::move(owned);
  table.name = name;
  table.rule_index = rule_index;
  table.rule = &ctx_.config->tables[static_cast<size_t>(rule_index)];
  if (BeforeStart(name, at)) table.starts_at = ctx_.table_starts.at(name);

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
    const schema::SchemaVersion* version =
        ctx_.history != nullptr ? ctx_.history->SchemaAt(RefOf(name), at) : nullptr;
    if (version != nullptr && version->state == schema::TableState::kKnown) {
      table.known = FromHistory(version->schema, name);  // no connection needed
    } else {
      std::unique_ptr<mysql::Connection> own;
      if (source == nullptr) {
        own = ctx_.connect_source();
        source = own.get();
      }
      table.known = SchemaOf(name, at, *source);
    }
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    out.push_back(fmt::format("{}: {}", name.ToString(), e.what()));
  }
  if (out.size() == before)
    table.target = follow_target_ != nullptr ? follow_target_ : ResolveTarget(table, out);
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
        if (std::find(ctx_.created_targets.begin(), ctx_.created_targets.end(), label) ==
            ctx_.created_targets.end()) {
          ctx_.created_targets.push_back(label);
        }
        if (ctx_.on_created) ctx_.on_created(label);
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
                                     const schema::BinlogPosition& position) {
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
  if (!table.stopped && !BeforeStart(table.name, position)) Use(table, map, position);
  return route;
}

bool TableRouter::Use(SourceTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
                      const schema::BinlogPosition& at) {
  if (table.stopped) return false;
  if (table.map == map.get()) return true;
  const std::string position = at.ToString();
  const auto& columns = map->map.columns;
  if (ctx_.history != nullptr) {
    // The columns of the table at this very position, whatever the source has now.
    const schema::SchemaVersion* v = ctx_.history->SchemaAt(RefOf(table.name), at);
    if (v != nullptr && v->state == schema::TableState::kKnown) {
      table.known = FromHistory(v->schema, table.name);
    } else if (AllNamed(columns)) {
      table.known.reset();  // the TABLE_MAP names them: seeded below
    } else {
      try {
        table.known = SchemaOf(table.name, at, *ctx_.connect_source());
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        Stop(table, position, e.what());
        return false;
      }
    }
  }
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
    if (ctx_.history != nullptr) {
      schema::TableSchema seed;
      seed.name = RefOf(table.name);
      seed.columns = schema.columns;
      seed.primary_key = schema.primary_key;
      ctx_.history->Seed(seed, at);
    }
    table.known = std::move(schema);
  }
  if (auto diff = SchemaDifference(table.known->columns, columns)) {
    if (ctx_.history != nullptr) {
      StopForSchema(table, position,
                    fmt::format("the TABLE_MAP at {} does not describe the columns the schema "
                                "history has for {} there: {}",
                                position, table.name.ToString(), *diff));
    } else {
      Stop(table, position,
           fmt::format("the TABLE_MAP at {} does not describe the columns rowbridge knows for {}: "
                       "{}. The table's schema changed and rowbridge cannot follow schema "
                       "changes yet",
                       position, table.name.ToString(), *diff));
    }
    return false;
  }
  table.decoded = std::make_unique<binlog::TableInfo>(*map);
  EnrichFromSchema(table.known->columns, table.decoded->map.columns);
  table.map_has_names = AllNamed(columns);
  table.suspect = false;
  table.map = map.get();
  table.map_owner = map;
  if (ctx_.history != nullptr && Applies(table)) {
    // A column the target lacks (added while rowbridge was away, or replayed from before a DROP
    // that ClickHouse already had) is added before the plan needs it.
    try {
      Reconcile(table, nullptr, table.decoded->map.columns, {});
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      StopForSchema(table, position, e.what());
      return false;
    }
  }
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

void TableRouter::OnStatementWithoutHistory(std::string_view sql, std::string_view default_database,
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

void TableRouter::OnStatement(std::string_view sql, const binlog::QueryEvent& query,
                              const schema::BinlogPosition& position) {
  if (ctx_.history == nullptr) {
    OnStatementWithoutHistory(sql, query.database, position.ToString());
    return;
  }
  schema::DdlOutcome outcome;
  try {
    outcome = ctx_.history->ApplyDdl(
        sql, schema::ParseOptions::ForQuery(query.database, query.sql_mode.value_or(0)),
        {query.collation_server.value_or(0)}, position);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    // The history could not follow: only the replicated tables the statement names stop.
    const StatementTables st = ClassifyStatement(sql, query.database);
    for (const SourceTableName& name : st.tables) {
      const int rule = matcher_.Match(name.database, name.table);
      if (rule == config::TableMatcher::kNoRule) continue;
      if (BeforeStart(name, position)) {
        spdlog::warn(
            "{}: the schema history could not follow {} at {} ({}); the table's copy "
            "starts later, its columns there are checked against its TABLE_MAPs",
            name.ToString(), Abbreviated(sql), position.ToString(), e.what());
        continue;
      }
      auto it = tables_.find(name);
      if (it == tables_.end()) {
        StoppedTable stopped{name.database, name.table, position.ToString(), ""};
        AddStopped(stopped);
        it = tables_.find(name);
        it->second->stopped = false;
      }
      StopForSchema(
          *it->second, position.ToString(),
          fmt::format("cannot follow the schema change ({}): {}", Abbreviated(sql), e.what()));
    }
    return;
  }
  if (outcome.replayed || std::holds_alternative<schema::NoTableChange>(outcome.statement)) return;
  for (const schema::TableChange& change : outcome.changes) {
    OnChange(change, outcome.statement, position, sql);
  }
  ctx_.history->Prune(position);
  if (ctx_.on_history) ctx_.on_history(*ctx_.history);
}

bool TableRouter::Applies(const SourceTable& table) const {
  if (table.rule == nullptr || table.target == nullptr) return false;
  switch (table.rule->schema_changes) {
    case config::SchemaChanges::kApply:
      return true;
    case config::SchemaChanges::kStop:
      return false;
    case config::SchemaChanges::kAuto:
      break;
  }
  return std::find(ctx_.created_targets.begin(), ctx_.created_targets.end(), table.target->label) !=
         ctx_.created_targets.end();
}

bool TableRouter::IsReplicated(const binlog::ColumnDef& column,
                               const config::TableRule& rule) const {
  auto listed = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& n) { return SameName(n, column.name); });
  };
  if (!rule.include_columns.empty() && !listed(rule.include_columns)) return false;
  return !listed(rule.exclude_columns);
}

bool TableRouter::Drain(SourceTable& table) {
  if (table.target == nullptr) return true;
  std::vector<TargetGroup*> groups;
  for (auto& [signature, group] : table.target->groups) groups.push_back(group);
  std::unique_lock lock(ctx_.buffers->mutex());
  return ctx_.buffers->Drain(lock, groups);
}

void TableRouter::Reconcile(SourceTable& table, const std::vector<binlog::ColumnDef>* before,
                            const std::vector<binlog::ColumnDef>& after,
                            const std::vector<std::pair<std::string, std::string>>& renames,
                            const std::map<std::string, std::string>& added_defaults) {
  TargetTable& target = *table.target;
  const config::TableRule& rule = *table.rule;
  if (!ctx_.config->target.cluster.empty()) {
    Fail(ErrorCode::kUnsupported,
         "{}: schema changes are not applied to clustered target tables ({}); alter {} by hand "
         "and restart",
         table.name.ToString(), ctx_.config->target.cluster, target.label);
  }
  const auto& features = ctx_.targets->features();
  mapping::TypeMappingOptions types;
  types.time_zone = rule.conversion.datetime_timezone;
  const std::vector<std::string> key = KeyNames(table);
  auto is_key = [&](const std::string& name) {
    return std::any_of(key.begin(), key.end(),
                       [&](const std::string& k) { return SameName(k, name); });
  };
  const std::string quoted = mapping::QuoteTableName(target.database, target.table);
  std::vector<std::string> statements;
  auto current = [&]() -> const std::vector<mapping::TargetColumn>& { return target.columns; };
  auto run = [&](const std::string& sql) {
    spdlog::info("{}: {}", table.name.ToString(), sql);
    ctx_.targets->Execute(sql);
    auto columns = ctx_.targets->ReadColumns(target.database, target.table);
    if (!columns) Fail(ErrorCode::kUnsupported, "target table {} vanished", target.label);
    target.columns = std::move(*columns);
  };
  auto type_of = [&](const binlog::ColumnDef& c) {
    return mapping::DefaultClickHouseType(c, types, features, is_key(c.name)).name;
  };
  const bool rename_supported = features.version() >= clickhouse::ServerVersion{20, 4, 0};
  for (const auto& [from, to] : renames) {
    const binlog::ColumnDef* now = FindColumn(after, to);
    if (now == nullptr || !IsReplicated(*now, rule)) continue;
    if (FindTargetColumn(current(), from) == nullptr || FindTargetColumn(current(), to) != nullptr)
      continue;
    if (is_key(from) || is_key(to)) {
      Fail(ErrorCode::kUnsupported,
           "{}: column {} renamed to {} is part of the target's key (ORDER BY); ClickHouse cannot "
           "rename key columns",
           table.name.ToString(), from, to);
    }
    if (rename_supported) {
      run(fmt::format("ALTER TABLE {} RENAME COLUMN {} TO {}", quoted,
                      mapping::QuoteIdentifier(from), mapping::QuoteIdentifier(to)));
    } else {
      // No RENAME COLUMN before 20.4: the new column is added and filled from the old one by a
      // mutation; the old column stays (its rows written after the rename get its default).
      run(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", quoted, mapping::QuoteIdentifier(to),
                      type_of(*now)));
      run(fmt::format("ALTER TABLE {} UPDATE {} = CAST({} AS {}) WHERE 1", quoted,
                      mapping::QuoteIdentifier(to), mapping::QuoteIdentifier(from), type_of(*now)));
    }
  }
  if (before != nullptr) {
    for (const binlog::ColumnDef& old : *before) {
      if (!IsReplicated(old, rule) || FindColumn(after, old.name) != nullptr) continue;
      if (std::any_of(renames.begin(), renames.end(),
                      [&](const auto& r) { return SameName(r.first, old.name); })) {
        continue;
      }
      if (FindTargetColumn(current(), old.name) == nullptr) continue;
      if (is_key(old.name)) {
        Fail(ErrorCode::kUnsupported,
             "{}: dropped column {} is part of the target's key (ORDER BY) and cannot be dropped "
             "in ClickHouse",
             table.name.ToString(), old.name);
      }
      run(fmt::format("ALTER TABLE {} DROP COLUMN {}", quoted, mapping::QuoteIdentifier(old.name)));
    }
  }
  for (const binlog::ColumnDef& c : after) {
    if (!IsReplicated(c, rule) || c.name.empty()) continue;
    const mapping::TargetColumn* tc = FindTargetColumn(current(), c.name);
    if (tc == nullptr) {
      // The source fills its existing rows with the column's default without row events; a
      // literal default does the same in ClickHouse.
      std::string default_clause;
      auto d = added_defaults.find(c.name);
      if (d != added_defaults.end()) default_clause = " DEFAULT " + d->second;
      run(fmt::format("ALTER TABLE {} ADD COLUMN {} {}{}", quoted, mapping::QuoteIdentifier(c.name),
                      type_of(c), default_clause));
      continue;
    }
    if (before == nullptr) continue;
    // Only a source type change changes the target's type: a target column of another type the
    // user chose stays.
    const binlog::ColumnDef* old = FindColumn(*before, c.name);
    for (const auto& [from, to] : renames) {
      if (SameName(to, c.name)) old = FindColumn(*before, from);
    }
    if (old == nullptr || schema::SameColumn(*old, c)) continue;
    const std::string wanted = type_of(c);
    if (type_of(*old) == wanted || tc->type.name == wanted) continue;
    if (is_key(c.name)) {
      Fail(ErrorCode::kUnsupported,
           "{}: the type of column {} changed to {}, but it is part of the target's key (ORDER "
           "BY), whose type ClickHouse cannot change",
           table.name.ToString(), c.name, wanted);
    }
    // A column added with a DEFAULT holds no values in the parts written before the ADD: ClickHouse
    // computes them from the default, which a MODIFY without one would drop (they would read as
    // NULL). MySQL materialized them at the ADD, so the ADD-time default stays.
    const std::string kept_default =
        ctx_.targets->DefaultExpression(target.database, target.table, c.name);
    run(fmt::format("ALTER TABLE {} MODIFY COLUMN {} {}{}", quoted,
                    mapping::QuoteIdentifier(c.name), wanted,
                    kept_default.empty() ? "" : " DEFAULT " + kept_default));
  }
}

void TableRouter::Retire(const SourceTableName& name) {
  auto it = tables_.find(name);
  if (it == tables_.end()) return;
  retired_.push_back(std::move(it->second));
  tables_.erase(it);
  // Routes point at the retired table; the next TABLE_MAP of every table routes afresh (DDL is
  // outside transactions, so every rows event after it follows its own TABLE_MAP).
  routes_.clear();
}

void TableRouter::StopForSchema(SourceTable& table, const std::string& position,
                                const std::string& reason) {
  if (table.stopped) return;
  if (ctx_.on_schema_error) ctx_.on_schema_error();
  Stop(table, position, reason);
}

void TableRouter::OnChange(const schema::TableChange& change, const schema::DdlStatement& statement,
                           const schema::BinlogPosition& position, std::string_view sql) {
  using Kind = schema::TableChange::Kind;
  const std::string where = position.ToString();
  const SourceTableName name{change.table.database, change.table.table};
  const int rule = matcher_.Match(name.database, name.table);
  if (BeforeStart(name, position)) {
    // Its target holds the table as of its copy's end, after this statement.
    spdlog::debug("{} at {}: {} is copied as of a later position; its target is left as it is",
                  Abbreviated(sql), where, name.ToString());
    return;
  }

  TargetTable* followed = nullptr;
  bool from_replicated = false;
  if (change.kind == Kind::kRenamed && change.from) {
    const SourceTableName from{change.from->database, change.from->table};
    auto it = tables_.find(from);
    if (it != tables_.end() && !it->second->stopped) {
      from_replicated = true;
      if (!Drain(*it->second)) return;
      followed = it->second->target;
      spdlog::info("{} renamed to {} at {}; its rows go where the rules route {}", from.ToString(),
                   name.ToString(), where, name.ToString());
      Retire(from);
    }
  }
  if (change.kind == Kind::kDropped) {
    auto it = tables_.find(name);
    if (it == tables_.end() || it->second->stopped) return;
    SourceTable& table = *it->second;
    if (!Drain(table)) return;
    if (table.target != nullptr && table.rule->drop_table == config::DropTable::kDrop &&
        Applies(table)) {
      try {
        ctx_.targets->Execute("DROP TABLE IF EXISTS " +
                              mapping::QuoteTableName(table.target->database, table.target->table));
        spdlog::info("{} dropped at {}: dropped its target table {}", name.ToString(), where,
                     table.target->label);
        auto target = target_tables_.find(table.target->label);
        if (target != target_tables_.end()) {
          retired_targets_.push_back(std::move(target->second));
          target_tables_.erase(target);
        }
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        StopForSchema(table, where, fmt::format("DROP TABLE at {}: {}", where, e.what()));
        return;
      }
    } else {
      spdlog::info("{} dropped at {}; its target table keeps its rows", name.ToString(), where);
    }
    Retire(name);
    return;
  }
  if (rule == config::TableMatcher::kNoRule) return;

  if (change.kind == Kind::kCreated || change.kind == Kind::kRenamed) {
    // A table under a matched name from now on: its target is created or checked now, with the
    // columns of this position, so it follows its columns even before its first row.
    // The table that had this name just before (gh-ost's RENAME t TO _t_del, _t_gho TO t):
    // columns it had and the new one lacks are dropped from the target.
    schema::BinlogPosition before = position;
    if (before.offset > 0) --before.offset;
    const schema::SchemaVersion* previous = ctx_.history->SchemaAt(change.table, before);
    std::optional<std::vector<binlog::ColumnDef>> previous_columns;
    if (previous != nullptr && previous->state == schema::TableState::kKnown)
      previous_columns = previous->schema.columns;
    // (A name that had a table just before is a swap, e.g. gh-ost's: its target goes on.)
    const bool name_was_taken =
        previous != nullptr && previous->state != schema::TableState::kAbsent;
    Retire(name);
    if (followed != nullptr) {
      // RENAME follows the table into its old target, unless the rules' target for the new name
      // exists already (gh-ost's swap: the shadow becomes the table the target was made for).
      const config::TableRule& r = ctx_.config->tables[static_cast<size_t>(rule)];
      const config::QualifiedName qn =
          config::ExpandTarget(r.target, ctx_.config->target.database, name.database, name.table);
      const std::string label = qn.database + "." + qn.table;
      const bool own_exists = target_tables_.count(label) != 0 ||
                              ctx_.targets->ReadColumns(qn.database, qn.table).has_value();
      if (own_exists || followed->mode != ToPlanMode(r.mode)) followed = nullptr;
    }
    follow_target_ = followed;
    SourceTable& table = GetOrCreate(name, rule, nullptr, position, nullptr);
    follow_target_ = nullptr;
    if (change.kind == Kind::kCreated || from_replicated) {
      if (ctx_.on_replicated) ctx_.on_replicated(name.ToString());
    } else if (change.from && !name_was_taken) {
      spdlog::warn(
          "{} is replicated from {} on: it was renamed from {}, which no rule replicated, so the "
          "rows it had then are not in its target. To copy them, restart rowbridge (SIGTERM, "
          "then run with snapshot.enabled): a table matched since the last start is copied",
          name.ToString(), where,
          SourceTableName{change.from->database, change.from->table}.ToString());
    }
    if (followed != nullptr) {
      spdlog::info("{} now writes into {} (the target of its old name)", name.ToString(),
                   followed->label);
    }
    if (table.stopped || table.target == nullptr || !table.known) return;
    if (Applies(table)) {
      try {
        Reconcile(table, previous_columns ? &*previous_columns : nullptr, table.known->columns, {});
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        StopForSchema(table, where, e.what());
      }
    }
    return;
  }

  auto it = tables_.find(name);
  SourceTable* table = it == tables_.end() ? nullptr : it->second.get();
  if (table == nullptr) {
    // Not seen yet in this session: resolve it with the columns before the statement, so the
    // change is carried to its target like for any other table.
    schema::BinlogPosition before = position;
    if (before.offset > 0) --before.offset;
    table = &GetOrCreate(name, rule, nullptr, before, nullptr);
  }
  if (table->stopped || table->target == nullptr) return;
  const std::string statement_text = Abbreviated(sql);

  switch (change.kind) {
    case Kind::kAltered: {
      if (!change.schema) {
        StopForSchema(*table, where,
                      fmt::format("{} at {} leaves its columns unknown", statement_text, where));
        return;
      }
      const std::vector<binlog::ColumnDef> old_columns =
          table->known ? table->known->columns : std::vector<binlog::ColumnDef>{};
      if (table->known && SameColumns(old_columns, change.schema->columns)) {
        table->known = FromHistory(*change.schema, name);  // keys or options only
        table->map = nullptr;
        return;
      }
      if (!Applies(*table)) {
        StopForSchema(*table, where,
                      fmt::format("ALTER TABLE at {} changes its columns ({}) and the rule says "
                                  "schema_changes: {}",
                                  where, statement_text,
                                  table->rule->schema_changes == config::SchemaChanges::kStop
                                      ? "stop"
                                      : "auto (the target table was not created by rowbridge)"));
        return;
      }
      if (!Drain(*table)) return;
      try {
        Reconcile(*table, table->known ? &old_columns : nullptr, change.schema->columns,
                  RenamedColumns(statement), AddedDefaults(statement));
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        StopForSchema(*table, where,
                      fmt::format("cannot apply {} at {} to {}: {}", statement_text, where,
                                  table->target->label, e.what()));
        return;
      }
      table->known = FromHistory(*change.schema, name);
      table->map = nullptr;  // the next rows event builds the plan for the new columns
      table->plan.reset();
      return;
    }
    case Kind::kTruncated: {
      if (!Applies(*table)) {
        StopForSchema(*table, where,
                      fmt::format("TRUNCATE at {} removed its rows unseen and the rule does not "
                                  "apply schema changes",
                                  where));
        return;
      }
      if (!Drain(*table)) return;
      if (table->target->mode != mapping::TableMode::kReplica) {
        spdlog::info("{} truncated at {}; the changelog {} keeps its history", name.ToString(),
                     where, table->target->label);
        return;
      }
      try {
        ctx_.targets->Execute("TRUNCATE TABLE " + mapping::QuoteTableName(table->target->database,
                                                                          table->target->table));
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        StopForSchema(*table, where, fmt::format("TRUNCATE at {}: {}", where, e.what()));
        return;
      }
      // Rows a replay finds present after this point were just removed: write them again.
      table->target->present_versions.clear();
      table->target->present_next = 0;
      spdlog::info("{} truncated at {}: truncated {}", name.ToString(), where,
                   table->target->label);
      return;
    }
    case Kind::kRowsChanged:
      StopForSchema(*table, where,
                    fmt::format("{} at {} removed or moved rows without row events; the target "
                                "no longer matches (copy the table again)",
                                statement_text, where));
      return;
    default:
      return;
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
