#include "pipeline/pipeline.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "common/retry.h"
#include "config/table_matcher.h"
#include "endpoints/connection_options.h"
#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "pipeline/copy_alongside.h"
#include "pipeline/repair_alongside.h"
#include "pipeline/retention_monitor.h"
#include "pipeline/run_metrics.h"
#include "schema/schema_history.h"
#include "server/status_time.h"
#include "snapshot/newly_matched.h"
#include "snapshot/repair_request.h"

namespace rowbridge::pipeline {

namespace {

double UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// The numeric extension of a binlog file name ("mysql-bin.000042" -> 42), 0 if none.
double FileNumber(const std::string& file) {
  const size_t dot = file.rfind('.');
  if (dot == std::string::npos) return 0;
  double n = 0;
  for (size_t i = dot + 1; i < file.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(file[i]))) return 0;
    n = n * 10 + (file[i] - '0');
  }
  return n;
}

}  // namespace

Pipeline::Pipeline(config::Config config, server::MetricsRegistry& registry,
                   server::StatusBoard& status, PipelineOptions options)
    : config_(std::move(config)),
      registry_(registry),
      status_(status),
      options_(options),
      metrics_(registry),
      run_metrics_(std::make_unique<RunMetrics>(registry)),
      store_(state::MakeStateStore(config_)),
      job_(state::JobName(config_)) {}

Pipeline::~Pipeline() = default;

void Pipeline::RequestStop() {
  stop_requested_ = true;
  std::lock_guard lock(stop_mutex_);
  stop_cv_.notify_all();
}

std::optional<state::Checkpoint> Pipeline::last_checkpoint() const {
  std::lock_guard lock(checkpoint_mutex_);
  return last_checkpoint_;
}

void Pipeline::SetLastCheckpoint(const state::Checkpoint& checkpoint) {
  {
    std::lock_guard lock(checkpoint_mutex_);
    last_checkpoint_ = checkpoint;
  }
  run_metrics_->checkpoint_file.Set(FileNumber(checkpoint.file));
  run_metrics_->checkpoint_position.Set(static_cast<double>(checkpoint.position));
  run_metrics_->checkpoint_version.Set(static_cast<double>(checkpoint.next_version));
  run_metrics_->checkpoint_time.Set(UnixSeconds(std::chrono::system_clock::now()));
  run_metrics_->stopped_tables.Set(static_cast<double>(checkpoint.stopped_tables.size()));
  status_.SetSourcePosition({checkpoint.file, checkpoint.position, checkpoint.gtid});
}

server::TableCommandResult Pipeline::OnTableCommand(const std::string& database,
                                                    const std::string& table,
                                                    server::TableAction action) {
  const std::string label = database + "." + table;
  std::optional<state::Checkpoint> checkpoint = last_checkpoint();
  if (!checkpoint || stop_requested_) {
    return {503, "the stream is not running yet (or stopping); try again shortly"};
  }
  if (config::TableMatcher(config_.tables).Match(database, table) ==
      config::TableMatcher::kNoRule) {
    return {404, fmt::format("{}: no rule of the configuration matches it", label)};
  }
  if (action == server::TableAction::kPause) return RequestPause(label, *checkpoint);
  if (action == server::TableAction::kRepair) return RequestRepair(label, *checkpoint);
  return RequestCopy(action, label, *checkpoint);
}

server::TableCommandResult Pipeline::RequestRepair(const std::string& label,
                                                   const state::Checkpoint& checkpoint) {
  if (const std::string why = snapshot::RepairRefusal(config_, checkpoint, label); !why.empty()) {
    return {409, fmt::format("{}: {}", label, why)};
  }
  {
    std::lock_guard lock(requests_mutex_);
    for (const RepairRequest& r : repair_requests_) {
      if (r.table == label) return {409, fmt::format("{}: its repair is being started", label)};
    }
    repair_requests_.push_back(
        {label, server::TimestampJson(server::UnixMs(std::chrono::system_clock::now()))
                    .get<std::string>()});
  }
  spdlog::info("repair of {} asked for: restarting the stream to record it", label);
  restart_requested_ = true;
  return {202, fmt::format("the key ranges where {}'s target differs from the source are written "
                           "again alongside the stream; /status shows the repair under the table",
                           label)};
}

void Pipeline::BeginRequestedRepairs() {
  std::vector<RepairRequest> requests;
  {
    std::lock_guard lock(requests_mutex_);
    requests = repair_requests_;
  }
  if (requests.empty()) return;
  try {
    std::optional<state::Checkpoint> checkpoint = store_->Load();
    if (!checkpoint) Fail(ErrorCode::kInternal, "no checkpoint in {}", store_->Describe());
    std::vector<std::string> tables, times;
    for (const RepairRequest& r : requests) {
      // A command recorded while no `run` ran leaves the checkpoint now, begun or refused.
      std::erase_if(checkpoint->pending_commands,
                    [&](const state::PendingCommand& c) { return c.table == r.table; });
      if (const std::string why = snapshot::RepairRefusal(config_, *checkpoint, r.table);
          !why.empty()) {
        spdlog::error("repair of {} not begun: {}", r.table, why);
        metrics_.errors.WithLabels({"repair"}).Increment();
        continue;
      }
      tables.push_back(r.table);
      times.push_back(r.requested_at);
    }
    if (tables.empty()) {
      store_->Save(*checkpoint);
    } else {
      snapshot::BeginRepairs(config_, *store_, *checkpoint, tables, times);
    }
    SetLastCheckpoint(*checkpoint);
  } catch (const Error& e) {
    // The stream goes on as it was; a recorded command is handed over again by the next session.
    spdlog::error("repair of {} not begun: {}", requests.front().table, e.what());
    metrics_.errors.WithLabels({"repair"}).Increment();
    std::lock_guard lock(requests_mutex_);
    for (const RepairRequest& r : requests) std::erase(submitted_pending_, r.table);
  }
  std::lock_guard lock(requests_mutex_);
  repair_requests_.erase(repair_requests_.begin(),
                         repair_requests_.begin() + static_cast<long>(requests.size()));
}

void Pipeline::WaitForStream(mysql::Connection& source) {
  const mysql::BinlogPosition end = mysql::CurrentBinlogPosition(source);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::max<std::chrono::milliseconds>(std::chrono::seconds(5),
                                                            3 * config_.state.checkpoint_interval);
  while (!stop_requested_ && std::chrono::steady_clock::now() < deadline) {
    const std::optional<state::Checkpoint> checkpoint = last_checkpoint();
    if (checkpoint && (checkpoint->file > end.file ||
                       (checkpoint->file == end.file && checkpoint->position >= end.position))) {
      return;
    }
    std::unique_lock lock(stop_mutex_);
    stop_cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

std::vector<std::string> Pipeline::TakeRepairsDone() {
  std::lock_guard lock(requests_mutex_);
  return std::exchange(repairs_done_, {});
}

server::TableCommandResult Pipeline::RequestPause(const std::string& label,
                                                  const state::Checkpoint& checkpoint) {
  if (const std::string why = snapshot::PauseRefusal(checkpoint, label); !why.empty()) {
    return {409, fmt::format("{}: {}", label, why)};
  }
  {
    std::lock_guard lock(requests_mutex_);
    if (std::find(pauses_.begin(), pauses_.end(), label) == pauses_.end()) pauses_.push_back(label);
    reader_work_pending_ = true;
  }
  return {202, fmt::format("{} pauses at the next transaction boundary the stream reads "
                           "(`rowbridge resume` continues it from there)",
                           label)};
}

std::vector<std::string> Pipeline::SubmitPendingCommands(
    const std::vector<state::PendingCommand>& commands, bool stream_caught_up) {
  std::vector<std::string> refused;
  for (const state::PendingCommand& command : commands) {
    const std::optional<server::TableAction> action = server::ParseTableAction(command.action);
    const bool copy =
        action == server::TableAction::kResnapshot || action == server::TableAction::kResume;
    if (copy && CopyBusy()) {
      copies_waiting_ = true;
      continue;
    }
    if (action == server::TableAction::kResnapshot && !stream_caught_up) {
      const std::optional<state::Checkpoint> checkpoint = last_checkpoint();
      if (checkpoint && !snapshot::StreamCovers(*checkpoint, command.table)) {
        copies_waiting_ = true;
        continue;
      }
    }
    {
      std::lock_guard lock(requests_mutex_);
      if (std::find(submitted_pending_.begin(), submitted_pending_.end(), command.table) !=
          submitted_pending_.end()) {
        continue;
      }
      submitted_pending_.push_back(command.table);
    }
    const size_t dot = command.table.find('.');
    server::TableCommandResult result{409, "not a table command"};
    if (action && dot != std::string::npos) {
      result = OnTableCommand(command.table.substr(0, dot), command.table.substr(dot + 1), *action);
    }
    if (result.http_status == 202) {
      spdlog::info("{} of {} (recorded {}): {}", command.action, command.table,
                   command.requested_at, result.message);
      continue;
    }
    if (copy && CopyBusy()) {
      // Another copy began in between: this one waits for it, as above.
      ForgetSubmitted(command.table);
      copies_waiting_ = true;
      continue;
    }
    spdlog::error("{} of {} (recorded {}) refused: {}", command.action, command.table,
                  command.requested_at, result.message);
    metrics_.errors.WithLabels({command.action}).Increment();
    refused.push_back(command.table);
  }
  return refused;
}

bool Pipeline::CopyBusy() {
  if (copier_ && copier_->running()) return true;
  {
    std::lock_guard lock(requests_mutex_);
    if (copy_request_) return true;
  }
  const std::optional<state::Checkpoint> checkpoint = last_checkpoint();
  return checkpoint && checkpoint->table_copy;
}

bool Pipeline::TakeWaitingCopiesReady() {
  if (!copies_waiting_.load() || CopyBusy()) return false;
  return copies_waiting_.exchange(false);
}

void Pipeline::ForgetSubmitted(const std::string& table) {
  std::lock_guard lock(requests_mutex_);
  std::erase(submitted_pending_, table);
}

Pipeline::ReaderWork Pipeline::TakeReaderWork() {
  std::lock_guard lock(requests_mutex_);
  reader_work_pending_ = false;
  ReaderWork work;
  work.pauses = std::exchange(pauses_, {});
  work.abandoned.swap(abandoned_);
  return work;
}

void Pipeline::AbandonCopy(const state::TableCopy& copy, const Error& error) {
  metrics_.errors.WithLabels({"copy"}).Increment();
  std::lock_guard lock(requests_mutex_);
  if (copy.kind() == state::TableCopy::Kind::kMatchedLater &&
      !CopiedAgainFresh(copy, error.code())) {
    // Tables matched later: the stream must not pick them up without their rows (a new session
    // would), so they stay held back for this process; its next start copies them again.
    abandoned_tables_.insert(abandoned_tables_.end(), copy.tables.begin(), copy.tables.end());
  }
  abandoned_ = AbandonedCopy{copy, error.what(), error.code()};
  reader_work_pending_ = true;
}

std::vector<std::string> Pipeline::AbandonedTables() {
  std::lock_guard lock(requests_mutex_);
  return abandoned_tables_;
}

server::TableCommandResult Pipeline::RequestCopy(server::TableAction action,
                                                 const std::string& label,
                                                 const state::Checkpoint& checkpoint) {
  const bool resume = action == server::TableAction::kResume;
  if (copier_ && copier_->running()) {
    return {409,
            fmt::format("{}: another copy runs alongside the stream; try again once it is done",
                        label)};
  }
  const std::string why = resume ? snapshot::ResumeRefusal(checkpoint, label)
                                 : snapshot::ResnapshotRefusal(config_, checkpoint, label);
  if (!why.empty()) return {409, fmt::format("{}: {}", label, why)};
  {
    std::lock_guard lock(requests_mutex_);
    if (copy_request_) {
      return {409,
              fmt::format("the {} of {} is being started; try again shortly",
                          server::TableActionName(copy_request_->action), copy_request_->table)};
    }
    copy_request_ = CopyRequest{action, label};
  }
  spdlog::info("{} of {} asked for: restarting the stream to record it",
               server::TableActionName(action), label);
  restart_requested_ = true;
  if (resume) {
    return {202, fmt::format("{} continues from where it stopped: its changes since are applied "
                             "alongside the stream, which then takes it over",
                             label)};
  }
  return {202, fmt::format("{} is copied again alongside the stream; `rowbridge tables` shows the "
                           "copy's progress",
                           label)};
}

bool Pipeline::CopiedAgainFresh(const state::TableCopy& copy, ErrorCode code) const {
  if (copy.kind() != state::TableCopy::Kind::kMatchedLater || code != ErrorCode::kSourceChanged) {
    return false;
  }
  return std::all_of(copy.tables.begin(), copy.tables.end(), [&](const std::string& table) {
    return snapshot::FreshCopyRefusal(config_, table).empty();
  });
}

void Pipeline::BeginMatchedLaterAgain() {
  std::optional<state::TableCopy> raced;
  {
    std::lock_guard lock(requests_mutex_);
    raced = std::exchange(matched_later_again_, std::nullopt);
  }
  if (!raced) return;
  try {
    std::optional<state::Checkpoint> checkpoint = store_->Load();
    if (!checkpoint) Fail(ErrorCode::kInternal, "no checkpoint in {}", store_->Describe());
    if (!checkpoint->table_copy || !(*checkpoint->table_copy == *raced)) return;
    snapshot::BeginMatchedLaterAgain(config_, *store_, *checkpoint);
    SetLastCheckpoint(*checkpoint);
  } catch (const Error& e) {
    // The checkpoint still holds the raced copy: the next session resumes it, which meets the
    // change again and asks for this again.
    spdlog::error("the copy of {} was not begun again: {}", fmt::join(raced->tables, ", "),
                  e.what());
    metrics_.errors.WithLabels({"copy"}).Increment();
  }
}

void Pipeline::BeginRequestedCopy() {
  // The request stays pending until the copy is in the last checkpoint (or refused): a second
  // command in between must be told a copy is being started, not start one more.
  std::optional<CopyRequest> request;
  bool submitted = false;
  {
    std::lock_guard lock(requests_mutex_);
    request = copy_request_;
    if (request) {
      submitted = std::find(submitted_pending_.begin(), submitted_pending_.end(), request->table) !=
                  submitted_pending_.end();
    }
  }
  if (!request) return;
  const char* what = server::TableActionName(request->action);
  std::optional<state::Checkpoint> checkpoint;
  bool was_pending = false;
  try {
    checkpoint = store_->Load();
    if (!checkpoint) Fail(ErrorCode::kInternal, "no checkpoint in {}", store_->Describe());
    // A command recorded while no `run` ran leaves the checkpoint with the copy it begins.
    was_pending = std::erase_if(checkpoint->pending_commands, [&](const state::PendingCommand& c) {
                    return c.table == request->table;
                  }) > 0;
    if (submitted && !was_pending) {
      // Withdrawn after it was handed over: the stream met its table's RENAME (the copy was
      // recorded again under the new name) or DROP. Begun anyway, it copied a table the source
      // no longer has under that name, failed, and was begun again.
      spdlog::info("{} of {} not begun: the stream withdrew it (the table was renamed or dropped)",
                   what, request->table);
      ForgetSubmitted(request->table);
      std::lock_guard lock(requests_mutex_);
      copy_request_.reset();
      return;
    }
    if (request->action == server::TableAction::kResume) {
      snapshot::BeginResume(config_, *store_, *checkpoint, request->table);
    } else {
      snapshot::BeginResnapshot(config_, *store_, *checkpoint, request->table);
    }
    SetLastCheckpoint(*checkpoint);
    // Carried out: a command recorded for the table later is a new one.
    if (was_pending) ForgetSubmitted(request->table);
  } catch (const Error& e) {
    // The stream goes on as it was; the operator sees why and may ask again.
    spdlog::error("{} of {} not begun: {}", what, request->table, e.what());
    metrics_.errors.WithLabels({what}).Increment();
    if (was_pending) {
      if (e.code() == ErrorCode::kInvalidArgument) {
        // Refused for good: the recorded command is done with.
        try {
          store_->Save(*checkpoint);
          SetLastCheckpoint(*checkpoint);
        } catch (const Error& save_error) {
          spdlog::warn("the refused {} of {} stays recorded in {}: {}", what, request->table,
                       store_->Describe(), save_error.what());
        }
      } else {
        // A fault: the next session hands the recorded command over again.
        std::lock_guard lock(requests_mutex_);
        std::erase(submitted_pending_, request->table);
      }
    }
  }
  std::lock_guard lock(requests_mutex_);
  copy_request_.reset();
}

void Pipeline::RecopyAfterPurge() {
  std::optional<state::Checkpoint> checkpoint = store_->Load();
  if (!checkpoint) Fail(ErrorCode::kInternal, "no checkpoint in {}", store_->Describe());
  auto source = mysql::Connection::Connect(endpoints::SourceConnectOptions(config_.source));
  const mysql::BinlogPosition now = mysql::CurrentBinlogPosition(*source);
  schema::CatalogOptions options;
  options.flavor =
      source->is_mariadb() ? schema::ServerFlavor::kMariadb : schema::ServerFlavor::kMysql;
  options.lower_case_table_names = mysql::LowerCaseTableNames(*source);
  // Empty: table columns are read from the source as they are at `now`, as at a first start.
  snapshot::BeginRecopy(config_, *store_, *checkpoint, now,
                        schema::SchemaHistory(options).ToJson());
  SetLastCheckpoint(*checkpoint);
  metrics_.errors.WithLabels({"binlog_purged"}).Increment();
}

void Pipeline::ShowStopped(const state::StoppedTable& stopped) {
  // The target of a table stopped before it was routed (e.g. listed by the checkpoint) is not
  // known here; the board keeps the one it knew, if any.
  server::TableStatus& table = status_.Table(stopped.database, stopped.table, "", "");
  if (stopped.paused) {
    table.SetPaused(std::chrono::system_clock::now());
    return;
  }
  table.SetStopped(stopped.reason, stopped.position, std::chrono::system_clock::now());
  metrics_.table_stopped.WithLabels({stopped.database, stopped.table}).Set(1);
}

std::string Pipeline::WaitingFor(const Error& error, Side side) const {
  if (side == Side::kSource) {
    return fmt::format("reconnecting to source {}:{}: {}", config_.source.host, config_.source.port,
                       error.what());
  }
  return fmt::format("reconnecting to ClickHouse {}:{}: {}", config_.target.host,
                     config_.target.port, error.what());
}

void Pipeline::StartAlongside() {
  copier_ = std::make_unique<CopyAlongside>(
      config_, registry_, status_, desk_,
      [this](const state::TableCopy& copy, const Error& error) { AbandonCopy(copy, error); });
  repairer_ = std::make_unique<RepairAlongside>(
      config_, status_, metrics_, [this](mysql::Connection& source) { WaitForStream(source); },
      [this](const std::string& table) {
        std::lock_guard lock(requests_mutex_);
        repairs_done_.push_back(table);
        repairs_done_pending_ = true;
      });
}

void Pipeline::WaitBeforeRetry(const Error& e, Backoff& backoff, const RetryPolicy& policy) {
  if (session_was_healthy_) backoff.Reset();
  const std::chrono::milliseconds wait = backoff.NextWait().value_or(policy.max);
  const int attempt = backoff.failures();
  run_metrics_->restarts.Increment();
  const std::string what = WaitingFor(e, failure_side_);
  spdlog::warn("{}; a transient error: retrying in {} ms (attempt {})", what, wait.count(),
               attempt);
  status_.SetWaiting(what, attempt, std::chrono::system_clock::now() + wait);
  std::unique_lock lock(stop_mutex_);
  stop_cv_.wait_for(lock, wait, [&] { return stop_requested_.load(); });
}

void Pipeline::Run() {
  const auto& reconnect = config_.source.reconnect;
  RetryPolicy policy;
  policy.initial = reconnect.initial_backoff;
  policy.max = reconnect.max_backoff;
  Backoff backoff(policy);  // no bound: the stream retries until a stop or a permanent error
  // Measures across sessions (and while a failed one waits to be retried), on its own connection.
  RetentionMonitor retention(config_, metrics_, [this]() -> std::optional<std::string> {
    std::optional<state::Checkpoint> checkpoint = last_checkpoint();
    if (!checkpoint) return std::nullopt;
    return checkpoint->file;
  });
  retention.Start();
  StartAlongside();
  // The copy and the repairs stop with the stream, whatever ends it.
  struct StopCopier {
    CopyAlongside& copier;
    RepairAlongside& repairer;
    ~StopCopier() {
      copier.Stop();
      repairer.Stop();
    }
  } stop_copier{*copier_, *repairer_};
  while (!stop_requested_) {
    session_was_healthy_ = false;
    try {
      RunSession();
      if (restart_requested_.exchange(false) && !stop_requested_) {
        BeginRequestedCopy();
        BeginRequestedRepairs();
        BeginMatchedLaterAgain();
        continue;
      }
      status_.SetState(server::PipelineState::kStopped);
      return;
    } catch (const Error& e) {
      metrics_.errors.WithLabels({ErrorCodeName(e.code())}).Increment();
      if (start_gone_.exchange(false) &&
          config_.source.on_purged_position == config::OnPurged::kRecopy && !stop_requested_) {
        try {
          RecopyAfterPurge();
          continue;
        } catch (const Error& recopy) {
          const std::string what =
              fmt::format("{}; on_purged_position: recopy failed: {}", e.what(), recopy.what());
          status_.SetState(server::PipelineState::kFailed, what);
          spdlog::error("replication stopped: {}", what);
          throw Error(recopy.code(), what);
        }
      }
      if (!e.IsTransient()) {
        status_.SetState(server::PipelineState::kFailed, e.what());
        spdlog::error("replication stopped: {}", e.what());
        throw;
      }
      if (stop_requested_) {
        spdlog::warn("stopping after an error; the last checkpoint stays where it was: {}",
                     e.what());
        status_.SetState(server::PipelineState::kStopped, e.what());
        return;
      }
      WaitBeforeRetry(e, backoff, policy);
    }
  }
  status_.SetState(server::PipelineState::kStopped);
}

}  // namespace rowbridge::pipeline
