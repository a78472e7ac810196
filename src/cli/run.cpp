#include "cli/run.h"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <mutex>
#include <thread>

#include "cli/logging.h"
#include "cli/service_notifier.h"
#include "common/error.h"
#include "common/log_fields.h"
#include "common/retry.h"
#include "common/write_fence.h"
#include "config/effective_config.h"
#include "config/loader.h"
#include "ha/leader_lock.h"
#include "mysql/start_position.h"
#include "pipeline/pipeline.h"
#include "server/admin_server.h"
#include "snapshot/newly_matched.h"
#include "snapshot/snapshot_runner.h"
#include "state/state_store.h"

namespace rowbridge::cli {

namespace {

// Before the stream, with snapshot.enabled: on a first start (no checkpoint saved) copies the rows
// the matched tables already have and saves the checkpoint the stream continues from, so the
// stream starts exactly where the copy ended; on a later start finds the matched tables the
// checkpoint does not cover yet (a rule added or widened) and records their copy in the
// checkpoint, which the pipeline then runs alongside the stream (pipeline/copy_alongside.h). An
// interrupted copy resumes on the next start (its progress is in the same state store). Transient
// errors (a server down or overloaded, too many connections, a lock wait, the network) are
// retried with the stream's backoff (source.reconnect), without a bound: each attempt resumes
// where the last one stopped. Returns false when a stop was requested before the first copy
// finished.
bool CopyBeforeStreaming(const config::Config& config, server::MetricsRegistry& registry,
                         server::StatusBoard& status, const std::atomic<bool>& stop) {
  if (!config.snapshot.enabled) return true;
  RetryOptions retry;
  retry.policy.initial = config.source.reconnect.initial_backoff;
  retry.policy.max = config.source.reconnect.max_backoff;
  retry.stop = &stop;
  try {
    return Retry("initial copy", retry, [&] {
      std::unique_ptr<state::StateStore> store = state::MakeStateStore(config);
      if (std::optional<state::Checkpoint> checkpoint = store->Load()) {
        snapshot::PendingTableCopy(config, *store, *checkpoint);
        return true;
      }
      spdlog::info("first start: copying the existing rows of the matched tables before streaming");
      std::optional<state::Checkpoint> end =
          snapshot::CopyBeforeStream(config, registry, status, &stop);
      if (!end) return false;
      store->Save(*end);
      LogFields fields;
      fields.Position(end->file, end->position);
      spdlog::info("initial copy done; streaming changes from {}", end->Describe());
      return true;
    });
  } catch (const Error& e) {
    if (e.IsTransient() && stop) return false;  // stopped while waiting to retry
    throw;
  }
}

struct RunFlags {
  std::string config_file;
  std::string start_at;  // empty: not given
  bool move_checkpoint = false;
  bool keyless_single_chunk = false;  // sets snapshot.keyless_single_chunk
};

// The config, with the flags that override it; logging set up by it, its warnings logged.
config::Config LoadRunConfig(const RunFlags& flags) {
  std::vector<std::string> warnings;
  config::LoadOptions load;
  load.warnings = &warnings;
  config::Config config = config::LoadConfigFile(flags.config_file, load);
  if (flags.keyless_single_chunk) config.snapshot.keyless_single_chunk = true;
  ConfigureLogging(config.log);
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  return config;
}

// SIGINT/SIGTERM are taken by a thread of ours (sigwait, StopSignalThread), never by a handler:
// blocks them in the calling thread, and in the threads it starts from now on.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Waits for SIGINT/SIGTERM (blocked in every thread: taken here, never by a handler) and calls
// `on_signal` with each, until destroyed.
class StopSignalThread {
 public:
  StopSignalThread(const sigset_t& signals, std::function<void(int)> on_signal)
      : signals_(signals), on_signal_(std::move(on_signal)), thread_([this] { Wait(); }) {}
  ~StopSignalThread() {
    done_ = true;
    thread_.join();
  }

 private:
  void Wait() {
    const timespec tick{0, 200 * 1000 * 1000};
    while (!done_) {
      const int sig = sigtimedwait(&signals_, nullptr, &tick);
      if (sig == SIGINT || sig == SIGTERM) on_signal_(sig);
    }
  }

  const sigset_t signals_;
  const std::function<void(int)> on_signal_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

pipeline::PipelineOptions PipelineOptionsOf(const RunFlags& flags, const config::Config& config) {
  pipeline::PipelineOptions pipeline_options;
  if (!flags.start_at.empty()) {
    pipeline_options.start_at = mysql::ParseStartAt(flags.start_at);
    pipeline_options.move_checkpoint = flags.move_checkpoint;
    if (config.ha.lock != config::HaLock::kNone) {
      Fail(ErrorCode::kConfig,
           "--start-at with `ha`: every process of the job would try to choose the start; run "
           "one process without `ha` to save the first checkpoint, then start the job with `ha`");
    }
  } else if (flags.move_checkpoint) {
    Fail(ErrorCode::kInvalidArgument, "--move-checkpoint needs --start-at (where to move it)");
  }
  return pipeline_options;
}

// The admin HTTP server, if the config enables it.
std::unique_ptr<server::AdminServer> StartAdminServer(const config::Config& config,
                                                      server::MetricsRegistry& registry,
                                                      server::StatusBoard& status) {
  std::unique_ptr<server::AdminServer> admin;
  if (config.http.enabled) {
    admin = std::make_unique<server::AdminServer>(registry, status, config.http.health);
    admin->RequireToken(config.http.token);
    admin->Start(config.http.listen);
    spdlog::info("serving the status page (/), /metrics, /status and /healthz on {} (port {}){}",
                 config.http.listen, admin->port(),
                 config.http.token.empty() ? "" : ", token required");
  }
  return admin;
}

// Under `ha`: stands by for the leader lock, replicates while holding it, and stands by again
// after losing it, until a stop request (or an error while the lock is still held).
void ReplicateWhileLeader(const config::Config& config, server::StatusBoard& status,
                          std::atomic<bool>& stop_requested,
                          const std::function<void()>& stop_pipeline,
                          const std::function<void()>& replicate) {
  std::unique_ptr<ha::LeaderLock> lock_owner = ha::MakeLeaderLock(config, state::JobName(config));
  ha::LeaderLock& lock = *lock_owner;
  lock.OnLost([&](const std::string&) { stop_pipeline(); });
  while (!stop_requested) {
    status.SetState(server::PipelineState::kStandby, "waiting for the leader lock");
    if (!lock.Acquire(stop_requested, [&](const std::string& what) {
          status.SetState(server::PipelineState::kStandby, what);
        })) {
      break;
    }
    InstallWriteFence(&lock);
    bool fenced = false;  // stopped by an error while the lock could not be confirmed
    try {
      replicate();
    } catch (const Error& e) {
      InstallWriteFence(nullptr);
      if (e.code() != ErrorCode::kFenced && lock.StillHeld()) throw;
      fenced = true;
      spdlog::warn("leader: {}", e.what());
    }
    InstallWriteFence(nullptr);
    const bool lost = fenced || !lock.held();
    lock.Release();
    if (!lost) break;  // stopped by a signal
    spdlog::warn("leader: stepped down after losing the lock; standing by");
  }
}

void RunCommand(const RunFlags& flags) {
  const config::Config config = LoadRunConfig(flags);
  const pipeline::PipelineOptions pipeline_options = PipelineOptionsOf(flags, config);

  // Before any other thread starts, so every thread inherits the mask.
  const sigset_t signals = BlockStopSignals();

  server::MetricsRegistry registry;
  server::StatusBoard status;
  status.SetConfig(config::EffectiveConfigJson(config));
  // Under systemd (Type=notify): READY once replicating, the state, watchdog pings while alive.
  ServiceNotifier notifier(status, config.http.health);

  std::unique_ptr<server::AdminServer> admin = StartAdminServer(config, registry, status);

  // The pipeline of the current leadership term; a stop (signal, lost lock) goes to it.
  std::mutex pipeline_mutex;
  pipeline::Pipeline* current = nullptr;
  std::atomic<bool> stop_requested{false};
  auto stop_pipeline = [&] {
    std::lock_guard lock(pipeline_mutex);
    if (current != nullptr) current->RequestStop();
  };

  StopSignalThread signal_thread(signals, [&](int sig) {
    spdlog::info("received {}; stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    stop_requested = true;
    notifier.Stopping();
    stop_pipeline();
  });

  spdlog::info("rowbridge {} replicating {}:{} (server_id {}) into ClickHouse {}:{}",
               ROWBRIDGE_VERSION, config.source.host, config.source.port, config.source.server_id,
               config.target.host, config.target.port);
  // One term: the copy (if any) and the stream, until a stop or an error.
  auto replicate = [&] {
    pipeline::Pipeline pipeline(config, registry, status, pipeline_options);
    {
      std::lock_guard lock(pipeline_mutex);
      current = &pipeline;
    }
    if (admin) {
      admin->SetTableCommandHandler([&pipeline](const std::string& database,
                                                const std::string& table,
                                                server::TableAction action) {
        return pipeline.OnTableCommand(database, table, action);
      });
    }
    struct Forget {
      std::mutex& mutex;
      pipeline::Pipeline*& current;
      server::AdminServer* admin;
      ~Forget() {
        if (admin) admin->SetTableCommandHandler(nullptr);
        std::lock_guard lock(mutex);
        current = nullptr;
      }
    } forget{pipeline_mutex, current, admin.get()};
    if (stop_requested) return;
    if (pipeline_options.start_at) {
      spdlog::info("--start-at {}: the stream starts there; existing rows are not copied",
                   pipeline_options.start_at->text);
      pipeline.Run();
    } else if (CopyBeforeStreaming(config, registry, status, stop_requested)) {
      pipeline.Run();
    } else {
      spdlog::info("stopped during the copy; the next start resumes it");
    }
  };

  if (config.ha.lock == config::HaLock::kNone) {
    replicate();
  } else {
    ReplicateWhileLeader(config, status, stop_requested, stop_pipeline, replicate);
  }
  if (admin) admin->Stop();
}

}  // namespace

void RegisterRun(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Replicate the source's binlog into ClickHouse continuously (until SIGTERM/SIGINT)");
  cmd->add_option("-c,--config", flags->config_file, "the configuration file (YAML)")->required();
  cmd->add_option("--start-at", flags->start_at,
                  "first start only: stream from now, earliest, FILE:POS or a GTID set instead "
                  "of copying the existing rows");
  cmd->add_flag("--move-checkpoint", flags->move_checkpoint,
                "with --start-at: replace a saved checkpoint instead of refusing");
  cmd->add_flag("--keyless-single-chunk", flags->keyless_single_chunk,
                "copy tables without a primary or NOT NULL unique key as one chunk, as "
                "snapshot.keyless_single_chunk: true does (see docs/snapshot.md)");
  cmd->callback([flags] { RunCommand(*flags); });
}

}  // namespace rowbridge::cli
