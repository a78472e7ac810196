// `rowbridge tables` and `rowbridge resume|pause|resnapshot|repair` (tables.h).
//
// `tables` prefers the running process: it knows each table's state, progress, lag and counts.
// Without it, the checkpoint knows which tables the stream covers, which a copy was busy with and
// which are stopped, and the source's table list matched against the rules tells which tables
// the next start would add. Counts and lag are a running process's only; offline they are null.
#include "cli/tables.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/admin_client.h"
#include "cli/logging.h"
#include "cli/recorded_table_command.h"
#include "common/error.h"
#include "config/loader.h"
#include "config/table_matcher.h"
#include "config/target_template.h"
#include "config/units.h"
#include "endpoints/connection_options.h"
#include "mysql/connection.h"
#include "server/table_commands.h"
#include "state/state_store.h"
#include "tables/source_schema.h"

namespace rowbridge::cli {
namespace {

using Json = nlohmann::ordered_json;

// One line of the listing; the JSON output is these fields, always all of them.
struct TableRow {
  std::string table;  // db.table
  Json target;        // "db.table" or null
  std::string state;
  std::string detail;
  Json lag_seconds;    // number or null
  Json rows_copied;    // number or null
  Json rows_streamed;  // number or null
  Json last_flush_at;  // text or null
  Json copy;           // /status's copy object or null
  Json stopped;        // {reason, position, at} or null
  Json pending;        // {action, requested_at}: a command recorded while `run` was not running

  Json ToJson() const {
    return {{"table", table},
            {"target", target},
            {"state", state},
            {"detail", detail},
            {"lag_seconds", lag_seconds},
            {"rows_copied", rows_copied},
            {"rows_streamed", rows_streamed},
            {"last_flush_at", last_flush_at},
            {"copy", copy},
            {"stopped", stopped},
            {"pending", pending}};
  }
};

std::string TextOr(const Json& value, const std::string& fallback) {
  return value.is_string() ? value.get<std::string>() : fallback;
}

std::string NameText(const Json& name) {
  if (!name.is_object()) return "";
  return TextOr(name.value("database", Json()), "") + "." + TextOr(name.value("table", Json()), "");
}

std::string SecondsText(double seconds) {
  return config::FormatDuration(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

std::string CopyDetail(const Json& copy) {
  if (!copy.is_object()) return "copy starting";
  const double fraction = copy.value("fraction", 0.0);
  std::string text = fmt::format("{:.0f}% ({} of about {} rows)", fraction * 100,
                                 copy.value("rows_copied", uint64_t{0}),
                                 copy.value("rows_estimated", uint64_t{0}));
  const Json eta = copy.value("eta_seconds", Json());
  text += eta.is_number() ? ", ETA " + SecondsText(eta.get<double>()) : ", ETA unknown";
  return text;
}

// The rows of a running process's GET /status.
std::vector<TableRow> RowsFromStatus(const Json& status) {
  std::vector<TableRow> rows;
  const Json tables = status.value("tables", Json::array());
  for (const Json& t : tables) {
    TableRow row;
    row.table = NameText(t.value("source", Json()));
    const std::string target = NameText(t.value("target", Json()));
    if (!target.empty()) row.target = target;
    row.state = TextOr(t.value("state", Json()), "?");
    row.lag_seconds = t.value("lag_seconds", Json());
    const Json counts = t.value("rows", Json::object());
    row.rows_copied = counts.value("copied", uint64_t{0});
    row.rows_streamed = counts.value("insert", uint64_t{0}) + counts.value("update", uint64_t{0}) +
                        counts.value("delete", uint64_t{0});
    row.last_flush_at = t.value("last_flush_at", Json());
    row.copy = t.value("copy", Json());
    row.stopped = t.value("stopped", Json());
    if (row.state == "copying") {
      row.detail = CopyDetail(row.copy);
    } else if (row.state == "stopped" && row.stopped.is_object()) {
      const std::string position = TextOr(row.stopped.value("position", Json()), "");
      row.detail = fmt::format("since {}{}: {}", TextOr(row.stopped.value("at", Json()), "?"),
                               position.empty() ? "" : " at " + position,
                               TextOr(row.stopped.value("reason", Json()), "?"));
    } else if (row.state == "paused") {
      const Json paused = t.value("paused", Json());
      row.detail = "paused since " + (paused.is_object() ? TextOr(paused.value("at", Json()), "?")
                                                         : std::string("?"));
    } else if (row.state == "pending") {
      row.detail = "not copied or streamed yet";
    } else if (row.state == "copied") {
      row.detail = "copied; the stream takes over next";
    } else if (row.state == "streaming") {
      row.detail = row.last_flush_at.is_string()
                       ? "last flush " + row.last_flush_at.get<std::string>()
                       : "no change flushed yet";
      const Json unflushed = t.value("unflushed_since", Json());
      if (unflushed.is_string())
        row.detail += ", changes waiting since " + unflushed.get<std::string>();
    }
    const Json error = t.value("last_error", Json());
    if (error.is_object()) {
      row.detail += (row.detail.empty() ? "" : "; ") +
                    fmt::format("last error {}: {}", TextOr(error.value("at", Json()), "?"),
                                TextOr(error.value("message", Json()), "?"));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The rows the state store and the source tell, with notes on what could not be read.
std::vector<TableRow> RowsFromState(const config::Config& config, std::vector<std::string>& notes) {
  std::map<std::string, TableRow> rows;  // by db.table
  config::TableMatcher matcher(config.tables);
  auto add = [&](const std::string& database, const std::string& table) -> TableRow& {
    const std::string label = database + "." + table;
    TableRow& row = rows[label];
    if (row.table.empty()) {
      row.table = label;
      const int rule = matcher.Match(database, table);
      if (rule != config::TableMatcher::kNoRule) {
        const config::QualifiedName target =
            config::ExpandTarget(config.tables[static_cast<size_t>(rule)].target,
                                 config.target.database, database, table);
        row.target = target.database + "." + target.table;
      }
    }
    return row;
  };
  auto split = [](const std::string& label) {
    const size_t dot = label.find('.');
    return dot == std::string::npos ? std::make_pair(label, std::string())
                                    : std::make_pair(label.substr(0, dot), label.substr(dot + 1));
  };

  std::optional<state::Checkpoint> checkpoint;
  std::unique_ptr<state::StateStore> store = state::MakeStateStore(config);
  bool state_read = false;
  try {
    checkpoint = store->Load();
    state_read = true;
  } catch (const Error& e) {
    notes.push_back(
        fmt::format("the state store ({}) could not be read: {}", store->Describe(), e.what()));
  }
  if (state_read && !checkpoint) {
    notes.push_back(
        fmt::format("no checkpoint in {}: nothing was copied or streamed yet", store->Describe()));
  }

  std::set<std::string> covered;
  if (checkpoint) {
    notes.push_back(fmt::format("checkpoint in {}: {}", store->Describe(), checkpoint->Describe()));
    for (const state::StoppedTable& s : checkpoint->stopped_tables) {
      TableRow& row = add(s.database, s.table);
      if (s.paused) {
        row.state = "paused";
        row.detail = fmt::format("paused at {} (`rowbridge resume` continues it)", s.position);
        covered.insert(row.table);
        continue;
      }
      row.state = "stopped";
      row.stopped = {{"reason", s.reason}, {"position", s.position}, {"at", nullptr}};
      row.detail =
          fmt::format("{}: {}", s.position.empty() ? "stopped" : "at " + s.position, s.reason);
      covered.insert(row.table);
    }
    if (checkpoint->table_copy) {
      for (const std::string& label : checkpoint->table_copy->tables) {
        const auto [database, table] = split(label);
        TableRow& row = add(database, table);
        if (!row.state.empty()) continue;
        row.state = "copying";
        row.detail = fmt::format("a {} was interrupted; it resumes at the next start",
                                 state::TableCopyKindName(checkpoint->table_copy->kind()));
        covered.insert(label);
      }
    }
    if (checkpoint->replicated_tables) {
      for (const std::string& label : *checkpoint->replicated_tables) {
        const auto [database, table] = split(label);
        TableRow& row = add(database, table);
        if (!row.state.empty()) continue;
        row.state = "streaming";
        row.detail = "streams on from the checkpoint at the next start";
        for (const state::TableStart& start : checkpoint->table_starts) {
          if (start.table == label) {
            row.detail = fmt::format("copied after the stream began; its stream starts at {}:{}",
                                     start.file, start.position);
          }
        }
        if (!row.target.is_string()) row.detail += " (no rule matches it any more)";
        covered.insert(label);
      }
    }
    // A renamed table whose old target could not be renamed with it writes there for good.
    for (const state::TargetAlias& alias : checkpoint->target_aliases) {
      if (!alias.until_file.empty()) continue;
      const auto [database, table] = split(alias.table);
      TableRow& row = add(database, table);
      row.target = alias.target;
      row.detail +=
          fmt::format("{}writes into {}, its target before the RENAME at {}:{}",
                      row.detail.empty() ? "" : "; ", alias.target, alias.file, alias.position);
    }
  }

  // What the next start would add: the matched tables the source has.
  const std::string source_name = fmt::format("{}:{}", config.source.host, config.source.port);
  try {
    auto source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
    std::set<std::string> on_source;
    for (const tables::SourceTableName& name : tables::ListSourceTables(*source)) {
      on_source.insert(name.ToString());
      if (matcher.Match(name.database, name.table) == config::TableMatcher::kNoRule) continue;
      const std::string label = name.ToString();
      if (covered.count(label) != 0) continue;
      TableRow& row = add(name.database, name.table);
      if (!state_read) {
        row.state = "unknown";
        row.detail =
            "matched; whether it was copied is in the state store, which could not be read";
      } else if (checkpoint && !checkpoint->replicated_tables) {
        // An older checkpoint: every matched table counts as covered (snapshot/newly_matched.h).
        row.state = "streaming";
        row.detail = "streams on from the checkpoint at the next start";
      } else if (!checkpoint) {
        row.state = "new";
        row.detail = config.snapshot.enabled
                         ? "not copied yet: copied at the first start"
                         : "not copied (snapshot.enabled is false): streams from the first "
                           "start's position on";
      } else {
        row.state = "new";
        row.detail = config.snapshot.enabled
                         ? "matched since the checkpoint, not copied yet: copied at the next start"
                         : "matched since the checkpoint; not copied (snapshot.enabled is false): "
                           "its changes stream from the checkpoint on";
      }
    }
    for (auto& [label, row] : rows) {
      if (row.state == "streaming" && on_source.count(label) == 0) {
        row.detail += " (the source has no such table now)";
      }
    }
  } catch (const Error& e) {
    notes.push_back(fmt::format(
        "the source {} could not be reached ({}): tables the next start would add are not "
        "listed",
        source_name, e.what()));
  }

  if (checkpoint) {
    for (const state::PendingCommand& command : checkpoint->pending_commands) {
      const auto [database, table] = split(command.table);
      TableRow& row = add(database, table);
      if (row.state.empty()) row.state = "unknown";
      row.pending = {{"action", command.action}, {"requested_at", command.requested_at}};
      row.detail += fmt::format(
          "{}{} pending (recorded {}): `rowbridge run` carries it out once "
          "its stream runs",
          row.detail.empty() ? "" : "; ", command.action, command.requested_at);
    }
  }

  std::vector<TableRow> out;
  for (auto& [label, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string NumberText(const Json& value) {
  if (value.is_null()) return "-";
  if (value.is_number_float()) return fmt::format("{:.1f}s", value.get<double>());
  return value.dump();
}

void PrintAligned(const std::vector<TableRow>& rows) {
  std::vector<std::vector<std::string>> cells = {
      {"TABLE", "STATE", "LAG", "COPIED", "STREAMED", "DETAIL"}};
  for (const TableRow& row : rows) {
    cells.push_back({row.table, row.state, NumberText(row.lag_seconds), NumberText(row.rows_copied),
                     NumberText(row.rows_streamed), row.detail});
  }
  std::vector<size_t> widths(cells.front().size(), 0);
  for (const auto& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
  }
  for (const auto& line : cells) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      if (i + 1 == line.size()) {
        text += line[i];
      } else {
        text += line[i] + std::string(widths[i] - line[i].size() + 2, ' ');
      }
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    std::printf("%s\n", text.c_str());
  }
  if (rows.empty()) std::printf("(no tables)\n");
}

struct TablesFlags {
  std::string config_file;
  std::string address;
  bool json = false;
};

void ListTables(const TablesFlags& flags) {
  const config::Config config = config::LoadConfigFile(flags.config_file);
  config::LogConfig quiet = config.log;
  quiet.level = config::LogLevel::kWarn;
  ConfigureLogging(quiet);

  std::string header;
  std::vector<std::string> notes;
  std::vector<TableRow> rows;
  std::string not_running;
  std::optional<AdminEndpoint> endpoint = FindAdminEndpoint(config, flags.address, not_running);
  bool online = false;
  if (endpoint) {
    const HttpAnswer answer = CallAdmin(*endpoint, config.http.token, "GET", "/status");
    if (answer.connected) {
      if (answer.status == 401) {
        Fail(ErrorCode::kConfig,
             "the rowbridge at {} refused GET /status (401): http.token in {} is not the running "
             "process's",
             endpoint->label, flags.config_file);
      }
      if (answer.status != 200) {
        Fail(ErrorCode::kProtocol, "{} answered GET /status with HTTP {}: {}", endpoint->label,
             answer.status, answer.body.substr(0, 200));
      }
      const Json status = Json::parse(answer.body, nullptr, false);
      if (status.is_discarded() || !status.is_object() || !status.contains("tables")) {
        Fail(ErrorCode::kProtocol,
             "{} answered GET /status with something other than rowbridge's status JSON",
             endpoint->label);
      }
      try {
        rows = RowsFromStatus(status);
      } catch (const nlohmann::json::exception& e) {
        Fail(ErrorCode::kProtocol, "{} answered GET /status with an unexpected shape: {}",
             endpoint->label, e.what());
      }
      header = fmt::format("tables of the running rowbridge at {} ({}):", endpoint->label,
                           TextOr(status.value("status", Json()), "?"));
      online = true;
    } else {
      not_running = fmt::format("nothing answers at {}: {}", endpoint->label, answer.error);
    }
  }
  if (!online) {
    rows = RowsFromState(config, notes);
    header = fmt::format(
        "tables from the state store and the source {}:{} (`rowbridge run` is not reachable: "
        "{}):",
        config.source.host, config.source.port, not_running);
  }

  // With --json, stdout holds the array alone; the header and notes go to stderr.
  std::FILE* prose = flags.json ? stderr : stdout;
  std::fprintf(prose, "%s\n", header.c_str());
  for (const std::string& note : notes) std::fprintf(prose, "  %s\n", note.c_str());
  if (flags.json) {
    Json array = Json::array();
    for (const TableRow& row : rows) array.push_back(row.ToJson());
    std::printf("%s\n", array.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
  } else {
    PrintAligned(rows);
  }
  std::fflush(stdout);
}

struct CommandFlags {
  std::string config_file;
  std::string address;
  std::string table;  // db.table
};

void SendTableCommand(server::TableAction action, const CommandFlags& flags) {
  const config::Config config = config::LoadConfigFile(flags.config_file);
  const TableCommandOutcome outcome =
      SubmitTableCommand(config, action, flags.table, flags.address);
  std::FILE* out = outcome.refused ? stderr : stdout;
  std::fprintf(out, "%s\n", outcome.message.c_str());
  std::fflush(out);
  if (outcome.refused) throw CLI::RuntimeError(1);
}

void RegisterTableCommand(CLI::App& app, server::TableAction action, const char* description) {
  auto flags = std::make_shared<CommandFlags>();
  CLI::App* cmd = app.add_subcommand(server::TableActionName(action), description);
  cmd->add_option("-c,--config", flags->config_file, "configuration file (as for `rowbridge run`)")
      ->required();
  cmd->add_option("table", flags->table, "the source table, DATABASE.TABLE")->required();
  cmd->add_option("--address", flags->address,
                  "admin HTTP address of the running `run` (default: http.listen)");
  cmd->callback([flags, action] { SendTableCommand(action, *flags); });
}

}  // namespace

void RegisterTables(CLI::App& app) {
  auto flags = std::make_shared<TablesFlags>();
  CLI::App* cmd = app.add_subcommand(
      "tables",
      "List every matched table with its state (streaming, copying, stopped ...), lag and row "
      "counts: from the running `run` when it answers, else from the checkpoint and the source");
  cmd->add_option("-c,--config", flags->config_file, "configuration file (as for `rowbridge run`)")
      ->required();
  cmd->add_flag("--json", flags->json, "print a JSON array (the header goes to stderr)");
  cmd->add_option("--address", flags->address,
                  "admin HTTP address of the running `run` (default: http.listen)");
  cmd->callback([flags] { ListTables(*flags); });

  RegisterTableCommand(app, server::TableAction::kResume,
                       "Resume a stopped or paused table: asks the running `run` (POST "
                       "/tables/DB.TABLE/resume), or records it for the next `run`");
  RegisterTableCommand(app, server::TableAction::kPause,
                       "Pause a table: asks the running `run` (POST /tables/DB.TABLE/pause), "
                       "or records it for the next `run`");
  RegisterTableCommand(
      app, server::TableAction::kResnapshot,
      "Copy a table again: asks the running `run` (POST /tables/DB.TABLE/resnapshot), or "
      "records it for the next `run`");
  RegisterTableCommand(
      app, server::TableAction::kRepair,
      "Repair a table's target in place: the key ranges where it differs from the source are "
      "written again alongside the stream (as `check --repair` does for every differing table); "
      "asks the running `run` (POST /tables/DB.TABLE/repair), or records it for the next `run`");
}

}  // namespace rowbridge::cli
