// `rowbridge check -c FILE`: compares every replicated table between source and target
// (check/check_runner.h). Exit status 0 when everything matches, 1 when something
// differs, 2 on any error.
#include "cli/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "check/check_runner.h"
#include "cli/admin_client.h"
#include "cli/logging.h"
#include "common/error.h"
#include "config/loader.h"
#include "config/units.h"
#include "server/status_time.h"

namespace rowbridge::cli {

namespace {

using Json = nlohmann::json;

// The repair of `table` as /status reports it, if one ended at or after `since` (ISO 8601 UTC,
// as /status writes times): {"state": "done"|"failed", "detail": ...}; null while none has.
Json EndedRepair(const Json& status, const std::string& table, const std::string& since) {
  if (!status.is_object() || !status.contains("tables") || !status["tables"].is_array())
    return nullptr;
  for (const Json& t : status["tables"]) {
    if (!t.is_object() || !t.contains("source") || !t.contains("repair")) continue;
    const Json& source = t["source"];
    if (!source.is_object() ||
        source.value("database", "") + "." + source.value("table", "") != table)
      continue;
    const Json& repair = t["repair"];
    if (!repair.is_object() || !repair.contains("ended_at") || !repair["ended_at"].is_string())
      continue;
    if (repair["ended_at"].get<std::string>() >= since) return repair;
  }
  return nullptr;
}

// check --repair: the repair of each differing table, by the running `run` (waited for, then the
// tables are checked again) or recorded for the next one.
check::CheckOutcome RepairDifferences(const config::Config& config,
                                      const check::CheckOptions& options,
                                      const std::vector<std::string>& tables,
                                      const std::string& address, std::chrono::milliseconds wait,
                                      std::FILE* out) {
  const std::string since =
      server::TimestampJson(server::UnixMs(std::chrono::system_clock::now()) - 1000)
          .get<std::string>();
  std::vector<std::string> waiting;
  std::optional<AdminEndpoint> endpoint;
  bool unrepaired = false;
  for (const std::string& table : tables) {
    try {
      const TableCommandOutcome submitted =
          SubmitTableCommand(config, server::TableAction::kRepair, table, address);
      std::fprintf(out, "%s\n", submitted.message.c_str());
      if (submitted.refused || submitted.recorded) {
        unrepaired = true;
      } else {
        waiting.push_back(table);
        endpoint = submitted.endpoint;
      }
    } catch (const Error& e) {
      std::fprintf(out, "repair %s: %s\n", table.c_str(), e.what());
      unrepaired = true;
    }
  }
  std::fflush(out);
  if (waiting.empty()) return check::CheckOutcome::kDifferent;

  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<std::string> repaired;
  while (!waiting.empty()) {
    const HttpAnswer answer = CallAdmin(*endpoint, config.http.token, "GET", "/status");
    if (answer.connected && answer.status == 200) {
      const Json status = Json::parse(answer.body, nullptr, false);
      for (auto it = waiting.begin(); it != waiting.end();) {
        const Json repair = EndedRepair(status, *it, since);
        if (repair.is_null()) {
          ++it;
          continue;
        }
        const std::string state = repair.value("state", "");
        std::fprintf(out, "repair %s: %s: %s\n", it->c_str(), state.c_str(),
                     repair.value("detail", "").c_str());
        if (state == "done") {
          repaired.push_back(*it);
        } else {
          unrepaired = true;
        }
        it = waiting.erase(it);
      }
      std::fflush(out);
    }
    if (waiting.empty()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (const std::string& table : waiting) {
        std::fprintf(out,
                     "repair %s: not finished within --repair-wait; the running `run` goes on "
                     "with it (/status shows it under the table)\n",
                     table.c_str());
      }
      return check::CheckOutcome::kDifferent;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (repaired.empty()) return check::CheckOutcome::kDifferent;
  std::fprintf(out, "check after the repair:\n");
  check::CheckOptions again = options;
  again.only_tables = repaired;
  again.different = nullptr;
  const check::CheckOutcome outcome = check::RunCheck(config, again, out);
  if (outcome == check::CheckOutcome::kEqual && unrepaired) return check::CheckOutcome::kDifferent;
  return outcome;
}

}  // namespace

void RegisterCheck(CLI::App& app) {
  struct Args {
    std::string config;
    std::string give_up_after = "2m";
    bool repair = false;
    std::string repair_wait = "30m";
    std::string address;
    check::CheckOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Compare every replicated table between source and target: row counts, checksums over "
      "primary-key ranges, and the differing keys. Exit status 0: equal, 1: different, 2: error");
  cmd->add_option("-c,--config", args->config, "configuration file (as for `rowbridge run`)")
      ->required();
  cmd->add_option("--chunk-rows", args->options.chunk_rows,
                  "source rows per checksummed primary-key range")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--max-listed", args->options.max_listed, "differing keys listed per table");
  cmd->add_option("--table", args->options.only_tables,
                  "check only this source table (db.table); repeatable");
  cmd->add_option("--give-up-after", args->give_up_after,
                  "how long a transient error (a server down or busy, the network) is retried, "
                  "per table, before it counts as an error (a duration: 30s, 2m; 0 = at once)")
      ->capture_default_str();
  cmd->add_flag("--repair", args->repair,
                "then have the running `run` repair each differing table in place (the key "
                "ranges that differ are written again alongside the stream), wait for it and "
                "check those tables again; without a running `run`, the repairs are recorded "
                "for the next one");
  cmd->add_option("--repair-wait", args->repair_wait,
                  "how long --repair waits for the running `run` to finish the repairs")
      ->capture_default_str();
  cmd->add_option("--address", args->address,
                  "admin HTTP address of the running `run`, for --repair (default: http.listen)");
  cmd->callback([args] {
    check::CheckOutcome outcome;
    try {
      // 0 means at once here; RetryPolicy reads 0 as "no bound".
      args->options.retry.max_elapsed =
          std::max(config::ParseDuration(args->give_up_after), std::chrono::milliseconds(1));
      const config::Config config = config::LoadConfigFile(args->config);
      // Its report goes to stdout; what it logs (retries, warnings) goes to stderr as `run`
      // logs, in the configured format.
      ConfigureLogging(config.log);
      std::vector<std::string> different;
      args->options.different = &different;
      outcome = check::RunCheck(config, args->options, stdout);
      if (args->repair && !different.empty()) {
        std::fflush(stdout);
        const check::CheckOutcome repaired =
            RepairDifferences(config, args->options, different, args->address,
                              config::ParseDuration(args->repair_wait), stdout);
        // An error in another table stays an error.
        if (outcome != check::CheckOutcome::kError) outcome = repaired;
      }
    } catch (const Error& e) {
      std::fprintf(stdout, "check: error: %s\n", e.what());
      outcome = check::CheckOutcome::kError;
    }
    std::fflush(stdout);
    if (outcome != check::CheckOutcome::kEqual) throw CLI::RuntimeError(static_cast<int>(outcome));
  });
}

}  // namespace rowbridge::cli
