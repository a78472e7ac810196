#include "pipeline/pipeline.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "common/retry.h"
#include "common/write_fence.h"
#include "endpoints/connection_options.h"
#include "mysql/source_check.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/binlog_reader.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/retention_monitor.h"
#include "pipeline/table_router.h"
#include "pipeline/writer_pool.h"
#include "schema/schema_history.h"
#include "tables/target_tables.h"

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

struct Pipeline::Metrics {
  explicit Metrics(server::MetricsRegistry& r)
      : batches(r.AddCounter("rowbridge_batches_total",
                             "Batches (INSERT blocks) written to ClickHouse.")
                    .Get()),
        restarts(r.AddCounter("rowbridge_pipeline_restarts_total",
                              "Soft restarts after a transient fault (resuming from the last "
                              "checkpoint).")
                     .Get()),
        lag(r.AddGauge("rowbridge_replication_lag_seconds",
                       "Seconds between now and the source commit time of the oldest row not yet "
                       "in ClickHouse (0 when everything read is written and the source is "
                       "idle, as its heartbeats show).")
                .Get()),
        checkpoint_file(r.AddGauge("rowbridge_checkpoint_file_number",
                                   "Numeric extension of the checkpoint's binlog file "
                                   "(mysql-bin.000042 -> 42).")
                            .Get()),
        checkpoint_position(r.AddGauge("rowbridge_checkpoint_position_bytes",
                                       "Offset of the checkpoint in its binlog file.")
                                .Get()),
        checkpoint_version(r.AddGauge("rowbridge_checkpoint_next_version",
                                      "The version the first row change after the checkpoint "
                                      "gets.")
                               .Get()),
        checkpoint_time(r.AddGauge("rowbridge_checkpoint_saved_timestamp_seconds",
                                   "Unix time the last checkpoint was saved.")
                            .Get()),
        stopped_tables(r.AddGauge("rowbridge_stopped_tables",
                                  "Source tables no longer replicated because of a schema change "
                                  "rowbridge cannot follow (see /status).")
                           .Get()) {}

  server::Counter& batches;
  server::Counter& restarts;
  server::Gauge& lag;
  server::Gauge& checkpoint_file;
  server::Gauge& checkpoint_position;
  server::Gauge& checkpoint_version;
  server::Gauge& checkpoint_time;
  server::Gauge& stopped_tables;
};

Pipeline::Pipeline(config::Config config, server::MetricsRegistry& registry,
                   server::StatusBoard& status, PipelineOptions options)
    : config_(std::move(config)),
      registry_(registry),
      status_(status),
      options_(options),
      metrics_(registry),
      run_metrics_(std::make_unique<Metrics>(registry)),
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

void Pipeline::ShowStopped(const state::StoppedTable& stopped) {
  // The target of a table stopped before it was routed (e.g. listed by the checkpoint) is not
  // known here; the board keeps the one it knew, if any.
  status_.Table(stopped.database, stopped.table, "", "")
      .SetStopped(stopped.reason, stopped.position, std::chrono::system_clock::now());
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
  while (!stop_requested_) {
    session_was_healthy_ = false;
    try {
      RunSession();
      status_.SetState(server::PipelineState::kStopped);
      return;
    } catch (const Error& e) {
      metrics_.errors.WithLabels({ErrorCodeName(e.code())}).Increment();
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
  }
  status_.SetState(server::PipelineState::kStopped);
}

void Pipeline::RunSession() {
  // A process that lost its leader lock (config `ha`) must not even reconnect: its binlog dump
  // would kick the new leader's (same server_id).
  CheckWriteFence();
  ++session_;
  if (session_ > 1) metrics_.source_reconnects.Increment();
  status_.SetState(server::PipelineState::kStarting);
  failure_side_ = Side::kTarget;

  // The checkpoint, and ClickHouse reachable (the state table lives there by default).
  std::optional<state::Checkpoint> checkpoint = store_->Load();
  if (checkpoint && options_.start_at) {
    if (!options_.move_checkpoint) {
      Fail(ErrorCode::kConfig,
           "--start-at {}: {} already holds a checkpoint ({}), and --start-at chooses where a "
           "first start begins; to replace the checkpoint (the changes between the two positions "
           "are then skipped or replayed, and stopped tables start again), add --move-checkpoint",
           options_.start_at->text, store_->Describe(), checkpoint->Describe());
    }
    spdlog::warn("--move-checkpoint: the checkpoint {} in {} is replaced by a first start at {}",
                 checkpoint->Describe(), store_->Describe(), options_.start_at->text);
    checkpoint.reset();
  }
  if (checkpoint) {
    state::RequireVersionRoom(
        checkpoint->next_version, "the checkpoint in " + store_->Describe(),
        "restore the checkpoint from a backup, or start over: delete the job's state so that the "
        "next start copies every table again (docs/running.md, \"Starting over\")");
  }
  // What the store holds, to tell whether this session's starting checkpoint must be saved.
  std::optional<state::Checkpoint> stored = checkpoint;
  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config_.target));
  const std::string insert_prefix = fmt::format("rowbridge-{}-", job_);
  catalog.WaitForInserts(insert_prefix, options_.insert_patience);

  // The source, checked.
  failure_side_ = Side::kSource;
  std::unique_ptr<mysql::Connection> admin =
      mysql::Connection::Connect(endpoints::SourceConnectOptions(config_.source));
  mysql::RequireSourceReady(*admin, config_.source.server_id, endpoints::SourceReportHost(config_),
                            endpoints::StaleSessionGrace(config_.source));
  const bool mariadb = admin->is_mariadb();
  // What a replay from the checkpoint can reach, to tell a target written from another checkpoint.
  std::optional<uint64_t> replay_bytes;
  if (checkpoint) {
    try {
      replay_bytes = mysql::BinlogBytesFrom(*admin, checkpoint->file, checkpoint->position);
    } catch (const Error& e) {
      if (e.IsTransient()) throw;
      spdlog::warn(
          "cannot list the source's binlogs ({}); the checkpoint's next version is not checked "
          "against the target tables",
          e.what());
    }
  }
  failure_side_ = Side::kTarget;

  BatchLimits limits;
  limits.max_rows = config_.batch.max_rows;
  limits.max_bytes = config_.batch.max_bytes;
  limits.max_delay = config_.batch.max_delay;
  limits.max_buffered_bytes = config_.memory.max_buffered_bytes;
  BatchBuffers buffers(limits);
  // The gauge shows this session's buffers, which end with it (an error, a reconnect): while the
  // next session waits to start nothing is buffered, whatever the last reading was.
  struct ZeroWhenBuffersGo {
    server::Gauge& gauge;
    ~ZeroWhenBuffersGo() { gauge.Set(0); }
  } zero_buffered_bytes{metrics_.buffered_bytes};
  std::optional<CheckpointTracker> tracker;

  tables::ResolverOptions resolver_options;
  resolver_options.conversion_counters = std::make_shared<mapping::ConversionCounters>(
      [this](const mapping::ColumnName& c, mapping::RangeRule rule) {
        return metrics_.ClampSink(c.database, c.table, c.column,
                                  std::string(mapping::RangeRuleName(rule)));
      });
  if (checkpoint) resolver_options.created_targets = checkpoint->created_targets;
  if (checkpoint && checkpoint->replicated_tables) {
    resolver_options.replicated_tables = *checkpoint->replicated_tables;
    std::sort(resolver_options.replicated_tables.begin(), resolver_options.replicated_tables.end());
    resolver_options.checkpoint = checkpoint->Describe() + " in " + store_->Describe();
  }
  resolver_options.on_created = [&](const std::string& label) {
    std::lock_guard lock(buffers.mutex());
    if (tracker) tracker->AddCreatedTarget(label);
  };
  tables::TableResolver resolver(config_, catalog, std::move(resolver_options));

  RouterContext rc;
  rc.config = &config_;
  rc.resolver = &resolver;
  rc.targets = &catalog;
  rc.buffers = &buffers;
  rc.stop = &stop_requested_;
  rc.connect_source = [this] {
    return mysql::Connection::Connect(endpoints::SourceConnectOptions(config_.source));
  };
  rc.make_stats = [this](const tables::SourceTableName& name, const tables::TargetTable& target) {
    auto stats = std::make_unique<server::TableStats>(metrics_, status_, name.database, name.table,
                                                      target.database, target.table);
    stats->status.SetStreaming();
    return stats;
  };
  rc.on_stop = [&](const state::StoppedTable& stopped) {
    metrics_.errors.WithLabels({"table_stopped"}).Increment();
    ShowStopped(stopped);
    std::lock_guard lock(buffers.mutex());
    if (tracker) tracker->AddStop(stopped);
  };
  rc.have_checkpoint = checkpoint.has_value();
  rc.resume_version = checkpoint ? checkpoint->next_version : 1;
  if (checkpoint && replay_bytes) {
    const uint64_t bytes = *replay_bytes;
    const uint64_t reach =
        bytes > ~uint64_t{0} / kChangesPerBinlogByte ? ~uint64_t{0} : bytes * kChangesPerBinlogByte;
    rc.replay_version_limit =
        reach > ~uint64_t{0} - rc.resume_version ? ~uint64_t{0} : rc.resume_version + reach;
    rc.replay_binlog_bytes = bytes;
    rc.checkpoint_description = checkpoint->Describe() + " in " + store_->Describe();
  }

  // The schema history: the checkpoint's, else seeded from information_schema at the start.
  std::optional<mysql::BinlogPosition> first_position;
  if (!checkpoint) {
    failure_side_ = Side::kSource;
    first_position = options_.start_at ? mysql::ResolveStartAt(*admin, *options_.start_at)
                                       : mysql::CurrentBinlogPosition(*admin);
    failure_side_ = Side::kTarget;
  }
  schema::CatalogOptions catalog_options;
  catalog_options.flavor = mariadb ? schema::ServerFlavor::kMariadb : schema::ServerFlavor::kMysql;
  {
    failure_side_ = Side::kSource;
    auto rows = admin->QueryRows("SELECT @@lower_case_table_names");
    failure_side_ = Side::kTarget;
    catalog_options.lower_case_table_names =
        !rows.empty() && !rows[0].empty() && rows[0][0] && *rows[0][0] != "0";
  }
  schema::SchemaHistory history(catalog_options);
  if (checkpoint && !checkpoint->schema_history.empty()) {
    history = schema::SchemaHistory::FromJson(checkpoint->schema_history, store_->Describe());
  } else if (checkpoint) {
    spdlog::warn(
        "the checkpoint has no schema history (saved by an older rowbridge); table columns are "
        "read from the source's information_schema as they are now");
  }
  rc.history = &history;
  rc.start = checkpoint ? schema::BinlogPosition{checkpoint->file, checkpoint->position}
                        : schema::BinlogPosition{first_position->file, first_position->position};
  rc.on_history = [&](const schema::SchemaHistory& h) {
    std::string json = h.ToJson();
    std::lock_guard lock(buffers.mutex());
    if (tracker) tracker->AddSchemaHistory(std::move(json));
  };
  rc.on_schema_error = [this] { metrics_.errors.WithLabels({"schema"}).Increment(); };
  if (checkpoint) {
    for (const state::TableStart& t : checkpoint->table_starts) {
      const size_t dot = t.table.find('.');
      if (dot == std::string::npos) continue;
      rc.table_starts[{t.table.substr(0, dot), t.table.substr(dot + 1)}] = {t.file, t.position};
    }
  }
  rc.on_replicated = [&](const std::string& label) {
    std::lock_guard lock(buffers.mutex());
    if (tracker) tracker->AddReplicatedTable(label);
  };
  TableRouter router(rc);
  if (checkpoint) {
    for (const state::StoppedTable& s : checkpoint->stopped_tables) {
      router.AddStopped(s);
      ShowStopped(s);
      spdlog::warn("{}.{} stays stopped since {}: {}", s.database, s.table, s.position, s.reason);
    }
  }
  std::vector<std::string> problems;
  router.Prepare(*admin, problems);
  mapping::ThrowIfProblems(problems);
  resolver.ForgetReplicatedTables();

  // The tables this stream covers: every matched one the source has now. A table the checkpoint
  // did not cover yet was copied before this session (cli/run.cpp) unless copies are off; then
  // only its changes from the checkpoint on are replicated.
  std::vector<std::string> replicated_tables;
  for (const auto& [name, table] : router.tables()) {
    if (table->rule_index == config::TableMatcher::kNoRule) continue;  // stopped, unmatched now
    const std::string label = name.ToString();
    if (checkpoint && checkpoint->replicated_tables && !table->stopped &&
        !std::binary_search(checkpoint->replicated_tables->begin(),
                            checkpoint->replicated_tables->end(), label)) {
      spdlog::warn(
          "{} is matched since the last checkpoint and was not copied{}; its changes are "
          "replicated from {} on",
          label, config_.snapshot.enabled ? "" : " (snapshot.enabled is false)",
          checkpoint->Describe());
    }
    replicated_tables.push_back(label);
  }
  std::sort(replicated_tables.begin(), replicated_tables.end());

  if (!checkpoint) {
    const mysql::BinlogPosition& position = *first_position;
    uint64_t max_version = 0;
    for (tables::TargetTable* t : resolver.targets()) {
      const bool has_version =
          std::any_of(t->columns.begin(), t->columns.end(),
                      [&](const mapping::TargetColumn& c) { return c.name == t->version_column; });
      if (has_version) {
        const uint64_t max = catalog.MaxVersion(t->database, t->table, t->version_column);
        state::RequireVersionRoom(
            max < state::kVersionLimit ? max + 1 : max, "a first start above " + t->label,
            "delete the rows of versions at or above 2^62 from " + t->label + ", or empty it");
        max_version = std::max(max_version, max);
      }
    }
    state::Checkpoint first;
    first.file = position.file;
    first.position = position.position;
    if (mariadb) {
      first.gtid_flavor = state::GtidFlavor::kMariadb;
      first.gtid = position.mariadb_gtids.ToString();
    } else if (!position.mysql_gtids.empty()) {
      first.gtid_flavor = state::GtidFlavor::kMysql;
      first.gtid = position.mysql_gtids.ToString();
    }
    first.next_version = max_version + 1;
    first.schema_history = history.ToJson();
    first.created_targets = router.created_targets();
    std::sort(first.created_targets.begin(), first.created_targets.end());
    first.replicated_tables = replicated_tables;
    store_->Save(first);
    stored = first;
    spdlog::info(
        "first start: no checkpoint in {}; replicating changes from {} {} (rows that "
        "exist already are not copied)",
        store_->Describe(),
        options_.start_at ? "--start-at " + options_.start_at->text + ":"
                          : std::string("the source's current position"),
        first.Describe());
    checkpoint = first;
  }
  admin.reset();
  if (checkpoint->schema_history.empty()) checkpoint->schema_history = history.ToJson();
  checkpoint->created_targets = router.created_targets();
  std::sort(checkpoint->created_targets.begin(), checkpoint->created_targets.end());
  checkpoint->replicated_tables = std::move(replicated_tables);
  if (checkpoint->table_copy) {
    // Left by a copy of newly matched tables that was not finished (snapshot.enabled was turned
    // off meanwhile): those tables are streamed from the checkpoint on instead, and a later copy
    // must not resume it (its rows would sit below changes streamed since).
    spdlog::warn(
        "the copy of {} table(s) matched later was not finished; they are replicated "
        "from {} on without it",
        checkpoint->table_copy->tables.size(), checkpoint->Describe());
    checkpoint->table_copy.reset();
  }
  // The checkpoint this session starts from, with the schema history it reads rows by, is saved
  // before any row is read: a session stopped before its first transaction boundary saves
  // nothing newer, and the next one must not find the store without that history (it would read
  // the columns from information_schema as they are then, possibly after an ALTER).
  if (!stored || !(*checkpoint == *stored)) store_->Save(*checkpoint);
  SetLastCheckpoint(*checkpoint);
  tracker.emplace(*checkpoint);

  ReaderContext reader_context;
  reader_context.config = &config_;
  reader_context.start = *checkpoint;
  reader_context.router = &router;
  reader_context.buffers = &buffers;
  reader_context.tracker = &*tracker;
  reader_context.status = &status_;
  reader_context.metrics = &metrics_;
  BinlogReader reader(reader_context);

  WriterPool writers(config_.target.writers, endpoints::TargetClientOptions(config_.target),
                     buffers, fmt::format("{}{}-{}-", insert_prefix, ::getpid(), session_),
                     run_metrics_->batches);
  writers.Start();

  std::atomic<bool> source_failed{false};
  std::atomic<bool> shutting_down{false};
  std::atomic<bool> reader_done{false};
  std::thread reader_thread([&] {
    struct Done {
      std::atomic<bool>& done;
      ~Done() { done = true; }
    } done{reader_done};
    try {
      reader.Run();
      if (!shutting_down) {
        source_failed = true;
        buffers.Abort(
            Error(ErrorCode::kNetwork, fmt::format("source {}:{} ended the binlog stream",
                                                   config_.source.host, config_.source.port)));
      }
    } catch (const Error& e) {
      if (!shutting_down) {
        source_failed = true;
        buffers.Abort(
            e.WithMessage(fmt::format("reading the binlog of {}:{}: {}", config_.source.host,
                                      config_.source.port, e.what())));
      }
    } catch (...) {
      source_failed = true;
      buffers.Abort(CurrentExceptionAsError(
          fmt::format("binlog reader thread of {}:{}", config_.source.host, config_.source.port)));
    }
  });

  // Ends the session's threads; on an error path nothing more is written.
  auto stop_threads = [&](bool drain) {
    shutting_down = true;
    if (drain) {
      // Let the reader finish the transaction it is in, so nothing beyond the final checkpoint
      // reaches ClickHouse; an idle reader is woken by closing its socket.
      reader.StopAtBoundary();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!reader_done && std::chrono::steady_clock::now() < deadline && !buffers.aborted()) {
        if (!reader.in_transaction()) reader.Interrupt();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    reader.Interrupt();
    if (!drain) buffers.Abort();
    reader_thread.join();
    if (drain) buffers.Close();
    writers.Join();
  };

  state::Checkpoint saved = *checkpoint;
  auto save = [&](const state::Checkpoint& c) {
    if (c == saved) return;
    store_->Save(c);
    saved = c;
    SetLastCheckpoint(c);
  };

  try {
    auto next_checkpoint = std::chrono::steady_clock::now() + options_.checkpoint_interval;
    const auto session_start = std::chrono::steady_clock::now();
    bool running = false;
    std::unique_lock lock(buffers.mutex());
    for (;;) {
      if (buffers.aborted_locked() || stop_requested_) break;
      const auto now = std::chrono::steady_clock::now();
      const SteadyTime due = buffers.SealDue(now);
      if (!running && reader.connected()) {
        running = true;
        lock.unlock();
        status_.SetState(server::PipelineState::kRunning);
        lock.lock();
      }
      {
        // Lag, refreshed on every wake-up (at least every 200 ms): the oldest row still buffered;
        // else the age of what the reader is chewing on; 0 once the source's heartbeats say the
        // reader is at its end and nothing is buffered.
        const auto wall = std::chrono::system_clock::now();
        uint32_t oldest = 0;
        for (const auto& g : buffers.groups()) {
          for (const Batch* b : {g->sealed, g->filling}) {
            if (b != nullptr && b->rows > 0 && (oldest == 0 || b->first_event_time < oldest))
              oldest = b->first_event_time;
          }
        }
        double lag = 0;
        if (oldest != 0) {
          lag = UnixSeconds(wall) - oldest;
        } else if (!reader.caught_up() && reader.last_event_time() != 0 &&
                   now - reader.last_event_received() < std::chrono::seconds(1)) {
          lag = UnixSeconds(wall) - reader.last_event_time();
        }
        run_metrics_->lag.Set(std::max(0.0, lag));
        status_.SetReplicationLag(lag);
        metrics_.buffered_bytes.Set(static_cast<double>(buffers.held_bytes()));
      }
      if (now >= next_checkpoint) {
        const bool moved = tracker->Advance(buffers.LowestUnflushed(reader.next_version()));
        const state::Checkpoint current = tracker->checkpoint();
        lock.unlock();
        if (moved) save(current);
        if (running && now - session_start > std::chrono::seconds(10)) session_was_healthy_ = true;
        lock.lock();
        next_checkpoint = now + options_.checkpoint_interval;
      }
      buffers.changed().wait_until(
          lock, std::min({due, next_checkpoint, now + std::chrono::milliseconds(200)}));
    }
    lock.unlock();
  } catch (const Error& e) {
    stop_threads(false);
    throw;
  }

  if (buffers.aborted()) {
    stop_threads(false);
    std::optional<Error> error = buffers.error();
    failure_side_ = source_failed ? Side::kSource : Side::kTarget;
    if (!error) error = Error(ErrorCode::kInternal, "the pipeline stopped without an error");
    throw *error;
  }

  // A requested stop: write everything read so far, then save the final checkpoint.
  status_.SetState(server::PipelineState::kStopping);
  spdlog::info("stopping: writing the buffered rows and saving the checkpoint");
  stop_threads(true);
  if (std::optional<Error> error = buffers.error()) {
    failure_side_ = Side::kTarget;
    throw *error;
  }
  state::Checkpoint final_checkpoint;
  {
    std::lock_guard lock(buffers.mutex());
    tracker->Advance(buffers.LowestUnflushed(reader.next_version()));
    final_checkpoint = tracker->checkpoint();
  }
  save(final_checkpoint);
  spdlog::info("stopped cleanly at {} (next version {})", final_checkpoint.Describe(),
               final_checkpoint.next_version);
}

}  // namespace rowbridge::pipeline
