#include "pipeline/table_router.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "common/log_fields.h"
#include "config/target_template.h"

namespace rowbridge::pipeline {

namespace {}  // namespace

std::string JoinedProblems(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) {
    if (!s.empty()) s += "; ";
    s += l;
  }
  return s;
}

tables::SourceTableSchema SchemaFromHistory(const schema::TableSchema& table,
                                            const tables::SourceTableName& name) {
  tables::SourceTableSchema out;
  out.name = name;
  out.columns = table.columns;
  out.primary_key = table.primary_key;
  return out;
}

RetryPolicy DdlRetryPolicy() {
  using namespace std::chrono_literals;
  return {.initial = 500ms, .max = 5s, .max_elapsed = 30s};
}

namespace {

TargetDdl::Options DdlOptionsOf(const RouterContext& ctx) {
  TargetDdl::Options options;
  options.config = ctx.config;
  options.resolver = ctx.resolver;
  options.targets = ctx.targets;
  options.retry = ctx.ddl_retry;
  options.stop = ctx.stop;
  options.session_first_version = ctx.resume_version;
  options.on_default_not_carried = ctx.on_default_not_carried;
  return options;
}

}  // namespace

TableRouter::TableRouter(RouterContext context)
    : ctx_(std::move(context)), ddl_(DdlOptionsOf(ctx_)) {}

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
    if (ctx_.target_routes.RenamedToLater(ctx_.resolver->TargetLabel(name, rule), ctx_.start)) {
      // Renamed from another table after the checkpoint: the name is not the table's yet where
      // the stream starts (its columns are not seeded there), and its target may not have been
      // renamed before a crash. The stream reaches the RENAME again and goes on from there.
      continue;
    }
    std::vector<std::string> table_problems;
    StreamedTable& table = Resolve(name, rule, &table_problems, ctx_.start, &source);
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

StreamedTable& TableRouter::Resolve(const tables::SourceTableName& name, int rule_index,
                                    std::vector<std::string>* problems,
                                    const schema::BinlogPosition& at, mysql::Connection* source,
                                    tables::TargetTable* follow_target) {
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
    const schema::SchemaVersion* version = ctx_.history->SchemaAt(SourceRef(name), at);
    if (version != nullptr && version->state == schema::TableState::kKnown) {
      table.known = SchemaFromHistory(version->schema, name);  // no connection needed
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
    if (follow_target != nullptr) {
      table.target = follow_target;
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
    if (problems == nullptr) Stop(table, position, JoinedProblems(out));
  } else if (problems == nullptr) {
    LogFields fields;
    fields.Table(name.database, name.table).Add("position", position);
    spdlog::info("replicating {} into {} ({} mode), first seen at {}", name.ToString(),
                 table.target->label, config::TableModeName(table.rule->mode), position);
  }
  return table;
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
      Resolve({map->map.database, map->map.table}, rule, nullptr, position, nullptr);
  route.table = &table;
  if (!table.stopped && !BeforeStart(table.name, position) && !InCopy(table, position)) {
    Use(table, map, position);
  }
  return route;
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

bool TableRouter::Drain(StreamedTable& table) {
  if (table.target_state == nullptr) return true;
  std::vector<TargetGroup*> groups;
  for (auto& [signature, group] : table.target_state->groups) groups.push_back(group);
  std::unique_lock lock(ctx_.buffers->mutex());
  return ctx_.buffers->Drain(lock, groups);
}

void TableRouter::EndAlias(const tables::SourceTableName& name, const schema::BinlogPosition& at) {
  for (const state::TargetAlias& ended : ctx_.target_routes.EndAliases(name.ToString(), at)) {
    spdlog::info("{} left its name at {}: its rows no longer go into {}", ended.table,
                 at.ToString(), ended.target);
    if (ctx_.on_alias_end) ctx_.on_alias_end(ended);
  }
}

StreamedTable* TableRouter::FindTable(const tables::SourceTableName& name) {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

void TableRouter::ResetTargetState(const tables::TargetTable* target, bool present_rows) {
  auto state = target_states_.find(target);
  if (state == target_states_.end()) return;
  state->second->groups.clear();
  if (present_rows) {
    state->second->present_rows.clear();
    state->second->present_next = 0;
  }
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

void TableRouter::StopForSchema(StreamedTable& table, const std::string& position,
                                const std::string& reason) {
  if (table.stopped) return;
  if (ctx_.on_schema_error) ctx_.on_schema_error();
  Stop(table, position, reason);
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
  if (ctx_.target_routes.renames().empty()) return nullptr;
  const std::vector<std::string> path = ctx_.target_routes.RenamesAfter(from, at);
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
  const bool taken_later = ctx_.target_routes.RenamedToLater(from, at);
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

tables::TargetTable* TableRouter::RedirectedTarget(const tables::ReplicatedTable& table,
                                                   const schema::BinlogPosition& at,
                                                   std::vector<std::string>& problems) {
  const state::TargetAlias* alias = ctx_.target_routes.AliasAt(table.name.ToString(), at);
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
    const std::vector<std::string> later = ctx_.target_routes.RenamesAfter(copied, start);
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
