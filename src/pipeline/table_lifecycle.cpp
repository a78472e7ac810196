#include "pipeline/table_lifecycle.h"

#include <spdlog/spdlog.h>

#include "common/log_fields.h"
#include "config/table_matcher.h"

namespace rowbridge::pipeline {

namespace {

// The rule of a table a copy hands over; none is a fault of ours.
int RuleOf(TableRouter& router, const tables::SourceTableName& name, const char* what) {
  const int rule = router.context().resolver->Match(name);
  if (rule == config::TableMatcher::kNoRule) {
    Fail(ErrorCode::kInternal, "{}: {}, but no rule matches it", name.ToString(), what);
  }
  return rule;
}

// The table streams from `start` on: its changes before are in its copy.
StreamedTable& StreamFrom(TableRouter& router, const tables::SourceTableName& name, int rule,
                          const schema::BinlogPosition& start, const schema::BinlogPosition& at) {
  RouterContext& ctx = router.context();
  ctx.table_starts[name] = start;
  ctx.counted_starts.insert(name);
  router.ResetRoutes();
  StreamedTable& table = router.Resolve(name, rule, nullptr, at, nullptr);
  if (!table.stopped && table.stats) table.stats->status.Resume();
  return table;
}

}  // namespace

StreamedTable& AdoptCopiedTable(TableRouter& router, const tables::SourceTableName& name,
                                const schema::BinlogPosition& start,
                                const schema::BinlogPosition& at) {
  RouterContext& ctx = router.context();
  ctx.resolver->Release(name);
  ctx.table_starts[name] = start;
  // A route cached while the table was held back leads nowhere; its next TABLE_MAP routes again.
  router.ResetRoutes();
  const int rule = RuleOf(router, name, "handed over by its copy");
  return router.Resolve(name, rule, nullptr, at, nullptr);
}

bool ReplaceTargetWithCopy(TableRouter& router, const tables::SourceTableName& name,
                           const schema::BinlogPosition& start, const config::QualifiedName& fresh,
                           const schema::BinlogPosition& at,
                           const std::function<void(const std::string& target)>& before_replace) {
  RouterContext& ctx = router.context();
  // Tables matched later copied into fresh tables were held back until now.
  ctx.resolver->Release(name);
  const int rule = RuleOf(router, name, "copied again");
  StreamedTable* table = router.FindTable(name);
  if (table != nullptr && !table->stopped && !router.Drain(*table)) return false;
  const config::QualifiedName target = ctx.resolver->TargetName(name, rule);
  before_replace(target.database + "." + target.table);
  router.ddl().ReplaceWithFresh(target, fresh);
  // Inserts and replayed versions of the replaced table mean nothing to the fresh one.
  router.ResetTargetState(ctx.resolver->FindTarget(target.database + "." + target.table), true);
  if (table != nullptr) router.Retire(name);
  // Copied into the rules' target: an alias to its old name's target ends.
  router.EndAlias(name, start);
  StreamFrom(router, name, rule, start, at);
  return true;
}

std::optional<state::StoppedTable> PauseTable(TableRouter& router,
                                              const tables::SourceTableName& name,
                                              const schema::BinlogPosition& at) {
  StreamedTable* table = router.FindTable(name);
  if (table == nullptr || table->stopped) return std::nullopt;
  if (!router.Drain(*table)) return std::nullopt;
  table->stopped = true;
  table->stop_reason = "paused by the operator";
  LogFields fields;
  fields.Table(name.database, name.table).Position(at.file, at.offset);
  spdlog::info("paused {} at {}: its changes up to there are in {}", name.ToString(), at.ToString(),
               table->target != nullptr ? table->target->label : "its target");
  return state::StoppedTable{name.database, name.table, at.ToString(), table->stop_reason, true};
}

void ResumeTable(TableRouter& router, const tables::SourceTableName& name,
                 const schema::BinlogPosition& start, const schema::BinlogPosition& at) {
  RouterContext& ctx = router.context();
  const int rule = RuleOf(router, name, "resumed");
  // The operator may have fixed the target while the table was stopped.
  if (tables::TargetTable* record = ctx.resolver->FindTarget(ctx.resolver->TargetLabel(name, rule)))
    ctx.resolver->RereadColumns(*record);
  router.Retire(name);
  StreamFrom(router, name, rule, start, at);
}

}  // namespace rowbridge::pipeline
