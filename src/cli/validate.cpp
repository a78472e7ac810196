#include "cli/validate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/logging.h"
#include "config/loader.h"
#include "config/table_matcher.h"
#include "config/units.h"
#include "endpoints/connection_options.h"
#include "ha/zookeeper_leader_lock.h"
#include "mysql/binlog_retention.h"
#include "mysql/source_check.h"
#include "snapshot/snapshot_runner.h"
#include "state/state_store.h"
#include "tables/source_foreign_keys.h"
#include "tables/source_schema.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::cli {

namespace {

// The binlog retention headroom of the saved checkpoint (mysql/binlog_retention.h): a warning
// below source.binlog_retention.warn_below (or a tenth of the source's size limit), a problem when
// its file is already purged (a restart could not resume there).
void CheckRetention(const config::Config& config, mysql::Connection& source,
                    std::vector<std::string>& problems) {
  std::optional<state::Checkpoint> checkpoint;
  try {
    checkpoint = state::MakeStateStore(config)->Load();
  } catch (const Error& e) {
    problems.push_back(fmt::format("reading the checkpoint: {}", e.what()));
    return;
  }
  if (!checkpoint) {
    std::printf(
        "checkpoint: none saved yet (a first start begins at the source's current "
        "position)\n");
    return;
  }
  mysql::ConnectOptions dump_options = endpoints::SourceConnectOptions(config.source);
  dump_options.program_name = "rowbridge validate";
  mysql::BinlogRetentionCheck check;
  try {
    check = mysql::CheckBinlogRetention(source, dump_options, checkpoint->file, nullptr);
  } catch (const Error& e) {
    problems.push_back(fmt::format("measuring the binlog retention of checkpoint {}: {}",
                                   checkpoint->Describe(), e.what()));
    return;
  }
  const mysql::BinlogRetention& r = check.retention;
  const std::string line = mysql::DescribeBinlogRetention(checkpoint->file, r, check.settings);
  std::printf("checkpoint %s: %s\n", checkpoint->Describe().c_str(), line.c_str());
  if (r.purged) {
    problems.push_back(fmt::format(
        "checkpoint {}: its binlog file {} is no longer on the source, so `run` cannot resume; "
        "copy the tables again (docs/running.md) or start elsewhere with `run --start-at`",
        checkpoint->Describe(), checkpoint->file));
    return;
  }
  const auto warn_below = config.source.binlog_retention.warn_below;
  const mysql::LowBinlogRetention low = mysql::FindLowBinlogRetention(check, warn_below);
  if (low.seconds) {
    std::printf(
        "  warning: binlog retention headroom %s is below source.binlog_retention."
        "warn_below (%s): start rowbridge, or raise the source's expiry, before the file "
        "goes\n",
        mysql::FormatHeadroomSeconds(r.headroom_seconds).c_str(),
        config::FormatDuration(warn_below).c_str());
  }
  if (low.bytes) {
    std::printf(
        "  warning: binlog retention headroom %s is below a tenth of %s: start "
        "rowbridge, or raise the limit, before the file goes\n",
        mysql::FormatHeadroomBytes(r.headroom_bytes).c_str(), check.settings.size_setting.c_str());
  }
}

struct ValidateFlags {
  std::string config_file;
  bool keyless_single_chunk = false;  // as `run --keyless-single-chunk`
};

// The foreign keys whose actions change replicated tables, and how each reaches the targets
// (docs/running.md, "Foreign-key cascades").
void PrintCascades(mysql::Connection& source, const std::vector<tables::ReplicatedTable>& matched) {
  std::set<tables::SourceTableName> replicated;
  for (const tables::ReplicatedTable& table : matched) replicated.insert(table.name);
  std::string how;
  const bool logged = tables::SourceLogsCascades(source, &how);
  const std::optional<std::string> image = source.QueryValue("SELECT @@GLOBAL.binlog_row_image");
  const std::vector<std::string> lines =
      tables::DescribeCascadeHandling(tables::ReadForeignKeys(source), replicated, logged, how,
                                      image && (*image == "MINIMAL" || *image == "minimal"));
  if (lines.empty()) return;
  std::printf("%zu foreign key(s) with cascading actions among matched tables:\n", lines.size());
  for (const std::string& line : lines) std::printf("  cascade %s\n", line.c_str());
}

void Validate(const ValidateFlags& flags) {
  const std::string& config_file = flags.config_file;
  std::vector<std::string> warnings;
  config::LoadOptions load;
  load.warnings = &warnings;
  config::Config config = config::LoadConfigFile(config_file, load);
  if (flags.keyless_single_chunk) config.snapshot.keyless_single_chunk = true;
  config::LogConfig quiet = config.log;
  quiet.level = config::LogLevel::kWarn;
  ConfigureLogging(quiet);
  std::printf("config %s: ok (%zu table rule(s))\n", config_file.c_str(), config.tables.size());
  for (const auto& w : warnings) std::printf("  warning: %s\n", w.c_str());

  std::vector<std::string> problems;
  const std::string source_name =
      fmt::format("source {}:{}", config.source.host, config.source.port);
  const std::string target_name =
      fmt::format("ClickHouse {}:{}", config.target.host, config.target.port);

  std::unique_ptr<mysql::Connection> source;
  try {
    source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
    mysql::SourceCheckResult check =
        mysql::CheckSource(*source, config.source.server_id, endpoints::SourceReportHost(config),
                           endpoints::StaleSessionGrace(config.source));
    std::printf("%s: %s %s, binlog_format=%s, binlog_row_image=%s\n", source_name.c_str(),
                mysql::FlavorName(check.facts.flavor), check.facts.version.c_str(),
                check.facts.binlog_format.c_str(), check.facts.binlog_row_image.c_str());
    for (const auto& note : check.notes) std::printf("  note: %s\n", note.c_str());
    for (const auto& p : check.problems) problems.push_back(source_name + ": " + p);
  } catch (const Error& e) {
    problems.push_back(fmt::format("{}: {}", source_name, e.what()));
    source.reset();
  }

  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config.target));
  bool target_ok = false;
  try {
    const auto& server = catalog.client().server();
    std::printf("%s: %s %s\n", target_name.c_str(), server.name.c_str(), server.Version().c_str());
    target_ok = true;
    // `run` would fail at its first CREATE TABLE or INSERT, after the copy began.
    for (const std::string& reason : catalog.WriteRestrictions()) {
      problems.push_back(fmt::format("{}: {}", target_name, reason));
    }
  } catch (const Error& e) {
    problems.push_back(fmt::format("{}: {}", target_name, e.what()));
  }

  if (config.state.store == config::StateStore::kFile) {
    const std::filesystem::path dir(config.state.path);
    std::error_code ec;
    if (std::filesystem::exists(dir, ec)) {
      if (::access(dir.c_str(), W_OK) != 0)
        problems.push_back(fmt::format("state.path {}: not writable", dir.string()));
    } else if (::access(dir.parent_path().c_str(), W_OK) != 0) {
      problems.push_back(
          fmt::format("state.path {}: does not exist and cannot be created", dir.string()));
    }
  }

  if (source && target_ok) {
    tables::ResolverOptions resolver_options;
    resolver_options.dry_run = true;
    tables::TableResolver resolver(config, catalog, std::move(resolver_options));
    try {
      const std::vector<tables::ReplicatedTable> matched = resolver.ResolveAll(*source, problems);
      for (const tables::ReplicatedTable& table : matched) {
        std::printf("  %s -> %s (%s)\n", table.name.ToString().c_str(), table.target->label.c_str(),
                    config::TableModeName(table.rule->mode));
        // The copy (a first start, or a table matched since the last one) refuses a table it
        // cannot chunk; the stream alone would not mind.
        if (config.snapshot.enabled && !snapshot::HasChunkKey(*source, *table.known)) {
          if (config.snapshot.keyless_single_chunk) {
            std::printf(
                "  warning: %s has no primary or NOT NULL unique key: the copy reads it with one "
                "SELECT (snapshot.keyless_single_chunk; see docs/snapshot.md for the caveat)\n",
                table.name.ToString().c_str());
          } else {
            problems.push_back(snapshot::KeylessTableProblem(table.name.ToString()));
          }
        }
      }
      std::printf("%zu source table(s) matched\n", matched.size());
      PrintCascades(*source, matched);
      std::vector<std::pair<std::string, std::string>> names;
      for (const tables::SourceTableName& name : tables::ListSourceTables(*source)) {
        names.emplace_back(name.database, name.table);
      }
      for (const std::string& w : config::RulesMatchingNothing(config.tables, names)) {
        std::printf("  warning: %s\n", w.c_str());
      }
    } catch (const Error& e) {
      problems.push_back(fmt::format("checking tables: {}", e.what()));
    }
  }

  if (source) CheckRetention(config, *source, problems);

  if (config.ha.lock == config::HaLock::kZooKeeper) {
    const std::string zookeeper_name = fmt::format("ZooKeeper {}", config.ha.hosts);
    try {
      const std::string found = ha::ZooKeeperLeaderLock::Probe(config.ha, state::JobName(config));
      std::printf("%s: %s\n", zookeeper_name.c_str(), found.c_str());
    } catch (const Error& e) {
      problems.push_back(fmt::format("{} (ha.lock: zookeeper): {}", zookeeper_name, e.what()));
    }
  }

  if (!problems.empty()) {
    std::string text = fmt::format("{} problem(s) found:", problems.size());
    for (const auto& p : problems) text += "\n  " + p;
    throw Error(ErrorCode::kConfig, text);
  }
  std::printf("ok: ready to run\n");
}

}  // namespace

void RegisterValidate(CLI::App& app) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check the configuration, both servers, the source settings and every target table; print "
      "every problem at once");
  cmd->add_option("-c,--config", flags->config_file, "the configuration file (YAML)")->required();
  cmd->add_flag("--keyless-single-chunk", flags->keyless_single_chunk,
                "check as `run --keyless-single-chunk` would run: tables without a primary or "
                "NOT NULL unique key are copied as one chunk");
  cmd->callback([flags] { Validate(*flags); });
}

}  // namespace rowbridge::cli
