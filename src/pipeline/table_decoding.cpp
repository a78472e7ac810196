// TableRouter's part that makes a table decode a TABLE_MAP (table_router.h): the table's columns
// at the TABLE_MAP's position, the TABLE_MAP checked against them, the target brought to them, and
// the conversion plan with the batch group its rows go into.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "pipeline/table_router.h"

namespace rowbridge::pipeline {

namespace {

bool AllNamed(const std::vector<binlog::ColumnDef>& columns) {
  return !columns.empty() &&
         std::all_of(columns.begin(), columns.end(), [](const auto& c) { return !c.name.empty(); });
}

}  // namespace

std::optional<tables::SourceTableSchema> TableRouter::SchemaOf(
    const tables::SourceTableName& name, const schema::BinlogPosition& position,
    mysql::Connection& source) {
  const schema::SchemaVersion* v = ctx_.history->SchemaAt(SourceRef(name), position);
  if (v != nullptr && v->state == schema::TableState::kKnown)
    return SchemaFromHistory(v->schema, name);
  std::optional<tables::SourceTableSchema> loaded =
      tables::LoadSourceTableSchema(source, name.database, name.table);
  if (loaded) {
    schema::TableSchema seed;
    seed.name = SourceRef(name);
    seed.columns = loaded->columns;
    seed.primary_key = loaded->primary_key;
    seed.default_collation = tables::LoadTableCollation(source, name);
    ctx_.history->Seed(seed, position);
    if (!position.file.empty()) {
      spdlog::info("{}: columns read from the source's information_schema, valid from {}",
                   name.ToString(), position.ToString());
    }
  }
  return loaded;
}

bool TableRouter::KnowColumns(StreamedTable& table,
                              const std::shared_ptr<const binlog::TableInfo>& map,
                              const schema::BinlogPosition& at) {
  const std::string position = at.ToString();
  const auto& columns = map->map.columns;
  // The columns of the table at this very position, whatever the source has now.
  const schema::SchemaVersion* v = ctx_.history->SchemaAt(SourceRef(table.name), at);
  if (v != nullptr && v->state == schema::TableState::kKnown) {
    table.known = SchemaFromHistory(v->schema, table.name);
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
  if (!table.known) {
    if (!AllNamed(columns)) {
      Stop(table, position,
           "the table is not in the source's information_schema (dropped?) and the binlog does "
           "not name its columns (binlog_row_metadata is not FULL)");
      return false;
    }
    tables::SourceTableSchema schema;
    schema.name = table.name;
    schema.columns = columns;
    schema.primary_key = map->map.primary_key;
    for (uint32_t i : schema.primary_key)
      if (i < schema.columns.size()) schema.columns[i].is_primary_key = true;
    schema::TableSchema seed;
    seed.name = SourceRef(table.name);
    seed.columns = schema.columns;
    seed.primary_key = schema.primary_key;
    ctx_.history->Seed(seed, at);
    table.known = std::move(schema);
  }
  return true;
}

bool TableRouter::Use(StreamedTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
                      const schema::BinlogPosition& at) {
  if (table.stopped) return false;
  if (table.map == map.get()) return true;
  const std::string position = at.ToString();
  if (!KnowColumns(table, map, at)) return false;
  const auto& columns = map->map.columns;
  if (auto diff = tables::SchemaDifference(table.known->columns, columns)) {
    StopForSchema(table, position,
                  fmt::format("the TABLE_MAP at {} does not describe the columns the schema "
                              "history has for {} there: {}",
                              position, table.name.ToString(), *diff));
    return false;
  }
  table.decoded = std::make_unique<binlog::TableInfo>(*map);
  tables::EnrichFromSchema(table.known->columns, table.decoded->map.columns);
  table.map = map.get();
  table.map_owner = map;
  if (ctx_.resolver->AppliesSchemaChanges(table)) {
    // A column the target lacks (added while rowbridge was away, or replayed from before a DROP
    // that ClickHouse already had) is added before the plan needs it.
    try {
      ddl_.Reconcile(table, KeyNames(table), nullptr, table.decoded->map.columns, {}, 0);
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      StopForSchema(table, position, e.what());
      return false;
    }
  }
  return BuildPlan(table, position);
}

bool TableRouter::BuildPlan(StreamedTable& table, const std::string& position) {
  std::vector<std::string> problems;
  mapping::ConversionPlan plan = mapping::ConversionPlan::Build(
      table.decoded->map.columns, table.target->columns,
      ctx_.resolver->PlanOptionsFor(table, KeyNames(table)), problems);
  if (!problems.empty()) {
    Stop(table, position, JoinedProblems(problems));
    return false;
  }
  std::string signature;
  for (const auto& c : plan.insert_columns()) signature += c.name + " " + c.type.name + "\n";
  const tables::TargetTable& target = *table.target;
  TargetGroup*& group = table.target_state->groups[signature];
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

}  // namespace rowbridge::pipeline
