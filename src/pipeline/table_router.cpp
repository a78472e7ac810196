#include "pipeline/table_router.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <variant>

#include "clickhouse/sql_quote.h"
#include "common/log_fields.h"
#include "config/target_template.h"
#include "mapping/ddl.h"
#include "mysql/sql_quote.h"
#include "pipeline/target_alter.h"
#include "tables/statement_tables.h"

namespace rowbridge::pipeline {

namespace {

std::string Abbreviated(std::string_view sql, size_t max = 300) {
  std::string s(sql.substr(0, max));
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (sql.size() > max) s += "...";
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

schema::TableRef RefOf(const tables::SourceTableName& name) {
  return {name.database, name.table};
}

tables::SourceTableSchema FromHistory(const schema::TableSchema& table,
                                      const tables::SourceTableName& name) {
  tables::SourceTableSchema out;
  out.name = name;
  out.columns = table.columns;
  out.primary_key = table.primary_key;
  return out;
}

// The position just before `position`: where a statement's table still has its old columns.
schema::BinlogPosition JustBefore(schema::BinlogPosition position) {
  if (position.offset > 0) --position.offset;
  return position;
}

bool SameColumns(const std::vector<binlog::ColumnDef>& a, const std::vector<binlog::ColumnDef>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!schema::SameColumn(a[i], b[i])) return false;
  return true;
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
    if (tables::SameColumnName(spec.column, to)) continue;
    bool chained = false;
    for (auto& [from, current] : out) {
      if (tables::SameColumnName(current, spec.column)) {
        current = to;
        chained = true;
      }
    }
    if (!chained) out.emplace_back(spec.column, to);
  }
  return out;
}

}  // namespace

TableRouter::TableRouter(RouterContext context) : ctx_(std::move(context)) {}

void TableRouter::AddStopped(const state::StoppedTable& stopped) {
  tables::SourceTableName name{stopped.database, stopped.table};
  auto table = std::make_unique<StreamedTable>();
  table->name = name;
  table->rule_index = ctx_.resolver->Match(name);
  table->stopped = true;
  table->stop_reason = stopped.reason;
  tables_[name] = std::move(table);
}

void TableRouter::Prepare(mysql::Connection& source, std::vector<std::string>& problems) {
  // Defaults of tables created later without a charset (CREATE TABLE in an existing database).
  for (auto& row : source.QueryRows(
           "SELECT s.SCHEMA_NAME, co.ID FROM information_schema.SCHEMATA s JOIN "
           "information_schema.COLLATIONS co ON co.COLLATION_NAME = s.DEFAULT_COLLATION_NAME")) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    ctx_.history->SetDatabaseCollation(
        *row[0], static_cast<uint32_t>(std::strtoul(row[1]->c_str(), nullptr, 10)));
  }
  const std::vector<tables::SourceTableName> names = tables::ListSourceTables(source);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const tables::SourceTableName& name : names) pairs.emplace_back(name.database, name.table);
  // Not a problem: the table may be created later, and is then replicated from its CREATE TABLE.
  for (const std::string& warning : config::RulesMatchingNothing(ctx_.config->tables, pairs)) {
    spdlog::warn("{}", warning);
  }
  const std::set<tables::SourceTableName> created_in_replay =
      ctx_.created_in_replay ? ctx_.created_in_replay(names) : std::set<tables::SourceTableName>();
  for (const tables::SourceTableName& name : names) {
    const int rule = ctx_.resolver->Match(name);
    if (rule == config::TableMatcher::kNoRule) continue;
    if (tables_.count(name) != 0) continue;            // stopped earlier
    if (created_in_replay.count(name) != 0) continue;  // the replay creates it
    if (RenamedToLater(ctx_.resolver->TargetLabel(name, rule), ctx_.start)) {
      // Renamed from another table after the checkpoint: the name is not the table's yet where
      // the stream starts (its columns are not seeded there), and its target may not have been
      // renamed before a crash. The stream reaches the RENAME again and goes on from there.
      continue;
    }
    std::vector<std::string> table_problems;
    StreamedTable& table = GetOrCreate(name, rule, &table_problems, ctx_.start, &source);
    if (table.target != nullptr && table.known) {
      // Resuming before schema changes that were already carried to the target: its columns are
      // those after them. Not a problem here: the first TABLE_MAP reconciles the target's columns
      // (Reconcile) before the plan that writes rows is built, and that plan skips nothing.
      mapping::PlanOptions options = ctx_.resolver->PlanOptionsFor(table, KeyNames(table));
      options.skip_missing_target_columns =
          ctx_.have_checkpoint && ctx_.resolver->AppliesSchemaChanges(table);
      mapping::ConversionPlan::Build(table.known->columns, table.target->columns, options,
                                     table_problems);
    }
    problems.insert(problems.end(), table_problems.begin(), table_problems.end());
  }
}

std::vector<TargetState*> TableRouter::targets() {
  std::vector<TargetState*> out;
  for (tables::TargetTable* target : ctx_.resolver->targets()) {
    auto state = target_states_.find(target);
    if (state != target_states_.end()) out.push_back(state->second.get());
  }
  return out;
}

std::vector<std::string> TableRouter::KeyNames(const StreamedTable& table) const {
  return tables::KeyNames(table, table.decoded ? &table.decoded->map : nullptr);
}

std::optional<tables::SourceTableSchema> TableRouter::SchemaOf(
    const tables::SourceTableName& name, const schema::BinlogPosition& position,
    mysql::Connection& source) {
  const schema::SchemaVersion* v = ctx_.history->SchemaAt(RefOf(name), position);
  if (v != nullptr && v->state == schema::TableState::kKnown) return FromHistory(v->schema, name);
  std::optional<tables::SourceTableSchema> loaded =
      tables::LoadSourceTableSchema(source, name.database, name.table);
  if (loaded) {
    schema::TableSchema seed;
    seed.name = RefOf(name);
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

StreamedTable& TableRouter::GetOrCreate(const tables::SourceTableName& name, int rule_index,
                                        std::vector<std::string>* problems,
                                        const schema::BinlogPosition& at,
                                        mysql::Connection* source) {
  const std::string position = at.ToString();
  auto it = tables_.find(name);
  if (it != tables_.end()) return *it->second;
  auto owned = std::make_unique<StreamedTable>();
  StreamedTable& table = *owned;
  tables_[name] = std::move(owned);
  static_cast<tables::ReplicatedTable&>(table) = ctx_.resolver->Describe(name, rule_index);
  if (BeforeStart(name, at)) {
    table.starts_at = ctx_.table_starts.at(name);
    table.counts_before_start = ctx_.counted_starts.count(name) != 0;
  }

  std::vector<std::string> local_problems;
  std::vector<std::string>& out = problems != nullptr ? *problems : local_problems;
  const size_t before = out.size();
  ctx_.resolver->LoadZone(table, out);
  try {
    const schema::SchemaVersion* version = ctx_.history->SchemaAt(RefOf(name), at);
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
  if (out.size() == before) {
    if (follow_target_ != nullptr) {
      table.target = follow_target_;
    } else if (tables::TargetTable* redirected = RedirectedTarget(table, at, out)) {
      table.target = redirected;
    } else {
      table.target = ctx_.resolver->ResolveTarget(table, out);
    }
  }
  if (table.target != nullptr && !table.starts_at) {
    if (std::optional<schema::BinlogPosition> start = TargetCopiedLater(table.target->label, at)) {
      table.starts_at = *start;
      table.counts_before_start = true;
      spdlog::info(
          "{} at {}: its target {} was replaced by a copy as of {}, which holds its changes until "
          "there",
          name.ToString(), position, table.target->label, start->ToString());
    }
  }
  if (table.target != nullptr) table.target_state = StateOf(table.target);
  if (table.target != nullptr) table.stats = ctx_.make_stats(name, *table.target);
  if (out.size() != before) {
    if (problems == nullptr) Stop(table, position, JoinLines(out));
  } else if (problems == nullptr) {
    LogFields fields;
    fields.Table(name.database, name.table).Add("position", position);
    spdlog::info("replicating {} into {} ({} mode), first seen at {}", name.ToString(),
                 table.target->label, config::TableModeName(table.rule->mode), position);
  }
  return table;
}

StreamedTable& TableRouter::Adopt(const tables::SourceTableName& name,
                                  const schema::BinlogPosition& start,
                                  const schema::BinlogPosition& at) {
  ctx_.resolver->Release(name);
  ctx_.table_starts[name] = start;
  // A route cached while the table was held back leads nowhere; its next TABLE_MAP routes again.
  routes_.clear();
  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) {
    Fail(ErrorCode::kInternal, "{}: handed over by its copy, but no rule matches it",
         name.ToString());
  }
  return GetOrCreate(name, rule, nullptr, at, nullptr);
}

bool TableRouter::ReplaceTarget(
    const tables::SourceTableName& name, const schema::BinlogPosition& start,
    const config::QualifiedName& fresh, const schema::BinlogPosition& at,
    const std::function<void(const std::string& target)>& before_replace) {
  // Tables matched later copied into fresh tables were held back until now.
  ctx_.resolver->Release(name);
  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) {
    Fail(ErrorCode::kInternal, "{}: copied again, but no rule matches it", name.ToString());
  }
  auto it = tables_.find(name);
  if (it != tables_.end() && !it->second->stopped && !Drain(*it->second)) return false;
  const config::QualifiedName target = ctx_.resolver->TargetName(name, rule);
  before_replace(target.database + "." + target.table);
  RetryOptions retry;
  retry.policy = ctx_.ddl_retry;
  retry.stop = ctx_.stop;
  Retry(fmt::format("putting {}.{} in the place of {}.{}", fresh.database, fresh.table,
                    target.database, target.table),
        retry, [&] { ctx_.resolver->ReplaceWithFresh(target, fresh); });
  if (tables::TargetTable* record =
          ctx_.resolver->FindTarget(target.database + "." + target.table)) {
    // Inserts and replayed versions of the replaced table mean nothing to the fresh one.
    auto state = target_states_.find(record);
    if (state != target_states_.end()) {
      state->second->groups.clear();
      state->second->present_rows.clear();
      state->second->present_next = 0;
    }
  }
  if (it != tables_.end()) Retire(name);
  // Copied into the rules' target: an alias to its old name's target ends.
  EndAlias(name, start);
  ctx_.table_starts[name] = start;
  ctx_.counted_starts.insert(name);
  routes_.clear();
  StreamedTable& table = GetOrCreate(name, rule, nullptr, at, nullptr);
  if (!table.stopped && table.stats) table.stats->status.Resume();
  return true;
}

std::optional<state::StoppedTable> TableRouter::Pause(const tables::SourceTableName& name,
                                                      const schema::BinlogPosition& at) {
  auto it = tables_.find(name);
  if (it == tables_.end() || it->second->stopped) return std::nullopt;
  StreamedTable& table = *it->second;
  if (!Drain(table)) return std::nullopt;
  table.stopped = true;
  table.stop_reason = "paused by the operator";
  LogFields fields;
  fields.Table(name.database, name.table).Position(at.file, at.offset);
  spdlog::info("paused {} at {}: its changes up to there are in {}", name.ToString(), at.ToString(),
               table.target != nullptr ? table.target->label : "its target");
  return state::StoppedTable{name.database, name.table, at.ToString(), table.stop_reason, true};
}

void TableRouter::Resume(const tables::SourceTableName& name, const schema::BinlogPosition& start,
                         const schema::BinlogPosition& at) {
  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) {
    Fail(ErrorCode::kInternal, "{}: resumed, but no rule matches it", name.ToString());
  }
  // The operator may have fixed the target while the table was stopped.
  if (tables::TargetTable* record =
          ctx_.resolver->FindTarget(ctx_.resolver->TargetLabel(name, rule))) {
    ctx_.resolver->RereadColumns(*record);
  }
  Retire(name);
  ctx_.table_starts[name] = start;
  ctx_.counted_starts.insert(name);
  routes_.clear();
  StreamedTable& table = GetOrCreate(name, rule, nullptr, at, nullptr);
  if (!table.stopped && table.stats) table.stats->status.Resume();
}

TargetState* TableRouter::StateOf(tables::TargetTable* target) {
  std::unique_ptr<TargetState>& state = target_states_[target];
  if (state != nullptr) return state.get();
  state = std::make_unique<TargetState>();
  state->table = target;
  const bool has_version =
      std::any_of(target->columns.begin(), target->columns.end(),
                  [&](const mapping::TargetColumn& c) { return c.name == target->version_column; });
  if (has_version && ctx_.have_checkpoint) {
    const uint64_t max = ctx_.targets->MaxVersion(target->database, target->table,
                                                  target->version_column, ctx_.resume_version);
    if (max >= ctx_.replay_version_limit) {
      Fail(ErrorCode::kCorruption,
           "{} holds version {}, but the checkpoint {} says the next change gets version {}: a "
           "replay of the {} bytes of binlog the source has from there cannot reach {}, so the "
           "checkpoint does not belong to this target's rows (restored from an older backup, "
           "edited, or another job's), and every change written now would lose against the "
           "target's rows under FINAL. Restore the checkpoint that belongs to the target, or start "
           "over: delete the job's state so that the next start copies every table again "
           "(docs/running.md, \"Starting over\")",
           target->label, max, ctx_.checkpoint_description, ctx_.resume_version,
           ctx_.replay_binlog_bytes, max);
    }
    state->present_rows = ctx_.targets->VersionsFrom(*target, ctx_.resume_version);
    if (!state->present_rows.empty()) {
      spdlog::info(
          "{} already holds {} row(s) of versions {}..{} written after the checkpoint; "
          "replaying their changes skips them",
          target->label, state->present_rows.size(), state->present_rows.front().version,
          state->present_rows.back().version);
    }
  }
  return state.get();
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
  const int rule = ctx_.resolver->Match({map->map.database, map->map.table});
  if (rule == config::TableMatcher::kNoRule) return route;
  StreamedTable& table =
      GetOrCreate({map->map.database, map->map.table}, rule, nullptr, position, nullptr);
  route.table = &table;
  if (!table.stopped && !BeforeStart(table.name, position) && !InCopy(table, position)) {
    Use(table, map, position);
  }
  return route;
}

bool TableRouter::Use(StreamedTable& table, const std::shared_ptr<const binlog::TableInfo>& map,
                      const schema::BinlogPosition& at) {
  if (table.stopped) return false;
  if (table.map == map.get()) return true;
  const std::string position = at.ToString();
  const auto& columns = map->map.columns;
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
    seed.name = RefOf(table.name);
    seed.columns = schema.columns;
    seed.primary_key = schema.primary_key;
    ctx_.history->Seed(seed, at);
    table.known = std::move(schema);
  }
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
      Reconcile(table, nullptr, table.decoded->map.columns, {});
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
    Stop(table, position, JoinLines(problems));
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

void TableRouter::OnStatement(std::string_view sql, const binlog::QueryEvent& query,
                              const schema::BinlogPosition& position, const TransactionGtid& gtid,
                              uint64_t next_version) {
  statement_version_ = next_version;
  const schema::ParseOptions parse =
      schema::ParseOptions::ForQuery(query.database, query.sql_mode.value_or(0));
  schema::DdlOutcome outcome;
  try {
    outcome = ctx_.history->ApplyDdl(sql, parse, {query.collation_server.value_or(0)}, position);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    // The history could not follow: only the replicated tables the statement names stop.
    tables::StatementTables st;
    try {
      st = tables::ClassifyStatement(sql, query.database, parse.lex());
    } catch (const Error& lexing) {
      // Without its tokens no table can be named, and skipping the statement could lose a
      // change unseen: the run stops instead.
      Fail(ErrorCode::kUnsupported,
           "the schema history could not follow {} at {} ({}), and the tables it changes cannot "
           "be named: {}",
           Abbreviated(sql), position.ToString(), e.what(), lexing.what());
    }
    for (const tables::SourceTableName& name : st.tables) {
      const int rule = ctx_.resolver->Match(name);
      if (rule == config::TableMatcher::kNoRule) continue;
      if (BeforeStart(name, position)) {
        spdlog::warn(
            "{}: the schema history could not follow {} at {} ({}); the table's copy "
            "starts later, its columns there are checked against its TABLE_MAPs",
            name.ToString(), Abbreviated(sql), position.ToString(), e.what());
        continue;
      }
      StopForSchema(
          TableToStop(name, position.ToString()), position.ToString(),
          fmt::format("cannot follow the schema change ({}): {}", Abbreviated(sql), e.what()));
    }
    return;
  }
  if (const auto* none = std::get_if<schema::NoTableChange>(&outcome.statement)) {
    // Replayed or not: a replay from a checkpoint before the statement must stop again.
    if (none->is_dml) OnStatementDml(sql, query.database, parse.lex(), position, gtid);
    return;
  }
  if (outcome.replayed) return;
  for (const schema::TableChange& change : outcome.changes) {
    OnChange(change, outcome.statement, position, sql);
  }
  ctx_.history->Prune(position);
  if (ctx_.on_history) ctx_.on_history(*ctx_.history);
  // Row-based logging writes CREATE TABLE ... SELECT as the resolved CREATE TABLE and row
  // events; the SELECT itself in the binlog means the rows it inserted are not there.
  const auto* create = std::get_if<schema::CreateTable>(&outcome.statement);
  if (create != nullptr && create->as_select && !create->temporary) {
    StopForUnloggedRows(sql, "CREATE TABLE ... SELECT",
                        {{create->table.database, create->table.table}}, position, gtid);
  }
}

StreamedTable& TableRouter::TableToStop(const tables::SourceTableName& name,
                                        const std::string& position) {
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    AddStopped({name.database, name.table, position, ""});
    it = tables_.find(name);
    it->second->stopped = false;
  }
  return *it->second;
}

void TableRouter::OnStatementDml(std::string_view sql, std::string_view database,
                                 const schema::LexOptions& lex,
                                 const schema::BinlogPosition& position,
                                 const TransactionGtid& gtid) {
  // The schema history has tokenized this statement with the same options: this cannot throw.
  const tables::StatementTables st = tables::ClassifyStatement(sql, database, lex);
  StopForUnloggedRows(sql, st.verb, st.tables, position, gtid);
}

void TableRouter::StopForUnloggedRows(std::string_view sql, std::string_view verb,
                                      const std::vector<tables::SourceTableName>& written,
                                      const schema::BinlogPosition& position,
                                      const TransactionGtid& gtid) {
  std::vector<tables::SourceTableName> replicated;
  for (const tables::SourceTableName& name : written) {
    if (ctx_.resolver->Match(name) == config::TableMatcher::kNoRule) continue;
    if (BeforeStart(name, position)) {
      spdlog::debug("{} at {} writes {}, whose copy starts later: it is in the copy",
                    Abbreviated(sql, 120), position.ToString(), name.ToString());
      continue;
    }
    replicated.push_back(name);
  }
  if (replicated.empty()) return;
  const std::string gtid_text = gtid.Describe();
  const std::string where = gtid_text.empty()
                                ? position.ToString()
                                : fmt::format("{} (GTID {})", position.ToString(), gtid_text);
  std::string names;
  for (const tables::SourceTableName& name : replicated)
    names += (names.empty() ? "" : ", ") + name.ToString();
  const bool one = replicated.size() == 1;
  const std::string reason = fmt::format(
      "the source logged {} as a statement at {}: \"{}\" changed rows of {} that are not in "
      "the binlog as row events (binlog_format is STATEMENT or MIXED for that session), so {} no "
      "longer {} the source. Fix: set binlog_format=ROW on the source (SET GLOBAL "
      "binlog_format=ROW, and in every session or tool that sets it, e.g. pt-table-checksum "
      "--set-vars binlog_format=ROW), then copy {} again (docs/running.md, \"Stopped tables\")",
      verb, where, Abbreviated(sql, 120), names, one ? "its target" : "their targets",
      one ? "matches" : "match", one ? "the table" : "the tables");
  if (ctx_.config->source.on_statement_dml == config::StatementDml::kStopRun) {
    Fail(ErrorCode::kUnsupported, "{} (source.on_statement_dml: stop_run)", reason);
  }
  for (const tables::SourceTableName& name : replicated) {
    Stop(TableToStop(name, position.ToString()), position.ToString(), reason);
  }
}

bool TableRouter::Drain(StreamedTable& table) {
  if (table.target_state == nullptr) return true;
  std::vector<TargetGroup*> groups;
  for (auto& [signature, group] : table.target_state->groups) groups.push_back(group);
  std::unique_lock lock(ctx_.buffers->mutex());
  return ctx_.buffers->Drain(lock, groups);
}

RetryPolicy DdlRetryPolicy() {
  using namespace std::chrono_literals;
  return {.initial = 500ms, .max = 5s, .max_elapsed = 30s};
}

void TableRouter::Reconcile(StreamedTable& table, const std::vector<binlog::ColumnDef>* before,
                            const std::vector<binlog::ColumnDef>& after,
                            const std::vector<std::pair<std::string, std::string>>& renames) {
  RetryOptions retry;
  retry.policy = ctx_.ddl_retry;
  retry.stop = ctx_.stop;
  bool first = true;
  Retry(fmt::format("applying the schema change of {} to {}", table.name.ToString(),
                    table.target->label),
        retry, [&] {
          if (!first) ctx_.resolver->RereadColumns(*table.target);
          first = false;
          ReconcileOnce(table, before, after, renames);
        });
}

mapping::DdlOptions TableRouter::ClusterDdlOptions() const {
  mapping::DdlOptions options;
  options.cluster = ctx_.config->target.cluster;
  return options;
}

void TableRouter::ExecuteOnTarget(const std::string& sql) {
  RetryOptions retry;
  retry.policy = ctx_.ddl_retry;
  retry.stop = ctx_.stop;
  Retry(fmt::format("running {} on ClickHouse", sql), retry, [&] { ctx_.targets->Execute(sql); });
}

void TableRouter::ReconcileOnce(StreamedTable& table, const std::vector<binlog::ColumnDef>* before,
                                const std::vector<binlog::ColumnDef>& after,
                                const std::vector<std::pair<std::string, std::string>>& renames) {
  LogFields fields;
  fields.Table(table.name.database, table.name.table);
  TargetAlter alter(table.name.ToString(), *table.target, *table.rule, KeyNames(table),
                    *ctx_.targets, *ctx_.resolver, ctx_.config->target.cluster,
                    [&](const std::string& column) {
                      if (ctx_.on_default_not_carried)
                        ctx_.on_default_not_carried(table.name, column);
                    });
  alter.Apply({.before = before,
               .after = &after,
               .renames = &renames,
               .session_first_version = ctx_.resume_version,
               .next_version = renames.empty() ? 0 : statement_version_});
}

void TableRouter::Retire(const tables::SourceTableName& name) {
  auto it = tables_.find(name);
  if (it == tables_.end()) return;
  retired_.push_back(std::move(it->second));
  tables_.erase(it);
  // Routes point at the retired table; the next TABLE_MAP of every table routes afresh (DDL is
  // outside transactions, so every rows event after it follows its own TABLE_MAP).
  routes_.clear();
}

void TableRouter::EndStop(const tables::SourceTableName& name, const std::string& what) {
  spdlog::info("{} was stopped and is {}: its stop ends (its target keeps its rows)",
               name.ToString(), what);
  Retire(name);
  if (ctx_.on_stop_ended) ctx_.on_stop_ended(name.ToString());
}

void TableRouter::StopForSchema(StreamedTable& table, const std::string& position,
                                const std::string& reason) {
  if (table.stopped) return;
  if (ctx_.on_schema_error) ctx_.on_schema_error();
  Stop(table, position, reason);
}

void TableRouter::OnChange(const schema::TableChange& change, const schema::DdlStatement& statement,
                           const schema::BinlogPosition& position, std::string_view sql) {
  using Kind = schema::TableChange::Kind;
  const tables::SourceTableName name{change.table.database, change.table.table};
  LogFields fields;
  fields.Table(name.database, name.table).Position(position.file, position.offset);
  if (change.kind == Kind::kDropped) EndAlias(name, position);
  if (change.kind == Kind::kRenamed && change.from)
    EndAlias({change.from->database, change.from->table}, position);
  if (BeforeStart(name, position)) {
    // Its target holds the table as of its copy's end, after this statement.
    spdlog::debug("{} at {}: {} is copied as of a later position; its target is left as it is",
                  Abbreviated(sql), position.ToString(), name.ToString());
    if (change.kind == Kind::kRenamed && change.from) {
      DropLeftBehind({change.from->database, change.from->table}, name, position);
    }
    return;
  }
  switch (change.kind) {
    case Kind::kDropped: {
      const int rule = ctx_.resolver->Match(name);
      if (rule != config::TableMatcher::kNoRule &&
          ctx_.resolver->Rule(rule).drop_table == config::DropTable::kDrop) {
        MeetExisting(name, position, "DROP TABLE");
      }
      if (NameInCopy(name, position)) {
        // Its target is a copy's, which holds the table of the name that took it over.
        Retire(name);
        return;
      }
      OnDropped(name, position.ToString());
      return;
    }
    case Kind::kCreated:
    case Kind::kRenamed:
      OnNewName(change, position);
      return;
    default:
      break;
  }
  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) return;
  auto it = tables_.find(name);
  StreamedTable* table = it == tables_.end() ? nullptr : it->second.get();
  if (table == nullptr) {
    // Not seen yet in this session: resolve it with the columns before the statement, so the
    // change is carried to its target like for any other table.
    table = &GetOrCreate(name, rule, nullptr, JustBefore(position), nullptr);
  }
  if (table->stopped || table->target == nullptr) return;
  if (InCopy(*table, position)) {
    spdlog::debug("{} at {}: the copy that replaced {}, the target of {}, holds it",
                  Abbreviated(sql), position.ToString(), table->target->label, name.ToString());
    return;
  }
  const std::string where = position.ToString();
  switch (change.kind) {
    case Kind::kAltered:
      OnAltered(*table, change, statement, where, Abbreviated(sql));
      return;
    case Kind::kTruncated:
      OnTruncated(*table, where);
      return;
    case Kind::kRowsChanged:
      StopForSchema(*table, where,
                    fmt::format("{} at {} removed or moved rows without row events; the target "
                                "no longer matches (copy the table again)",
                                Abbreviated(sql), where));
      return;
    default:
      return;
  }
}

StreamedTable* TableRouter::MeetExisting(const tables::SourceTableName& name,
                                         const schema::BinlogPosition& position,
                                         std::string_view why) {
  if (auto it = tables_.find(name); it != tables_.end()) return it->second.get();
  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule || !ctx_.resolver->TargetExists(name, rule)) {
    return nullptr;
  }
  std::vector<std::string> problems;
  StreamedTable& table = GetOrCreate(name, rule, &problems, JustBefore(position), nullptr);
  if (problems.empty()) return &table;
  spdlog::warn("{} at {}: its target table {} is left as it is: {}", why, position.ToString(),
               ctx_.resolver->TargetLabel(name, rule), JoinLines(problems));
  Retire(name);
  return nullptr;
}

void TableRouter::DropLeftBehind(const tables::SourceTableName& from,
                                 const tables::SourceTableName& name,
                                 const schema::BinlogPosition& position) {
  if (BeforeStart(from, position)) return;  // its target, too, holds a later copy
  StreamedTable* table = MeetExisting(from, position, "RENAME TABLE");
  if (table == nullptr || table->stopped || !Drain(*table)) return;
  const tables::TargetTable* target = table->target;
  const int rule = ctx_.resolver->Match(name);
  // Not a changelog's target: its history of the table's changes is in no copy.
  const bool own = target != nullptr && target->mode == mapping::TableMode::kReplica &&
                   OtherWriter(*target, from) == nullptr && ctx_.resolver->Created(target->label) &&
                   (rule == config::TableMatcher::kNoRule ||
                    target->label != ctx_.resolver->TargetLabel(name, rule));
  if (own) {
    const std::string label = target->label;
    try {
      DropTarget(*table->target);
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      spdlog::warn("{} renamed to {} at {}: its left-behind target {} is kept: {}", from.ToString(),
                   name.ToString(), position.ToString(), label, e.what());
      Retire(from);
      return;
    }
    spdlog::info(
        "{} renamed to {} at {}, whose target holds it as copied at a later position: dropped "
        "{}, the target rowbridge made for {}, whose rows that copy holds",
        from.ToString(), name.ToString(), position.ToString(), label, from.ToString());
  }
  Retire(from);
}

void TableRouter::DropTarget(tables::TargetTable& target) {
  for (const std::string& sql :
       mapping::DropTableStatements(target.database, target.table, ClusterDdlOptions())) {
    ExecuteOnTarget(sql);
  }
  ctx_.resolver->Retire(target);
}

void TableRouter::OnDropped(const tables::SourceTableName& name, const std::string& where) {
  if (ctx_.on_dropped) ctx_.on_dropped(name.ToString());
  auto it = tables_.find(name);
  if (it == tables_.end()) return;
  if (it->second->stopped) {
    EndStop(name, "dropped at " + where);
    return;
  }
  StreamedTable& table = *it->second;
  if (!Drain(table)) return;
  const StreamedTable* other = table.target != nullptr ? OtherWriter(*table.target, name) : nullptr;
  if (other != nullptr) {
    // gh-ost's swapped-out table, when its target could not be renamed with it: the target is
    // the live table's now.
    spdlog::info("{} dropped at {}; its target table {} stays: {} writes into it", name.ToString(),
                 where, table.target->label, other->name.ToString());
  } else if (table.target != nullptr && table.rule->drop_table == config::DropTable::kDrop &&
             ctx_.resolver->AppliesSchemaChanges(table)) {
    try {
      const std::string label = table.target->label;
      DropTarget(*table.target);
      spdlog::info("{} dropped at {}: dropped its target table {}", name.ToString(), where, label);
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      StopForSchema(table, where, fmt::format("DROP TABLE at {}: {}", where, e.what()));
      return;
    }
  } else {
    spdlog::info("{} dropped at {}; its target table keeps its rows", name.ToString(), where);
  }
  Retire(name);
}

const StreamedTable* TableRouter::OtherWriter(const tables::TargetTable& target,
                                              const tables::SourceTableName& except) const {
  for (const auto& [name, table] : tables_) {
    if (name != except && table->target == &target) return table.get();
  }
  return nullptr;
}

namespace {

// "db.table" as rowbridge writes target labels (the database name is the part before the first
// dot).
config::QualifiedName SplitLabel(const std::string& label) {
  const size_t dot = label.find('.');
  if (dot == std::string::npos) return {"", label};
  return {label.substr(0, dot), label.substr(dot + 1)};
}

}  // namespace

tables::TargetTable* TableRouter::RenamedTarget(const tables::ReplicatedTable& table,
                                                const schema::BinlogPosition& at,
                                                const std::string& from,
                                                std::vector<std::string>& problems) {
  if (ctx_.target_renames.empty()) return nullptr;
  const std::vector<std::string> path = RenamesAfter(from, at);
  // The last of those names that exists: a crash may have come between recording a rename and
  // ClickHouse's RENAME, which the stream then meets and makes.
  for (auto name = path.rbegin(); name != path.rend(); ++name) {
    if (tables::TargetTable* target = ctx_.resolver->ResolveExisting(table, SplitLabel(*name))) {
      spdlog::info("{} at {}: its target was renamed to {} later in the binlog; its rows go there",
                   table.name.ToString(), at.ToString(), target->label);
      return target;
    }
  }
  // None exists any more (dropped later: gh-ost's `_t_del` under drop_table: drop), while the
  // ClickHouse table under `from` is another one renamed into that name later (the swap's shadow).
  // The rows replayed up to the RENAME must not go into the shadow's target, nor may the RENAME
  // move it away: the vanished target is made again, takes them, and the replayed DROP drops it.
  // The same when there is no table under `from` either (the renames were made, and their end
  // dropped): a target made under `from` would be renamed along the chain into a name a later
  // table holds by then, and stay there for good (unpaced DDL workload, seed 134 on MariaDB 11.8:
  // `d9`, after `d2 -> d9`, gh-ost's swap of d9 and `d9 -> d11`).
  if (path.empty()) return nullptr;
  const bool taken_later = RenamedToLater(from, at);
  // Asked only when it matters: TargetExists may ask ClickHouse.
  const bool from_gone = !taken_later &&
                         from == ctx_.resolver->TargetLabel(table.name, table.rule_index) &&
                         !ctx_.resolver->TargetExists(table.name, table.rule_index);
  if (taken_later || from_gone) {
    const size_t before = problems.size();
    tables::TargetTable* target =
        ctx_.resolver->ResolveOrCreate(table, SplitLabel(path.back()), problems);
    if (target != nullptr && problems.size() == before) {
      spdlog::info(
          "{} at {}: its target was renamed to {} later in the binlog, which is gone now, and {} "
          "{}; {} is made again for the rows replayed until the RENAME",
          table.name.ToString(), at.ToString(), path.back(), from,
          from_gone ? "is gone too" : "is another table's renamed into that name later",
          path.back());
      return target;
    }
  }
  return nullptr;
}

const state::TargetAlias* TableRouter::AliasAt(const std::string& label,
                                               const schema::BinlogPosition& at) const {
  for (const state::TargetAlias& a : ctx_.target_aliases) {
    if (a.table != label || at < schema::BinlogPosition{a.file, a.position}) continue;
    if (!a.until_file.empty() && !(at < schema::BinlogPosition{a.until_file, a.until_position}))
      continue;
    return &a;
  }
  return nullptr;
}

void TableRouter::EndAlias(const tables::SourceTableName& name, const schema::BinlogPosition& at) {
  const std::string label = name.ToString();
  for (state::TargetAlias& a : ctx_.target_aliases) {
    // An alias made after `at` is a later table of that name (a replay meets this end first).
    if (a.table != label || !a.until_file.empty() ||
        at < schema::BinlogPosition{a.file, a.position}) {
      continue;
    }
    a.until_file = at.file;
    a.until_position = at.offset;
    spdlog::info("{} left its name at {}: its rows no longer go into {}", label, at.ToString(),
                 a.target);
    if (ctx_.on_alias_end) ctx_.on_alias_end(a);
  }
}

tables::TargetTable* TableRouter::RedirectedTarget(const tables::ReplicatedTable& table,
                                                   const schema::BinlogPosition& at,
                                                   std::vector<std::string>& problems) {
  const state::TargetAlias* alias = AliasAt(table.name.ToString(), at);
  const std::string from =
      alias != nullptr ? alias->target : ctx_.resolver->TargetLabel(table.name, table.rule_index);
  if (tables::TargetTable* renamed = RenamedTarget(table, at, from, problems)) return renamed;
  if (alias == nullptr) return nullptr;
  if (tables::TargetTable* target = ctx_.resolver->ResolveExisting(table, SplitLabel(from))) {
    spdlog::info(
        "{} at {}: writes into {}, the target of its name before the RENAME at {}:{} (the "
        "checkpoint's target_aliases)",
        table.name.ToString(), at.ToString(), target->label, alias->file, alias->position);
    return target;
  }
  spdlog::warn(
      "{} at {}: its rows went into {} since the RENAME at {}:{}, but ClickHouse has no such "
      "table any more; they go where the rules route {} from here on",
      table.name.ToString(), at.ToString(), from, alias->file, alias->position,
      table.name.ToString());
  return nullptr;
}

std::optional<schema::BinlogPosition> TableRouter::TargetCopiedLater(
    const std::string& label, const schema::BinlogPosition& at) const {
  for (const auto& [name, start] : ctx_.table_starts) {
    if (!(at < start)) continue;
    const int rule = ctx_.resolver->Match(name);
    if (rule == config::TableMatcher::kNoRule) continue;
    const std::string copied = ctx_.resolver->TargetLabel(name, rule);
    const std::vector<std::string> later = RenamesAfter(copied, start);
    if (copied == label || std::find(later.begin(), later.end(), label) != later.end()) {
      return start;
    }
  }
  return std::nullopt;
}

bool TableRouter::NameInCopy(const tables::SourceTableName& name,
                             const schema::BinlogPosition& position) const {
  if (BeforeStart(name, position)) return true;
  auto it = tables_.find(name);
  return it != tables_.end() && InCopy(*it->second, position);
}

std::vector<std::string> TableRouter::RenamesAfter(const std::string& label,
                                                   const schema::BinlogPosition& at) const {
  std::vector<std::string> path;
  std::string current = label;
  for (const state::TargetRename& r : ctx_.target_renames) {
    if (!(at < schema::BinlogPosition{r.file, r.position})) continue;
    if (r.from != current) continue;
    current = r.to;
    path.push_back(current);
  }
  return path;
}

bool TableRouter::RenamedToLater(const std::string& label, const schema::BinlogPosition& at) const {
  return std::any_of(ctx_.target_renames.begin(), ctx_.target_renames.end(),
                     [&](const state::TargetRename& r) {
                       return r.to == label && at < schema::BinlogPosition{r.file, r.position};
                     });
}

bool TableRouter::MoveTarget(tables::TargetTable& target, const tables::SourceTableName& to,
                             int rule, const schema::BinlogPosition& position) {
  const config::TableRule& new_rule = ctx_.resolver->Rule(rule);
  const config::QualifiedName name = ctx_.resolver->TargetName(to, rule);
  const std::string label = name.database + "." + name.table;
  std::string why_not;
  if (!ctx_.resolver->Created(target.label)) {
    why_not = "rowbridge did not create it";
  } else if (!ctx_.config->target.cluster.empty()) {
    why_not = "it is a clustered table";
  } else if (new_rule.schema_changes == config::SchemaChanges::kStop || !new_rule.create_table) {
    why_not = fmt::format("the rule for {} says {}", to.ToString(),
                          new_rule.create_table ? "schema_changes: stop" : "create_table: false");
  } else if (target.mode != tables::PlanMode(new_rule.mode) ||
             target.version_column != new_rule.meta_columns.version ||
             target.removal_column != tables::RemovalColumn(new_rule)) {
    why_not = fmt::format("the rule for {} wants another mode or meta columns", to.ToString());
  } else if (const StreamedTable* other = OtherWriter(target, to)) {
    why_not = fmt::format("{} writes into it too", other->name.ToString());
  } else if (ctx_.resolver->TargetExists(to, rule)) {
    why_not = fmt::format("{} exists already", label);
  }
  if (!why_not.empty()) {
    spdlog::warn(
        "{} is the new name of a table replicated into {}, but the rules' target for it is {}; "
        "{} is not renamed ({})",
        to.ToString(), target.label, label, target.label, why_not);
    return false;
  }
  const state::TargetRename rename{target.label, label, position.file, position.offset};
  // The rename is saved first, then the new name joins the tables the stream covers (a restart
  // must not copy it as a table matched later). The other order let a kill -9 between the two
  // saves leave a checkpoint that covers the new name, whose target does not exist yet, without
  // the rename that would make it: the restart refused to create it empty.
  if (ctx_.before_target_rename) ctx_.before_target_rename(rename);
  if (ctx_.on_replicated) ctx_.on_replicated(to.ToString());
  RetryOptions retry;
  retry.policy = ctx_.ddl_retry;
  retry.stop = ctx_.stop;
  Retry(fmt::format("renaming {} to {} on ClickHouse", target.label, label), retry,
        [&] { ctx_.resolver->RenameTarget(target, name); });
  // The target keeps its state (the versions a replay skips); its inserts name the old table.
  auto state = target_states_.find(&target);
  if (state != target_states_.end()) state->second->groups.clear();
  // Once: a replay that makes a rename recorded before a crash must not append it again, since
  // RenamedTarget follows the records in their order (a swap's a -> a_del, a_gho -> a, with a
  // second a -> a_del after them, sent a_gho's rows into a_del).
  if (std::none_of(ctx_.target_renames.begin(), ctx_.target_renames.end(),
                   [&](const state::TargetRename& r) { return state::SameRename(r, rename); })) {
    ctx_.target_renames.push_back(rename);
  }
  return true;
}

bool TableRouter::LeaveOldName(const tables::SourceTableName& from,
                               const tables::SourceTableName& to, const std::string& where,
                               tables::TargetTable*& target) {
  target = nullptr;
  auto it = tables_.find(from);
  if (it == tables_.end()) return true;
  if (it->second->stopped) {
    // Its resnapshot waiting under the old name would fail for good ("no longer in the source
    // under this name") and be begun again as a raced copy, at every restart of the stream.
    if (ctx_.on_renamed) ctx_.on_renamed(from.ToString(), to.ToString());
    EndStop(from, fmt::format("renamed to {} at {}", to.ToString(), where));
    return true;
  }
  if (!Drain(*it->second)) return false;
  target = it->second->target;
  spdlog::info("{} renamed to {} at {}; its rows go where the rules route {}", from.ToString(),
               to.ToString(), where, to.ToString());
  Retire(from);
  if (ctx_.on_renamed) ctx_.on_renamed(from.ToString(), to.ToString());
  return true;
}

void TableRouter::OnNewName(const schema::TableChange& change,
                            const schema::BinlogPosition& position) {
  const std::string where = position.ToString();
  const tables::SourceTableName name{change.table.database, change.table.table};
  // RENAME: the table leaves its old name (and its rows, the target they went to).
  std::optional<tables::SourceTableName> from;
  if (change.kind == schema::TableChange::Kind::kRenamed && change.from)
    from = tables::SourceTableName{change.from->database, change.from->table};
  tables::TargetTable* followed = nullptr;
  if (from && tables_.count(*from) == 0) {
    // Replaying from a checkpoint, a renamed table whose rows this session has not met yet is
    // not resolved: the source no longer has it under that name.
    const int from_rule = ctx_.resolver->Match(*from);
    if (from_rule != config::TableMatcher::kNoRule && !BeforeStart(*from, position))
      GetOrCreate(*from, from_rule, nullptr, JustBefore(position), nullptr);
  }
  // The old name's target holds the table copied as of a later position (a resnapshot handed
  // over after this statement, which the stream replays): it stays with that name, and the table
  // leaving the name has none of its rows there, so it is copied again under its new name.
  const bool from_copied_later = from && NameInCopy(*from, position);
  if (from && !from_copied_later && !LeaveOldName(*from, name, where, followed)) return;
  // Its rows until here are in the copy, and nothing is buffered for it. Kept, it went on
  // "writing" into the target it was resolved to, and a later DROP of that target's table under
  // drop_table: drop kept the target for it (unpaced DDL workload, seed 631 on MariaDB 11.8:
  // `_d3_s13_del`, made again for the old d3's replayed rows).
  if (from_copied_later) Retire(*from);
  const bool from_replicated = followed != nullptr;

  const int rule = ctx_.resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) return;
  // A table under a matched name from now on: its target is created or checked now, with the
  // columns of this position, so it follows its columns even before its first row.
  // The table that had this name just before (gh-ost's RENAME t TO _t_del, _t_gho TO t):
  // columns it had and the new one lacks are dropped from the target.
  const schema::SchemaVersion* previous =
      ctx_.history->SchemaAt(change.table, JustBefore(position));
  std::optional<std::vector<binlog::ColumnDef>> previous_columns;
  // Not for a CREATE TABLE: no table had the name just before it. A history that says otherwise
  // was seeded at the start with a later table's columns (a table created in the replayed part
  // of the binlog), and dropping the columns the CREATE lacks would take the values of the rows
  // the replay skips as present (their later ADD COLUMN is replayed with its default).
  if (previous != nullptr && previous->state == schema::TableState::kKnown &&
      change.kind != schema::TableChange::Kind::kCreated) {
    previous_columns = previous->schema.columns;
  }
  // (A name that had a table just before is a swap, e.g. gh-ost's: its target goes on.)
  const bool name_was_taken = previous != nullptr && previous->state != schema::TableState::kAbsent;
  Retire(name);
  // The renamed table's rows stay together: its target takes the new name's target name where
  // rowbridge may rename it. Else the table goes on writing into it, for good (an alias in the
  // checkpoint), unless the rules' target for the new name exists already (gh-ost's swap: the
  // shadow becomes the table the target was made for) or takes another mode: then the table
  // writes into the rules' target, which lacks its earlier rows unless the name was a swap's.
  const std::string rules_target = ctx_.resolver->TargetLabel(name, rule);
  std::string split_from;  // the target holding the rows the rules' target lacks
  std::string split_why;
  if (followed != nullptr && followed->label != rules_target) {
    // Replayed: the target renames recorded later move the rules' target of the new name on to
    // the followed target (gh-ost's next swap renamed it to `_t_del`), so the followed target is
    // where the new name's rows go until then (RedirectedTarget finds it) and must stay there.
    // Renamed into the new name again, it was taken out of the later swap, and the shadow's
    // target that swap renames in was left in ClickHouse for good (unpaced DDL workload, seed
    // 547 on MariaDB 11.8: `_d1_s6_gho`).
    const std::vector<std::string> later = RenamesAfter(rules_target, position);
    if (std::find(later.begin(), later.end(), followed->label) != later.end()) followed = nullptr;
  }
  if (followed != nullptr && followed->label != rules_target) {
    bool moved = false;
    try {
      moved = MoveTarget(*followed, name, rule, position);
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      spdlog::warn("{}: cannot rename its target {}: {}", name.ToString(), followed->label,
                   e.what());
    }
    if (moved) {
      followed = nullptr;
    } else {
      if (ctx_.resolver->TargetExists(name, rule)) {
        split_why = "exists already";
      } else if (followed->mode != tables::PlanMode(ctx_.resolver->Rule(rule).mode)) {
        split_why = "takes another mode";
      }
      if (!split_why.empty()) {
        if (!name_was_taken) split_from = followed->label;
        followed = nullptr;
      }
    }
  }
  follow_target_ = followed;
  StreamedTable& table = GetOrCreate(name, rule, nullptr, position, nullptr);
  follow_target_ = nullptr;
  if (followed != nullptr && table.target == followed && followed->label != rules_target) {
    const state::TargetAlias alias{
        name.ToString(), followed->label, position.file, position.offset, "", 0};
    if (std::none_of(ctx_.target_aliases.begin(), ctx_.target_aliases.end(),
                     [&](const state::TargetAlias& a) {
                       return a.table == alias.table && a.file == alias.file &&
                              a.position == alias.position;
                     })) {
      ctx_.target_aliases.push_back(alias);
    }
    if (ctx_.on_target_alias) ctx_.on_target_alias(alias);
  }
  if (change.kind == schema::TableChange::Kind::kCreated || from_replicated) {
    if (ctx_.on_replicated) ctx_.on_replicated(name.ToString());
    if (!split_from.empty()) {
      const std::string why = fmt::format(
          "it was renamed at {} from {}, whose rows are in {}, and its rules' target {} {}", where,
          from->ToString(), split_from, rules_target, split_why);
      if (ctx_.on_needs_copy) {
        ctx_.on_needs_copy(name.ToString(), why);
      } else {
        spdlog::warn("{}: {}", name.ToString(), why);
      }
    }
  } else if (from) {
    // The rows the table had under its unreplicated old name never reached the target: a table
    // renamed into a matched name, or an online schema change's shadow no rule matched swapped in
    // (the target holds the old table's rows, without what the shadow added).
    if (ctx_.on_replicated) ctx_.on_replicated(name.ToString());
    const std::string why =
        from_copied_later
            ? fmt::format(
                  "it was renamed at {} from {}, whose target holds {} as copied at a "
                  "later position, so its rows are in no target",
                  where, from->ToString(), from->ToString())
            : fmt::format(
                  "it was renamed at {} from {}, which no rule replicated, so its target "
                  "lacks the rows (or the values) {} had then",
                  where, from->ToString(), from->ToString());
    if (ctx_.on_needs_copy) {
      ctx_.on_needs_copy(name.ToString(), why);
    } else {
      spdlog::warn("{}: {}", name.ToString(), why);
    }
  }
  if (followed != nullptr) {
    spdlog::info("{} now writes into {} (the target of its old name)", name.ToString(),
                 followed->label);
  }
  if (table.stopped || table.target == nullptr || !table.known) return;
  if (!ctx_.resolver->AppliesSchemaChanges(table)) return;
  try {
    Reconcile(table, previous_columns ? &*previous_columns : nullptr, table.known->columns, {});
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    StopForSchema(table, where, e.what());
  }
}

void TableRouter::OnAltered(StreamedTable& table, const schema::TableChange& change,
                            const schema::DdlStatement& statement, const std::string& where,
                            const std::string& statement_text) {
  if (!change.schema) {
    StopForSchema(table, where,
                  fmt::format("{} at {} leaves its columns unknown", statement_text, where));
    return;
  }
  const std::vector<binlog::ColumnDef> old_columns =
      table.known ? table.known->columns : std::vector<binlog::ColumnDef>{};
  if (table.known && SameColumns(old_columns, change.schema->columns)) {
    table.known = FromHistory(*change.schema, table.name);  // keys or options only
    table.map = nullptr;
    return;
  }
  if (!ctx_.resolver->AppliesSchemaChanges(table)) {
    StopForSchema(table, where,
                  fmt::format("ALTER TABLE at {} changes its columns ({}) and the rule says "
                              "schema_changes: {}",
                              where, statement_text,
                              table.rule->schema_changes == config::SchemaChanges::kStop
                                  ? "stop"
                                  : "auto (the target table was not created by rowbridge)"));
    return;
  }
  if (!Drain(table)) return;
  try {
    Reconcile(table, table.known ? &old_columns : nullptr, change.schema->columns,
              RenamedColumns(statement));
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    StopForSchema(table, where,
                  fmt::format("cannot apply {} at {} to {}: {}", statement_text, where,
                              table.target->label, e.what()));
    return;
  }
  table.known = FromHistory(*change.schema, table.name);
  table.map = nullptr;  // the next rows event builds the plan for the new columns
  table.plan.reset();
}

void TableRouter::OnTruncated(StreamedTable& table, const std::string& where) {
  if (!ctx_.resolver->AppliesSchemaChanges(table)) {
    StopForSchema(table, where,
                  fmt::format("TRUNCATE at {} removed its rows unseen and the rule does not "
                              "apply schema changes",
                              where));
    return;
  }
  if (!Drain(table)) return;
  if (table.target->mode != mapping::TableMode::kReplica) {
    spdlog::info("{} truncated at {}; the changelog {} keeps its history", table.name.ToString(),
                 where, table.target->label);
    return;
  }
  try {
    ExecuteOnTarget(mapping::TruncateTableStatement(table.target->database, table.target->table,
                                                    ClusterDdlOptions()));
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    StopForSchema(table, where, fmt::format("TRUNCATE at {}: {}", where, e.what()));
    return;
  }
  // Rows a replay finds present after this point were just removed: write them again.
  table.target_state->present_rows.clear();
  table.target_state->present_next = 0;
  spdlog::info("{} truncated at {}: truncated {}", table.name.ToString(), where,
               table.target->label);
}

void TableRouter::Stop(StreamedTable& table, const std::string& position,
                       const std::string& reason) {
  if (table.stopped) return;
  table.stopped = true;
  table.stop_reason = reason;
  LogFields fields;
  fields.Table(table.name.database, table.name.table).Add("position", position);
  spdlog::error("stopped replicating {}: {}", table.name.ToString(), reason);
  if (table.stats)
    table.stats->status.RecordError("stopped: " + reason, std::chrono::system_clock::now());
  if (ctx_.on_stop) ctx_.on_stop({table.name.database, table.name.table, position, reason});
}

}  // namespace rowbridge::pipeline
