#include "cli/snapshot.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <thread>

#include "cli/logging.h"
#include "common/retry.h"
#include "config/effective_config.h"
#include "config/loader.h"
#include "server/admin_server.h"
#include "snapshot/snapshot_runner.h"

namespace rowbridge::cli {

namespace {

struct SnapshotFlags {
  std::string config_file;
  bool keyless_single_chunk = false;
  std::string progress = "auto";  // auto | bar | lines
  uint64_t chunk_rows = 0;        // 0 = the config's
};

// What a finished copy left: the target equal to the source as of its end, or not quite (targets
// that held rows before it). Nothing for a stopped copy, which said so.
void LogResult(const snapshot::SnapshotResult& result) {
  if (!result.end.empty() && result.unreconciled_targets.empty()) {
    spdlog::info(
        "snapshot complete: the target equals the source as of {}; a stream continuing "
        "from there starts at version {}",
        result.end.ToString(), result.next_version);
  } else if (!result.end.empty()) {
    spdlog::warn(
        "snapshot complete as of {}: every source row is in the target, but {} held rows before "
        "the copy, and those the source no longer has could not be found and may remain (see the "
        "warnings above); a stream continuing from there starts at version {}",
        result.end.ToString(), fmt::join(result.unreconciled_targets, ", "), result.next_version);
  }
}

void SnapshotCommand(const SnapshotFlags& flags) {
  std::vector<std::string> warnings;
  config::LoadOptions load;
  load.warnings = &warnings;
  config::Config config = config::LoadConfigFile(flags.config_file, load);
  ConfigureLogging(config.log);
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  if (flags.chunk_rows > 0) config.snapshot.chunk_rows = flags.chunk_rows;

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  server::MetricsRegistry registry;
  server::StatusBoard status;
  status.SetConfig(config::EffectiveConfigJson(config));
  snapshot::SnapshotOptions options;
  options.keyless_single_chunk = flags.keyless_single_chunk;
  options.progress_bar =
      flags.progress == "bar" || (flags.progress == "auto" && ::isatty(STDERR_FILENO) != 0);
  if (!options.progress_bar) options.progress_interval = std::chrono::seconds(10);
  snapshot::SnapshotRunner runner(config, options, registry, status);

  std::unique_ptr<server::AdminServer> admin;
  if (config.http.enabled) {
    admin = std::make_unique<server::AdminServer>(registry, status, config.http.health);
    admin->Start(config.http.listen);
    spdlog::info("serving the status page (/), /metrics, /status and /healthz on {} (port {})",
                 config.http.listen, admin->port());
  }
  std::atomic<bool> done{false};
  std::atomic<bool> stop_requested{false};
  std::thread signal_thread([&] {
    const timespec tick{0, 200 * 1000 * 1000};
    while (!done) {
      const int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig == SIGINT || sig == SIGTERM) {
        spdlog::info("received {}; stopping after the chunks in flight",
                     sig == SIGINT ? "SIGINT" : "SIGTERM");
        stop_requested = true;
        runner.RequestStop();
      }
    }
  });
  struct JoinSignalThread {
    std::atomic<bool>& done;
    std::thread& thread;
    ~JoinSignalThread() {
      done = true;
      thread.join();
    }
  } join{done, signal_thread};

  spdlog::info(
      "rowbridge {} copying {}:{} into ClickHouse {}:{} ({} readers, {} writers, chunks "
      "of {} rows)",
      ROWBRIDGE_VERSION, config.source.host, config.source.port, config.target.host,
      config.target.port, config.snapshot.readers, config.snapshot.writers,
      config.snapshot.chunk_rows);
  // A transient error (a server down or overloaded, too many connections, a lock wait) is retried
  // with the stream's backoff; each attempt resumes where the last one stopped.
  RetryOptions retry;
  retry.policy.initial = config.source.reconnect.initial_backoff;
  retry.policy.max = config.source.reconnect.max_backoff;
  retry.stop = &stop_requested;
  snapshot::SnapshotResult result;
  try {
    result = Retry("snapshot", retry, [&] { return runner.Run(); });
  } catch (const Error& e) {
    if (!e.IsTransient() || !stop_requested) throw;
    spdlog::info("snapshot: stopped while waiting to retry ({}); run again to resume", e.what());
  }
  LogResult(result);
  if (admin) admin->Stop();
}

}  // namespace

void RegisterSnapshot(CLI::App& app) {
  auto flags = std::make_shared<SnapshotFlags>();
  CLI::App* cmd = app.add_subcommand(
      "snapshot", "Copy the existing rows of every matched table into ClickHouse once (resumable)");
  cmd->add_option("-c,--config", flags->config_file, "the configuration file (YAML)")->required();
  cmd->add_flag("--keyless-single-chunk", flags->keyless_single_chunk,
                "copy tables without a primary or NOT NULL unique key as one chunk "
                "(see docs/snapshot.md)");
  cmd->add_option("--progress", flags->progress, "auto (bar on a terminal), bar, or lines")
      ->check(CLI::IsMember({"auto", "bar", "lines"}));
  cmd->add_option("--chunk-rows", flags->chunk_rows,
                  "rows per chunk (overrides snapshot.chunk_rows)");
  cmd->callback([flags] { SnapshotCommand(*flags); });
}

}  // namespace rowbridge::cli
