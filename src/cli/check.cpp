// `rowbridge check -c FILE`: compares every replicated table between source and target
// (check/check_runner.h). Exit status 0 when everything matches, 1 when something
// differs, 2 on any error.
#include "cli/check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "check/check_runner.h"
#include "cli/logging.h"
#include "common/error.h"
#include "config/loader.h"
#include "config/units.h"

namespace rowbridge::cli {

void RegisterCheck(CLI::App& app) {
  struct Args {
    std::string config;
    std::string give_up_after = "2m";
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
      outcome = check::RunCheck(config, args->options, stdout);
    } catch (const Error& e) {
      std::fprintf(stdout, "check: error: %s\n", e.what());
      outcome = check::CheckOutcome::kError;
    }
    std::fflush(stdout);
    if (outcome != check::CheckOutcome::kEqual) throw CLI::RuntimeError(static_cast<int>(outcome));
  });
}

}  // namespace rowbridge::cli
