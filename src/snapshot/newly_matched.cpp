#include "snapshot/newly_matched.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "config/table_matcher.h"
#include "config/target_template.h"
#include "endpoints/connection_options.h"
#include "mysql/connection.h"
#include "schema/schema_history.h"
#include "snapshot/snapshot_runner.h"
#include "snapshot/snapshot_state.h"
#include "tables/replay_window.h"
#include "tables/source_schema.h"
#include "tables/target_tables.h"

namespace rowbridge::snapshot {

namespace {

void InsertSorted(std::vector<std::string>& list, const std::string& item) {
  auto it = std::lower_bound(list.begin(), list.end(), item);
  if (it == list.end() || *it != item) list.insert(it, item);
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Records `copy` in `checkpoint` with the stream's next_version moved above the copy's band, from
// its version_base, and saves it.
void RecordCopy(state::StateStore& store, state::Checkpoint& checkpoint, state::TableCopy copy) {
  if (copy.version_base >= ~uint64_t{0} - 2 * kVersionBand) {
    Fail(ErrorCode::kInternal, "the version counter ({}) has no room for another copy",
         copy.version_base);
  }
  checkpoint.next_version = copy.version_base + kVersionBand;
  checkpoint.table_copy = std::move(copy);
  store.Save(checkpoint);
}

// Finds the matched tables `checkpoint` does not cover; when there are any, checks that the
// versions can move and records the copy (with the moved next_version) in the checkpoint.
bool BeginCopy(const config::Config& config, state::StateStore& store,
               state::Checkpoint& checkpoint) {
  const std::set<std::string> covered = CoveredTables(checkpoint);

  auto source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
  config::TableMatcher matcher(config.tables);
  struct Matched {
    std::string label;
    const config::TableRule* rule;
    config::QualifiedName target;
  };
  std::vector<Matched> matched;
  std::vector<std::string> fresh;
  for (const tables::SourceTableName& name : tables::ListSourceTables(*source)) {
    const int rule = matcher.Match(name.database, name.table);
    if (rule == config::TableMatcher::kNoRule) continue;
    const config::TableRule& r = config.tables[static_cast<size_t>(rule)];
    matched.push_back(
        {name.ToString(), &r,
         config::ExpandTarget(r.target, config.target.database, name.database, name.table)});
    if (covered.count(name.ToString()) == 0) fresh.push_back(name.ToString());
  }
  if (fresh.empty()) return false;
  // Created between the checkpoint and now: the stream's, whose replay meets their creation.
  const std::set<tables::SourceTableName> replayed =
      tables::TablesCreatedSince(*source, checkpoint.file, checkpoint.position);
  std::erase_if(fresh, [&](const std::string& label) {
    const config::QualifiedName name = SplitLabel(label);
    return replayed.count({name.database, name.table}) != 0;
  });
  if (fresh.empty()) return false;
  std::sort(fresh.begin(), fresh.end());

  // The copy's versions go below the stream's by moving the stream's up at the checkpoint: safe
  // only if no target holds a change after it (it would be replayed with another version).
  const uint64_t base = checkpoint.next_version;
  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config.target));
  std::set<std::string> checked;
  for (const Matched& m : matched) {
    const std::string label = m.target.database + "." + m.target.table;
    if (!checked.insert(label).second) continue;
    auto columns = catalog.ReadColumns(m.target.database, m.target.table);
    if (!columns) {
      // Created by the copy: recorded now, so that a crash before the copy ends keeps it known
      // as rowbridge's own (schema changes are applied to it by default).
      if (m.rule->create_table && std::find(fresh.begin(), fresh.end(), m.label) != fresh.end()) {
        InsertSorted(checkpoint.created_targets, label);
      }
      continue;
    }
    const std::string& version = m.rule->meta_columns.version;
    const bool has_version = std::any_of(columns->begin(), columns->end(),
                                         [&](const auto& c) { return c.name == version; });
    if (!has_version) continue;
    const uint64_t max = catalog.MaxVersion(m.target.database, m.target.table, version);
    if (max >= base) {
      Fail(ErrorCode::kConfig,
           "cannot copy the newly matched table(s) {}: ClickHouse table {} holds version {}, "
           "beyond the checkpoint's {} ({}), so the last run did not stop cleanly and its changes "
           "after the checkpoint must be replayed with the rules they were read with. Start "
           "rowbridge once with the previous tables rules, stop it with SIGTERM, then start it "
           "with the new rules",
           Joined(fresh), label, max, base, checkpoint.Describe());
    }
  }
  RecordCopy(store, checkpoint, state::TableCopy{base, fresh, {}, {}});
  spdlog::info(
      "{} table(s) matched since the last checkpoint: {}; copying their rows alongside the stream "
      "(the stream of the other tables resumes at {}; versions from {} on)",
      fresh.size(), Joined(fresh), checkpoint.Describe(), checkpoint.next_version);
  return true;
}

}  // namespace

std::set<std::string> CoveredTables(const state::Checkpoint& checkpoint) {
  if (!checkpoint.replicated_tables) return {};
  std::set<std::string> covered(checkpoint.replicated_tables->begin(),
                                checkpoint.replicated_tables->end());
  for (const state::TableStart& t : checkpoint.table_starts) covered.insert(t.table);
  for (const state::StoppedTable& t : checkpoint.stopped_tables) {
    covered.insert(t.database + "." + t.table);
  }
  return covered;
}

config::QualifiedName SplitLabel(const std::string& label) {
  const size_t dot = label.find('.');
  if (dot == std::string::npos) Fail(ErrorCode::kInternal, "\"{}\" is not db.table", label);
  return {label.substr(0, dot), label.substr(dot + 1)};
}

config::QualifiedName FreshTargetName(const config::QualifiedName& target) {
  return {target.database, target.table + "_rowbridge_resnapshot"};
}

namespace {

// The target `rule` (matching `name`) names for it.
config::QualifiedName RulesTarget(const config::Config& config, int rule,
                                  const config::QualifiedName& name) {
  return config::ExpandTarget(config.tables[static_cast<size_t>(rule)].target,
                              config.target.database, name.database, name.table);
}

}  // namespace

void DropFreshTables(const config::Config& config, const std::vector<std::string>& fresh) {
  if (fresh.empty()) return;
  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config.target));
  for (const std::string& label : fresh) {
    const config::QualifiedName name = SplitLabel(label);
    catalog.Execute("DROP TABLE IF EXISTS " +
                    clickhouse::QuoteQualified(name.database, name.table));
  }
}

std::string FreshCopyRefusal(const config::Config& config, const std::string& table) {
  const config::QualifiedName name = SplitLabel(table);
  config::TableMatcher matcher(config.tables);
  const int rule = matcher.Match(name.database, name.table);
  if (rule == config::TableMatcher::kNoRule) return "no rule of the configuration matches it";
  if (!config.tables[static_cast<size_t>(rule)].create_table) {
    return "its rule says create_table: false, and a resnapshot copies into a table it creates";
  }
  if (!config.target.cluster.empty()) {
    // The copy's table takes the old one's place by RENAME TABLE on one host; a cluster's
    // Distributed and local tables on every host are not swapped that way.
    return "target.cluster is set, and a resnapshot cannot swap a cluster's tables yet "
           "(docs/running.md, \"Clusters and high availability\")";
  }
  return "";
}

std::string ResnapshotRefusal(const config::Config& config, const state::Checkpoint& checkpoint,
                              const std::string& table) {
  if (std::string why = FreshCopyRefusal(config, table); !why.empty()) return why;
  if (checkpoint.table_copy) {
    return fmt::format("a copy of {} runs already; try again once it is done",
                       Joined(checkpoint.table_copy->tables));
  }
  if (!StreamCovers(checkpoint, table)) {
    return "the stream does not cover it yet (a table matched later is copied at the next start)";
  }
  return "";
}

bool StreamCovers(const state::Checkpoint& checkpoint, const std::string& table) {
  const bool replicated =
      checkpoint.replicated_tables &&
      std::find(checkpoint.replicated_tables->begin(), checkpoint.replicated_tables->end(),
                table) != checkpoint.replicated_tables->end();
  return replicated || checkpoint.FindStopped(table) != nullptr;
}

void BeginResnapshot(const config::Config& config, state::StateStore& store,
                     state::Checkpoint& checkpoint, const std::string& table) {
  if (std::string why = ResnapshotRefusal(config, checkpoint, table); !why.empty()) {
    Fail(ErrorCode::kInvalidArgument, "cannot resnapshot {}: {}", table, why);
  }
  const config::QualifiedName name = SplitLabel(table);
  const config::QualifiedName target = RulesTarget(
      config, config::TableMatcher(config.tables).Match(name.database, name.table), name);
  const config::QualifiedName fresh = FreshTargetName(target);
  DropFreshTables(config, {fresh.database + "." + fresh.table});
  RecordCopy(
      store, checkpoint,
      state::TableCopy{checkpoint.next_version, {table}, {fresh.database + "." + fresh.table}, {}});
  spdlog::info(
      "resnapshot of {}: copying it again into {}.{} alongside the stream, which goes on writing "
      "into {}.{} until the copy takes its place (versions from {} on)",
      table, fresh.database, fresh.table, target.database, target.table, checkpoint.next_version);
}

void BeginMatchedLaterAgain(const config::Config& config, state::StateStore& store,
                            state::Checkpoint& checkpoint) {
  if (!checkpoint.table_copy ||
      checkpoint.table_copy->kind() != state::TableCopy::Kind::kMatchedLater) {
    Fail(ErrorCode::kInternal, "no copy of tables matched later to begin again");
  }
  const std::vector<std::string> tables = checkpoint.table_copy->tables;
  std::vector<std::string> fresh_targets;
  config::TableMatcher matcher(config.tables);
  for (const std::string& table : tables) {
    if (std::string why = FreshCopyRefusal(config, table); !why.empty()) {
      Fail(ErrorCode::kInvalidArgument, "cannot copy {} again into a fresh table: {}", table, why);
    }
    const config::QualifiedName name = SplitLabel(table);
    const config::QualifiedName fresh =
        FreshTargetName(RulesTarget(config, matcher.Match(name.database, name.table), name));
    fresh_targets.push_back(fresh.database + "." + fresh.table);
  }
  DropFreshTables(config, fresh_targets);
  state::TableCopy copy{checkpoint.next_version, tables, fresh_targets, {}};
  copy.matched_later = true;
  RecordCopy(store, checkpoint, std::move(copy));
  spdlog::info(
      "copy of {}: begun again into fresh tables built from their current columns ({}), which "
      "take their targets' places once complete (versions from {} on)",
      Joined(tables), Joined(fresh_targets), checkpoint.table_copy->version_base);
}

std::string PauseRefusal(const state::Checkpoint& checkpoint, const std::string& table) {
  if (const state::StoppedTable* stopped = checkpoint.FindStopped(table)) {
    return stopped->paused ? "it is paused already" : "it is stopped already";
  }
  if (!checkpoint.replicated_tables ||
      !std::binary_search(checkpoint.replicated_tables->begin(),
                          checkpoint.replicated_tables->end(), table)) {
    return "it is not streamed yet (its copy has not been handed over)";
  }
  return "";
}

void BeginRecopy(const config::Config& config, state::StateStore& store,
                 state::Checkpoint& checkpoint, const mysql::BinlogPosition& now,
                 std::string schema_history) {
  std::set<std::string> covered = CoveredTables(checkpoint);
  if (checkpoint.table_copy) {
    covered.insert(checkpoint.table_copy->tables.begin(), checkpoint.table_copy->tables.end());
  }
  if (!config.target.cluster.empty() && !covered.empty()) {
    // As for a resnapshot: the fresh tables cannot be swapped in on a cluster yet.
    Fail(ErrorCode::kConfig,
         "on_purged_position: recopy cannot copy the tables again on a cluster target "
         "(target.cluster is set): a fresh table cannot be swapped in on every node yet");
  }
  config::TableMatcher matcher(config.tables);
  std::vector<std::string> tables;
  std::vector<std::string> fresh_targets;
  std::vector<std::string> refused;
  for (const std::string& label : covered) {
    const config::QualifiedName name = SplitLabel(label);
    const int rule = matcher.Match(name.database, name.table);
    if (rule == config::TableMatcher::kNoRule) {
      refused.push_back(label + " (no rule matches it any more)");
      continue;
    }
    if (!config.tables[static_cast<size_t>(rule)].create_table) {
      refused.push_back(label + " (its rule says create_table: false)");
      continue;
    }
    const config::QualifiedName fresh = FreshTargetName(RulesTarget(config, rule, name));
    tables.push_back(label);
    fresh_targets.push_back(fresh.database + "." + fresh.table);
  }
  if (!refused.empty()) {
    Fail(ErrorCode::kConfig,
         "on_purged_position: recopy cannot copy every table again into a fresh target: {}",
         Joined(refused));
  }
  DropFreshTables(config, fresh_targets);
  const std::string purged = checkpoint.Describe();
  checkpoint.file = now.file;
  checkpoint.position = now.position;
  if (checkpoint.gtid_flavor == state::GtidFlavor::kMariadb || !now.mariadb_gtids.empty()) {
    checkpoint.gtid_flavor = state::GtidFlavor::kMariadb;
    checkpoint.gtid = now.mariadb_gtids.ToString();
  } else if (!now.mysql_gtids.empty()) {
    checkpoint.gtid_flavor = state::GtidFlavor::kMysql;
    checkpoint.gtid = now.mysql_gtids.ToString();
  } else {
    checkpoint.gtid_flavor = state::GtidFlavor::kNone;
    checkpoint.gtid.clear();
  }
  checkpoint.schema_history = std::move(schema_history);
  // Positions before `now`: no replay goes back there any more.
  checkpoint.table_starts.clear();
  checkpoint.target_renames.clear();
  // Every table is copied into its rules' target.
  checkpoint.target_aliases.clear();
  checkpoint.replicated_tables = std::vector<std::string>(covered.begin(), covered.end());
  checkpoint.table_copy.reset();
  if (tables.empty()) {
    store.Save(checkpoint);
    spdlog::warn(
        "on_purged_position: recopy: the checkpoint was at {}, which the source purged; "
        "no table was replicated yet, and the stream now starts at {}",
        purged, checkpoint.Describe());
    return;
  }
  RecordCopy(store, checkpoint,
             state::TableCopy{checkpoint.next_version, tables, fresh_targets, {}});
  spdlog::warn(
      "on_purged_position: recopy: the checkpoint was at {}, which the source purged; the stream "
      "now starts at {} and every table is copied again alongside it into a fresh target that "
      "takes the old one's place once complete ({}; versions from {} on). The old targets keep "
      "their rows, and get the changes from now on, until then",
      purged, checkpoint.Describe(), Joined(tables), checkpoint.table_copy->version_base);
}

std::string ResumeRefusal(const state::Checkpoint& checkpoint, const std::string& table) {
  if (checkpoint.table_copy) {
    return fmt::format("a copy of {} runs already; try again once it is done",
                       Joined(checkpoint.table_copy->tables));
  }
  const state::StoppedTable* stopped = checkpoint.FindStopped(table);
  if (stopped == nullptr) return "it is neither stopped nor paused";
  try {
    schema::BinlogPosition::Parse(stopped->position, table);
  } catch (const Error&) {
    return fmt::format(
        "its stop position \"{}\" is not file:position; `rowbridge resnapshot` copies it again "
        "instead",
        stopped->position);
  }
  return "";
}

void BeginResume(const config::Config& config, state::StateStore& store,
                 state::Checkpoint& checkpoint, const std::string& table) {
  if (std::string why = ResumeRefusal(checkpoint, table); !why.empty()) {
    Fail(ErrorCode::kInvalidArgument, "cannot resume {}: {}", table, why);
  }
  const state::StoppedTable* stopped = checkpoint.FindStopped(table);
  // The changes since the stop are read from the source's binlog: refused now, rather than a copy
  // that fails later, when the file is gone.
  const std::string file = schema::BinlogPosition::Parse(stopped->position, table).file;
  auto source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
  bool listed = false;
  for (const auto& row : source->QueryRows("SHOW BINARY LOGS")) {
    if (!row.empty() && row[0] && *row[0] == file) listed = true;
  }
  if (!listed) {
    Fail(ErrorCode::kInvalidArgument,
         "cannot resume {}: it stopped at {}, and the source no longer has binlog {} (purged); "
         "`rowbridge resnapshot {}` copies it again instead",
         table, stopped->position, file, table);
  }
  RecordCopy(store, checkpoint,
             state::TableCopy{checkpoint.next_version, {table}, {}, {stopped->position}});
  spdlog::info(
      "resume of {}: its changes from {} on are applied to its target alongside the "
      "stream (versions from {} on), then the stream takes it over",
      table, stopped->position, checkpoint.next_version);
}

std::optional<state::TableCopy> PendingTableCopy(const config::Config& config,
                                                 state::StateStore& store,
                                                 state::Checkpoint& checkpoint) {
  if (!config.snapshot.enabled) return std::nullopt;
  state::RequireVersionRoom(
      checkpoint.next_version, "the checkpoint in " + store.Describe(),
      "restore the checkpoint from a backup, or start over: delete the job's state so that the "
      "next start copies every table again (docs/running.md, \"Starting over\")");
  if (!checkpoint.table_copy) {
    if (!checkpoint.replicated_tables) return std::nullopt;
    if (!BeginCopy(config, store, checkpoint)) return std::nullopt;
  } else {
    const state::TableCopy::Kind kind = checkpoint.table_copy->kind();
    spdlog::info("resuming the {} {} alongside the stream",
                 kind == state::TableCopy::Kind::kMatchedLater
                     ? std::string("copy of the newly matched table(s)")
                     : std::string(state::TableCopyKindName(kind)) + " of",
                 Joined(checkpoint.table_copy->tables));
  }
  return checkpoint.table_copy;
}

bool CopyTablesAlongside(const config::Config& config, const state::Checkpoint& checkpoint,
                         const std::string& store_description, server::MetricsRegistry& metrics,
                         server::StatusBoard& status, const std::atomic<bool>* stop,
                         const std::function<bool(const BinlogPoint& end)>& hand_over) {
  if (!checkpoint.table_copy) return true;
  const state::TableCopy& copy = *checkpoint.table_copy;
  SnapshotOptions options;
  options.external_stop = stop;
  options.progress_interval = std::chrono::seconds(10);
  options.only_tables = copy.tables;
  options.version_base = copy.version_base;
  options.state_job = fmt::format("{}-tables-{}", state::JobName(config), copy.version_base);
  if (checkpoint.replicated_tables) options.replicated_tables = *checkpoint.replicated_tables;
  for (size_t i = 0; i < copy.fresh_targets.size() && i < copy.tables.size(); ++i) {
    // A resnapshot: the copy goes into a fresh table, which it creates.
    options.target_overrides[copy.tables[i]] = SplitLabel(copy.fresh_targets[i]);
    std::erase(options.replicated_tables, copy.tables[i]);
  }
  for (size_t i = 0; i < copy.resume_from.size() && i < copy.tables.size(); ++i) {
    const schema::BinlogPosition from =
        schema::BinlogPosition::Parse(copy.resume_from[i], "resume of " + copy.tables[i]);
    options.window_only_from[copy.tables[i]] = BinlogPoint{from.file, from.offset};
  }
  std::sort(options.replicated_tables.begin(), options.replicated_tables.end());
  options.checkpoint = checkpoint.Describe() + " in " + store_description;
  options.rowbridge_targets = checkpoint.created_targets;
  options.alongside = true;
  options.hand_over = hand_over;
  SnapshotRunner runner(config, options, metrics, status);
  const SnapshotResult result = runner.Run();
  if (result.end.empty()) return false;
  spdlog::info("copy of {} done and handed over to the stream at {}", Joined(result.copied_tables),
               result.end.ToString());
  return true;
}

}  // namespace rowbridge::snapshot
