#include "cli/recorded_table_command.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "common/error.h"
#include "config/table_matcher.h"
#include "endpoints/connection_options.h"
#include "ha/leader_lock.h"
#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "server/status_time.h"
#include "snapshot/newly_matched.h"
#include "snapshot/repair_request.h"
#include "state/state_store.h"

namespace rowbridge::cli {
namespace {

// A replica the source lists with the job's server_id that is surely no live `run`: one of this
// host whose process is gone (SourceReportHost: "rowbridge/<hostname>/<pid>"), or with `ha` the
// lock's session (the caller holds the lock, so its last holder no longer writes).
bool DeadSession(const config::Config& config, const std::string& report_host) {
  if (config.ha.lock != config::HaLock::kNone)
    return report_host == endpoints::SourceReportHost(config);
  const size_t last = report_host.rfind('/');
  const size_t first = report_host.find('/');
  if (first == std::string::npos || last == first ||
      report_host.substr(0, first) != mysql::kReportHostPrefix) {
    return false;
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return false;
  const std::string reported_host = report_host.substr(first + 1, last - first - 1);
  // The report host may be cut short (60 bytes at most).
  if (reported_host.empty() || !std::string_view(host).starts_with(reported_host)) return false;
  pid_t pid = 0;
  const std::string digits = report_host.substr(last + 1);
  if (std::from_chars(digits.data(), digits.data() + digits.size(), pid).ec != std::errc() ||
      pid <= 0) {
    return false;
  }
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Throws when the source lists a live replica registered with the job's server_id: a `run` whose
// checkpoint saves would overwrite the recorded command. A session the source has not dropped yet
// (it notices a closed connection at its next heartbeat) is waited for, up to StaleSessionGrace.
void RequireNoRunStreaming(const config::Config& config, const std::string& unreachable) {
  auto source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
  const auto deadline =
      std::chrono::steady_clock::now() + endpoints::StaleSessionGrace(config.source);
  for (;;) {
    const mysql::SourceFacts facts = mysql::GatherSourceFacts(*source);
    if (!facts.replicas) {
      Fail(ErrorCode::kInvalidArgument,
           "cannot tell whether a `rowbridge run` of this job is streaming: the source {}:{} did "
           "not list its replicas ({}); no running `run` answered ({}), so the command is not "
           "recorded",
           config.source.host, config.source.port, facts.replica_hosts_error, unreachable);
    }
    const mysql::SourceFacts::Replica* live = nullptr;
    for (const mysql::SourceFacts::Replica& replica : *facts.replicas) {
      if (replica.server_id == config.source.server_id && !DeadSession(config, replica.host)) {
        live = &replica;
      }
    }
    if (live == nullptr) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      Fail(ErrorCode::kInvalidArgument,
           "a replica with this job's server_id {} (host \"{}\") streams from the source {}:{}: a "
           "`rowbridge run` of this job is alive. Its admin HTTP did not answer ({}); reach it "
           "with --address HOST:PORT, or try again once it has stopped",
           live->server_id, live->host, config.source.host, config.source.port, unreachable);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// With `ha`: the job's leader lock, taken unless another process holds it. Released on
// destruction.
class HeldLeaderLock {
 public:
  explicit HeldLeaderLock(const config::Config& config) {
    if (config.ha.lock == config::HaLock::kNone) return;
    lock_ = ha::MakeLeaderLock(config, state::JobName(config));
    std::atomic<bool> give_up{false};
    std::string held_by;
    const bool taken = lock_->Acquire(give_up, [&](const std::string& waiting) {
      // Taken, and only waiting out an earlier leader's lease: worth the wait. Anything else
      // means a leader or a fault; the command is not recorded then.
      if (waiting.find("waiting out the previous leader's lease") != std::string::npos) return;
      held_by = waiting;
      give_up = true;
    });
    if (!taken) {
      lock_.reset();
      Fail(ErrorCode::kInvalidArgument,
           "the job's leader lock is not free ({}): a `rowbridge run` of this job is alive; reach "
           "it with --address HOST:PORT",
           held_by);
    }
  }
  ~HeldLeaderLock() {
    if (lock_) lock_->Release();
  }
  HeldLeaderLock(const HeldLeaderLock&) = delete;
  HeldLeaderLock& operator=(const HeldLeaderLock&) = delete;

 private:
  std::unique_ptr<ha::LeaderLock> lock_;
};

std::string Refusal(server::TableAction action, const config::Config& config,
                    const state::Checkpoint& checkpoint, const std::string& table) {
  switch (action) {
    case server::TableAction::kPause:
      return snapshot::PauseRefusal(checkpoint, table);
    case server::TableAction::kResume:
      return snapshot::ResumeRefusal(checkpoint, table);
    case server::TableAction::kResnapshot:
      return snapshot::ResnapshotRefusal(config, checkpoint, table);
    case server::TableAction::kRepair:
      return snapshot::RepairRefusal(config, checkpoint, table);
  }
  return "unknown action";
}

}  // namespace

std::string RecordTableCommand(const config::Config& config, server::TableAction action,
                               const std::string& table, const std::string& unreachable) {
  const char* name = server::TableActionName(action);
  const size_t dot = table.find('.');
  if (config::TableMatcher(config.tables)
          .Match(table.substr(0, dot), dot == std::string::npos ? "" : table.substr(dot + 1)) ==
      config::TableMatcher::kNoRule) {
    Fail(ErrorCode::kInvalidArgument, "cannot {} {}: no rule of the configuration matches it", name,
         table);
  }
  HeldLeaderLock lock(config);
  RequireNoRunStreaming(config, unreachable);

  std::unique_ptr<state::StateStore> store = state::MakeStateStore(config);
  std::optional<state::Checkpoint> checkpoint = store->Load();
  if (!checkpoint) {
    Fail(ErrorCode::kInvalidArgument,
         "cannot {} {}: no checkpoint in {}; the job never ran, and its first `rowbridge run` "
         "decides what to copy from the rules",
         name, table, store->Describe());
  }
  if (const state::PendingCommand* pending = checkpoint->FindPending(table)) {
    if (action == server::TableAction::kResume && pending->action == "pause") {
      const std::string requested_at = pending->requested_at;
      std::erase_if(checkpoint->pending_commands,
                    [&](const state::PendingCommand& c) { return c.table == table; });
      store->Save(*checkpoint);
      return fmt::format("the pause recorded {} was cancelled in {} (it was not carried out yet)",
                         requested_at, store->Describe());
    }
    Fail(ErrorCode::kInvalidArgument,
         "cannot {} {}: its {} (recorded {}) is pending; the next `rowbridge run` carries it out",
         name, table, pending->action, pending->requested_at);
  }
  // Copies (resume, resnapshot) run one at a time; pauses and repairs need no copy.
  auto is_copy = [](std::string_view a) { return a == "resume" || a == "resnapshot"; };
  if (is_copy(name)) {
    for (const state::PendingCommand& c : checkpoint->pending_commands) {
      if (is_copy(c.action)) {
        Fail(ErrorCode::kInvalidArgument,
             "cannot {} {}: the {} of {} (recorded {}) is pending, and one copy runs at a time; "
             "try again once the next `rowbridge run` has carried it out",
             name, table, c.action, c.table, c.requested_at);
      }
    }
  }
  if (const std::string why = Refusal(action, config, *checkpoint, table); !why.empty()) {
    Fail(ErrorCode::kInvalidArgument, "cannot {} {}: {}", name, table, why);
  }
  const std::string now =
      server::TimestampJson(server::UnixMs(std::chrono::system_clock::now())).get<std::string>();
  checkpoint->pending_commands.push_back({table, name, now});
  store->Save(*checkpoint);
  return fmt::format(
      "recorded in {} (no `rowbridge run` answered: {}); the next `rowbridge run` carries it out "
      "once its stream runs, and `rowbridge tables` shows it pending until then",
      store->Describe(), unreachable);
}

}  // namespace rowbridge::cli
