#include "pipeline/schema_change_executor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <variant>

#include "common/log_fields.h"
#include "schema/sql_lexer.h"
#include "schema_changes/planner.h"
#include "tables/statement_tables.h"

namespace rowbridge::pipeline {

namespace sc = schema_changes;

void SchemaChangeExecutor::OnStatement(std::string_view sql, const binlog::QueryEvent& query,
                                       const schema::BinlogPosition& position,
                                       const TransactionGtid& gtid, uint64_t next_version) {
  position_ = position;
  next_version_ = next_version;
  RouterContext& ctx = router_.context();
  const sc::Planner planner(view_);
  const schema::ParseOptions parse =
      schema::ParseOptions::ForQuery(query.database, query.sql_mode.value_or(0));
  schema::DdlOutcome outcome;
  try {
    outcome = ctx.history->ApplyDdl(sql, parse, {query.collation_server.value_or(0)}, position);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    // The history could not follow: only the replicated tables the statement names stop.
    tables::StatementTables named;
    try {
      named = tables::ClassifyStatement(sql, query.database, parse.lex());
    } catch (const Error& lexing) {
      Execute(sc::Planner::Unnameable(sql, position, e.what(), lexing.what()));
      return;
    }
    Execute(planner.Unfollowable(sql, position, e.what(), named.tables));
    return;
  }
  if (const auto* none = std::get_if<schema::NoTableChange>(&outcome.statement)) {
    // Replayed or not: a replay from a checkpoint before the statement must stop again. The
    // history has tokenized the statement with the same options: this cannot throw.
    if (none->is_dml) {
      const tables::StatementTables written =
          tables::ClassifyStatement(sql, query.database, parse.lex());
      Execute(planner.UnloggedRows(sql, written.verb, written.tables, position, gtid.Describe()));
    }
    return;
  }
  if (outcome.replayed) return;
  for (const schema::TableChange& change : outcome.changes) {
    LogFields fields;
    fields.Table(change.table.database, change.table.table)
        .Position(position.file, position.offset);
    MeetTables(planner.TablesToMeet(change, position));
    Execute(planner.Change(change, outcome.statement, position, sql));
  }
  ctx.history->Prune(position);
  if (ctx.on_history) ctx.on_history(*ctx.history);
  Execute(planner.AfterChanges(outcome.statement, sql, position, gtid.Describe()));
}

void SchemaChangeExecutor::MeetTables(const std::vector<sc::Meet>& meets) {
  RouterContext& ctx = router_.context();
  for (const sc::Meet& meet : meets) {
    if (!meet.only_existing_target) {
      router_.Resolve(meet.table, meet.rule, nullptr, meet.at, nullptr);
      continue;
    }
    if (!ctx.resolver->TargetExists(meet.table, meet.rule)) continue;
    std::vector<std::string> problems;
    router_.Resolve(meet.table, meet.rule, &problems, meet.at, nullptr);
    if (problems.empty()) continue;
    std::string joined;
    for (const std::string& p : problems) joined += (joined.empty() ? "" : "; ") + p;
    spdlog::warn("{} at {}: its target table {} is left as it is: {}", meet.why,
                 position_.ToString(), ctx.resolver->TargetLabel(meet.table, meet.rule), joined);
    router_.Retire(meet.table);
  }
}

bool SchemaChangeExecutor::Execute(const sc::Decision& decision) {
  for (const sc::Step& step : decision.steps) {
    if (!std::visit([this](const auto& s) { return Run(s); }, step)) return false;
  }
  return true;
}

StreamedTable* SchemaChangeExecutor::Streaming(const tables::SourceTableName& name) {
  StreamedTable* table = router_.FindTable(name);
  if (table == nullptr || table->stopped || table->target == nullptr) return nullptr;
  return table;
}

bool SchemaChangeExecutor::Run(const sc::Note& step) {
  switch (step.level) {
    case sc::NoteLevel::kDebug:
      spdlog::debug("{}", step.text);
      break;
    case sc::NoteLevel::kInfo:
      spdlog::info("{}", step.text);
      break;
    case sc::NoteLevel::kWarn:
      spdlog::warn("{}", step.text);
      break;
  }
  return true;
}

bool SchemaChangeExecutor::Run(const sc::FailRun& step) {
  Fail(ErrorCode::kUnsupported, "{}", step.message);
}

bool SchemaChangeExecutor::Run(const sc::StopTable& step) {
  const std::string where = position_.ToString();
  StreamedTable& table = router_.TableToStop(step.table, where);
  if (step.schema_error) {
    router_.StopForSchema(table, where, step.reason);
  } else {
    router_.Stop(table, where, step.reason);
  }
  return true;
}

bool SchemaChangeExecutor::Run(const sc::DrainTable& step) {
  StreamedTable* table = router_.FindTable(step.table);
  return table == nullptr || router_.Drain(*table);
}

bool SchemaChangeExecutor::Run(const sc::AlterTarget& step) {
  StreamedTable* table = Streaming(step.table);
  if (table == nullptr) return false;
  try {
    router_.ddl().Reconcile(*table, router_.KeyNames(*table), step.before ? &*step.before : nullptr,
                            step.after, step.renames, next_version_);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    router_.StopForSchema(*table, position_.ToString(), step.stop_context + e.what());
    return false;
  }
  return true;
}

bool SchemaChangeExecutor::Run(const sc::SetColumns& step) {
  StreamedTable* table = router_.FindTable(step.table);
  if (table == nullptr) return true;
  table->known = SchemaFromHistory(step.schema, step.table);
  table->map = nullptr;  // the next rows event checks its TABLE_MAP against the new columns
  if (step.new_plan) table->plan.reset();
  return true;
}

bool SchemaChangeExecutor::Run(const sc::TruncateTarget& step) {
  StreamedTable* table = Streaming(step.table);
  if (table == nullptr) return false;
  try {
    router_.ddl().Truncate(*table->target);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    router_.StopForSchema(*table, step.where,
                          fmt::format("TRUNCATE at {}: {}", step.where, e.what()));
    return false;
  }
  // Rows a replay finds present after this point were just removed: write them again.
  table->target_state->present_rows.clear();
  table->target_state->present_next = 0;
  spdlog::info("{} truncated at {}: truncated {}", step.table.ToString(), step.where,
               table->target->label);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::DropTarget& step) {
  StreamedTable* table = Streaming(step.table);
  if (table == nullptr) return !step.stop_on_error;
  try {
    router_.ddl().Drop(*table->target);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    if (step.stop_on_error) {
      router_.StopForSchema(*table, position_.ToString(), step.failure + e.what());
      return false;
    }
    spdlog::warn("{}{}", step.failure, e.what());
    return true;
  }
  spdlog::info("{}", step.done);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::RetireTable& step) {
  router_.Retire(step.table);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::EndStop& step) {
  spdlog::info("{} was stopped and is {}: its stop ends (its target keeps its rows)",
               step.table.ToString(), step.what);
  router_.Retire(step.table);
  if (router_.context().on_stop_ended) router_.context().on_stop_ended(step.table.ToString());
  return true;
}

bool SchemaChangeExecutor::Run(const sc::Announce& step) {
  RouterContext& ctx = router_.context();
  const std::string label = step.table.ToString();
  switch (step.kind) {
    case sc::Announce::Kind::kDropped:
      if (ctx.on_dropped) ctx.on_dropped(label);
      break;
    case sc::Announce::Kind::kRenamed:
      if (ctx.on_renamed) ctx.on_renamed(label, step.to.ToString());
      break;
    case sc::Announce::Kind::kReplicated:
      if (ctx.on_replicated) ctx.on_replicated(label);
      break;
    case sc::Announce::Kind::kNeedsCopy:
      if (ctx.on_needs_copy) {
        ctx.on_needs_copy(label, step.why);
      } else {
        spdlog::warn("{}: {}", label, step.why);
      }
      break;
  }
  return true;
}

bool SchemaChangeExecutor::Run(const sc::EndAlias& step) {
  router_.EndAlias(step.table, step.at);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::RenameTarget& step) {
  RouterContext& ctx = router_.context();
  tables::TargetTable* target = ctx.resolver->FindTarget(step.rename.from);
  std::string refused = "rowbridge no longer has it resolved";
  if (target != nullptr) {
    // The rename is saved first, then the new name joins the tables the stream covers (a restart
    // must not copy it as a table matched later). The other order let a kill -9 between the two
    // saves leave a checkpoint that covers the new name, whose target does not exist yet, without
    // the rename that would make it: the restart refused to create it empty.
    if (ctx.before_target_rename) ctx.before_target_rename(step.rename);
    if (ctx.on_replicated) ctx.on_replicated(step.to.ToString());
    try {
      router_.ddl().Rename(*target,
                           ctx.resolver->TargetName(step.to, ctx.resolver->Match(step.to)));
      // The target keeps its state (the versions a replay skips); its inserts name the old table.
      router_.ResetTargetState(target, false);
      ctx.target_routes.AddRename(step.rename);
      return true;
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      refused = e.what();
    }
  }
  spdlog::warn("{}: cannot rename its target {}: {}", step.to.ToString(), step.rename.from,
               refused);
  if (step.if_refused) Execute(*step.if_refused);
  return false;  // the steps after the rename were for the renamed target
}

bool SchemaChangeExecutor::Run(const sc::ReplicateUnderName& step) {
  tables::TargetTable* follow = nullptr;
  if (!step.follow_target.empty()) {
    follow = router_.context().resolver->FindTarget(step.follow_target);
  }
  router_.Resolve(step.name, step.rule, nullptr, step.at, nullptr, follow);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::RecordAlias& step) {
  StreamedTable* table = router_.FindTable(step.table);
  if (table == nullptr || table->target == nullptr || table->target->label != step.alias.target)
    return true;
  RouterContext& ctx = router_.context();
  ctx.target_routes.AddAlias(step.alias);
  if (ctx.on_target_alias) ctx.on_target_alias(step.alias);
  return true;
}

bool SchemaChangeExecutor::Run(const sc::ReconcileNewName& step) {
  StreamedTable* table = Streaming(step.name);
  if (table == nullptr || !table->known) return true;
  if (!router_.context().resolver->AppliesSchemaChanges(*table)) return true;
  try {
    router_.ddl().Reconcile(*table, router_.KeyNames(*table), step.before ? &*step.before : nullptr,
                            table->known->columns, {}, next_version_);
  } catch (const Error& e) {
    if (e.IsTransient()) throw;
    router_.StopForSchema(*table, position_.ToString(), e.what());
  }
  return true;
}

}  // namespace rowbridge::pipeline
