// Pipeline::Session's step ResolveTables, and the catalog it builds: the resolver of the
// replicated tables, the router and what its schema changes record in the checkpoint.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "config/table_matcher.h"
#include "endpoints/connection_options.h"
#include "pipeline/session.h"
#include "pipeline/session_facts.h"
#include "snapshot/newly_matched.h"

namespace rowbridge::pipeline {

RouterContext Pipeline::Session::MakeRouterContext() {
  Pipeline& p = p_;
  RouterContext rc;
  rc.config = &p.config_;
  rc.resolver = &*resolver_;
  rc.targets = catalog_.get();
  rc.buffers = &buffers_;
  rc.stop = &p.stop_requested_;
  rc.connect_source = [&p] {
    return mysql::Connection::Connect(endpoints::SourceConnectOptions(p.config_.source));
  };
  rc.make_stats = [&p](const tables::SourceTableName& name, const tables::TargetTable& target) {
    auto stats = std::make_unique<server::TableStats>(p.metrics_, p.status_, name.database,
                                                      name.table, target.database, target.table);
    stats->status.SetStreaming();
    return stats;
  };
  rc.on_stop = [this](const state::StoppedTable& stopped) {
    p_.metrics_.errors.WithLabels({"table_stopped"}).Increment();
    p_.ShowStopped(stopped);
    std::lock_guard lock(buffers_.mutex());
    if (tracker_) tracker_->AddStop(stopped);
  };
  rc.have_checkpoint = checkpoint_.has_value();
  rc.resume_version = checkpoint_ ? checkpoint_->next_version : 1;
  if (checkpoint_ && replay_bytes_) {
    rc.replay_version_limit = ReplayVersionLimit(rc.resume_version, *replay_bytes_);
    rc.replay_binlog_bytes = *replay_bytes_;
    rc.checkpoint_description = checkpoint_->Describe() + " in " + p.store_->Describe();
  }
  rc.history = &*history_;
  rc.start = checkpoint_ ? schema::BinlogPosition{checkpoint_->file, checkpoint_->position}
                         : schema::BinlogPosition{first_position_->file, first_position_->position};
  rc.on_history = [this](const schema::SchemaHistory& h) {
    std::string json = h.ToJson();
    std::lock_guard lock(buffers_.mutex());
    if (tracker_) tracker_->AddSchemaHistory(std::move(json));
  };
  rc.on_schema_error = [&p] { p.metrics_.errors.WithLabels({"schema"}).Increment(); };
  rc.on_default_not_carried = [&p](const tables::SourceTableName& table,
                                   const std::string& column) {
    p.metrics_.defaults_not_carried.WithLabels({table.database, table.table, column}).Increment();
  };
  if (checkpoint_) {
    for (const state::TableStart& t : checkpoint_->table_starts) {
      const config::QualifiedName split = snapshot::SplitLabel(t.table);
      const tables::SourceTableName name{split.database, split.table};
      rc.table_starts[name] = {t.file, t.position};
      if (t.counted) rc.counted_starts.insert(name);
    }
    rc.created_in_replay = [this](const std::vector<tables::SourceTableName>& listed) {
      return CreatedInReplay(listed);
    };
  }
  AddTableHooks(rc);
  AddTargetRouteHooks(rc);
  return rc;
}

void Pipeline::Session::AddTableHooks(RouterContext& rc) {
  rc.on_replicated = [this](const std::string& label) {
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) return;
      tracker_->AddReplicatedTable(label);
    }
    // At once: a restart that did not know the table covered would copy it as one matched later,
    // and refuse to while ClickHouse holds changes after the checkpoint.
    SaveNow();
  };
  rc.on_needs_copy = [this](const std::string& label, const std::string& why) {
    CopyAgain(label, why, false);
  };
  rc.on_renamed = [this](const std::string& from, const std::string& to) {
    const char* was = nullptr;
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) return;
      was = WithdrawResnapshot(from);
    }
    if (was == nullptr) return;
    // The copy the stream needed was of the table, whatever it is called now.
    CopyAgain(to, fmt::format("it is {} renamed, whose copy was {}", from, was), true);
  };
  rc.on_dropped = [this](const std::string& label) {
    const char* was = nullptr;
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) return;
      was = WithdrawResnapshot(label);
    }
    if (was == nullptr) return;
    spdlog::info("{}: dropped while its resnapshot was {}; the resnapshot is given up", label, was);
    SaveNow();
  };
  rc.on_stop_ended = [this](const std::string& label) {
    const config::QualifiedName name = snapshot::SplitLabel(label);
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) return;
      tracker_->RemoveStop(name.database, name.table);
    }
    SaveNow();
    // The board's one way out of stopped; the name is shown as any table renamed away is.
    p_.status_.Table(name.database, name.table, "", "").Resume();
    p_.metrics_.table_stopped.WithLabels({name.database, name.table}).Set(0);
  };
  rc.before_target_rename = [this](const state::TargetRename& rename) {
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) {
        Fail(ErrorCode::kInternal, "renaming target {} before the session saved a checkpoint",
             rename.from);
      }
      tracker_->AddTargetRename(rename);
    }
    SaveNow();
  };
}

void Pipeline::Session::AddTargetRouteHooks(RouterContext& rc) {
  if (checkpoint_) {
    rc.target_routes =
        schema_changes::TargetRoutes(checkpoint_->target_renames, checkpoint_->target_aliases);
  }
  rc.on_target_alias = [this](const state::TargetAlias& alias) {
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) {
        Fail(ErrorCode::kInternal, "{} writes into {} before the session saved a checkpoint",
             alias.table, alias.target);
      }
      tracker_->AddTargetAlias(alias);
    }
    SaveNow();
  };
  rc.on_alias_end = [this](const state::TargetAlias& ended) {
    std::lock_guard lock(buffers_.mutex());
    if (tracker_) tracker_->EndTargetAlias(ended);
  };
}

tables::ResolverOptions Pipeline::Session::MakeResolverOptions() {
  tables::ResolverOptions resolver_options;
  resolver_options.conversion_counters = std::make_shared<mapping::ConversionCounters>(
      [this](const mapping::ColumnName& c, mapping::RangeRule rule) {
        return p_.metrics_.ClampSink(c.database, c.table, c.column,
                                     std::string(mapping::RangeRuleName(rule)));
      });
  if (checkpoint_) resolver_options.created_targets = checkpoint_->created_targets;
  if (checkpoint_ && CopiesAlongside(p_.config_, *checkpoint_) &&
      checkpoint_->table_copy->kind() == state::TableCopy::Kind::kMatchedLater) {
    // Tables matched later: the stream leaves them to their copy until it hands them over.
    resolver_options.held_back = checkpoint_->table_copy->tables;
  }
  for (const std::string& label : p_.AbandonedTables()) resolver_options.held_back.push_back(label);
  if (checkpoint_ && checkpoint_->replicated_tables) {
    resolver_options.replicated_tables = *checkpoint_->replicated_tables;
    std::sort(resolver_options.replicated_tables.begin(), resolver_options.replicated_tables.end());
    resolver_options.checkpoint = checkpoint_->Describe() + " in " + p_.store_->Describe();
  }
  resolver_options.on_created = [this](const std::string& label) {
    {
      std::lock_guard lock(buffers_.mutex());
      if (!tracker_) {
        // Created while the session starts (a table the checkpoint's history does not know yet):
        // recorded in the checkpoint it starts from, at once, or a kill -9 before the session's
        // first save loses the mark and the table stops at its first schema change.
        if (!checkpoint_) return;
        auto& created = checkpoint_->created_targets;
        if (std::find(created.begin(), created.end(), label) != created.end()) return;
        created.insert(std::upper_bound(created.begin(), created.end(), label), label);
        p_.store_->Save(*checkpoint_);
        return;
      }
      tracker_->AddCreatedTarget(label);
    }
    // At once: a restart that found the table without the record would take it for one rowbridge
    // did not create, and stop its table at the first schema change (schema_changes: auto).
    SaveNow();
  };
  return resolver_options;
}

void Pipeline::Session::ResolveTables() {
  const config::Config& config = p_.config_;
  resolver_.emplace(config, *catalog_, MakeResolverOptions());

  if (checkpoint_) {
    // A resnapshot handed over just before a crash may not have put its table in place yet.
    // Not when a later copy of the table owns the fresh table's name now (a resnapshot begun
    // after the hand-over, e.g. the replay of a swap asking for one again): its table, half
    // filled, took the target's place, and the copy then made it again and found its rows copied
    // already, so the target ended empty (unpaced DDL workload, seed 6111 on MySQL 9.7).
    for (const state::TableStart& t : checkpoint_->table_starts) {
      if (t.fresh_target.empty() || IsFreshTableOf(checkpoint_->table_copy, t.fresh_target)) {
        continue;
      }
      const config::QualifiedName name = snapshot::SplitLabel(t.table);
      const int rule = resolver_->Match({name.database, name.table});
      if (rule == config::TableMatcher::kNoRule) continue;
      resolver_->ReplaceWithFresh(resolver_->TargetName({name.database, name.table}, rule),
                                  snapshot::SplitLabel(t.fresh_target));
    }
  }
  router_.emplace(MakeRouterContext());
  schema_changes_.emplace(*router_);
  if (checkpoint_) {
    for (const state::StoppedTable& s : checkpoint_->stopped_tables) {
      router_->AddStopped(s);
      p_.ShowStopped(s);
      spdlog::warn("{}.{} stays stopped since {}: {}", s.database, s.table, s.position, s.reason);
    }
  }
  std::vector<std::string> problems;
  router_->Prepare(*admin_, problems);
  mapping::ThrowIfProblems(problems);
  resolver_->ForgetReplicatedTables();

  // The tables this stream covers: every matched one the source has now. A table the checkpoint
  // did not cover yet was copied before this session (cli/run.cpp) unless copies are off; then
  // only its changes from the checkpoint on are replicated.
  for (const auto& [name, table] : router_->tables()) {
    if (table->rule_index == config::TableMatcher::kNoRule) continue;  // stopped, unmatched now
    const std::string label = name.ToString();
    if (checkpoint_ && checkpoint_->replicated_tables && !table->stopped &&
        !std::binary_search(checkpoint_->replicated_tables->begin(),
                            checkpoint_->replicated_tables->end(), label)) {
      spdlog::warn(
          "{} is matched since the last checkpoint and was not copied{}; its changes are "
          "replicated from {} on",
          label, config.snapshot.enabled ? "" : " (snapshot.enabled is false)",
          checkpoint_->Describe());
    }
    replicated_tables_.push_back(label);
  }
  std::sort(replicated_tables_.begin(), replicated_tables_.end());
}

}  // namespace rowbridge::pipeline
