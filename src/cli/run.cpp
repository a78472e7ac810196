#include "cli/run.h"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <ctime>
#include <thread>

#include "cli/logging.h"
#include "config/effective_config.h"
#include "config/loader.h"
#include "pipeline/pipeline.h"
#include "server/admin_server.h"

namespace rowbridge::cli {

namespace {

void RunCommand(const std::string& config_file) {
  std::vector<std::string> warnings;
  config::LoadOptions load;
  load.warnings = &warnings;
  config::Config config = config::LoadConfigFile(config_file, load);
  ConfigureLogging(config.log);
  for (const std::string& w : warnings) spdlog::warn("{}", w);

  // SIGINT/SIGTERM are taken by a thread of ours (sigwait), never by a handler: blocked here,
  // before any other thread starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  server::MetricsRegistry registry;
  server::StatusBoard status;
  status.SetConfig(config::EffectiveConfigJson(config));
  pipeline::Pipeline pipeline(config, registry, status);

  std::unique_ptr<server::AdminServer> admin;
  if (config.http.enabled) {
    admin = std::make_unique<server::AdminServer>(registry, status, config.http.health);
    admin->Start(config.http.listen);
    spdlog::info("serving /metrics, /status and /healthz on {} (port {})", config.http.listen,
                 admin->port());
  }

  std::atomic<bool> done{false};
  std::thread signal_thread([&] {
    const timespec tick{0, 200 * 1000 * 1000};
    while (!done) {
      const int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig == SIGINT || sig == SIGTERM) {
        spdlog::info("received {}; stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
        pipeline.RequestStop();
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

  spdlog::info("rowbridge {} replicating {}:{} (server_id {}) into ClickHouse {}:{}",
               ROWBRIDGE_VERSION, config.source.host, config.source.port, config.source.server_id,
               config.target.host, config.target.port);
  pipeline.Run();
  if (admin) admin->Stop();
}

}  // namespace

void RegisterRun(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Replicate the source's binlog into ClickHouse continuously (until SIGTERM/SIGINT)");
  cmd->add_option("-c,--config", *file, "the configuration file (YAML)")->required();
  cmd->callback([file] { RunCommand(*file); });
}

}  // namespace rowbridge::cli
