// The pipeline's status as /status shows it and /healthz judges it.
//
// The pipeline reports into a StatusBoard: its state ("running", "waiting: reconnecting to source
// 127.0.0.1:3306 (attempt 3, next in 4s)", "stopped"), the source position, source activity
// (events, heartbeats), the replication lag and, per replicated table, its TableStatus (state,
// rows, lag, last flush and error). Frequent updates are atomic stores: per-table handles are
// looked up once and kept, and row counts are added per flushed batch, not per row. State changes
// and errors take a lock.
//
// Times are wall-clock (system_clock), read through an injectable clock so tests can move it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "server/table_status.h"

namespace rowbridge::server {

using Clock = std::function<TimePoint()>;

enum class PipelineState {
  kStandby,   // another process of the job holds the leader lock (config `ha`); waiting for it
  kStarting,  // connecting, checking the source and target, creating tables
  kSnapshot,  // copying existing rows
  kRunning,   // streaming changes
  kWaiting,   // a transient fault; retrying (SetWaiting says what and when)
  kStopping,  // shutting down cleanly
  kStopped,   // shut down
  kFailed,    // gave up on an error that needs a human (detail says which)
};

const char* PipelineStateName(PipelineState state);

struct SourcePosition {
  std::string file;       // binlog file name
  uint64_t position = 0;  // offset in `file`
  std::string gtid_set;   // executed GTID set, empty if GTIDs are off
};

// What the history (StatusHistory) records of the board at one moment.
struct StatusSample {
  struct Table {
    std::string database, table;
    uint64_t rows_written = 0;                     // copied and streamed, since the start
    std::optional<std::chrono::milliseconds> lag;  // at its last flush
  };
  TimePoint at;
  std::optional<double> lag_seconds;  // the replication lag; nullopt before the stream reports one
  std::vector<Table> tables;          // in the order the board first saw them
};

struct Health {
  bool healthy = false;
  std::string reason;  // "running" when healthy, else why not
};

class StatusBoard {
 public:
  explicit StatusBoard(Clock clock = [] { return std::chrono::system_clock::now(); });

  void SetState(PipelineState state, std::string detail = "");
  // kWaiting with a detail rendered at read time, so "next in" counts down:
  // "<what> (attempt N, next in Ts)".
  void SetWaiting(std::string what, int attempt, TimePoint next_attempt);

  // Source activity: any of these proves the source connection is alive.
  void RecordSourceEvent(TimePoint event_time);  // event_time: the event's commit time
  void RecordHeartbeat();
  void SetSourcePosition(SourcePosition position);
  // Progress that involves no source event, e.g. a snapshot chunk copied.
  void RecordProgress();
  // The stream's lag: seconds between now and the commit time of the oldest change not yet in
  // ClickHouse (rowbridge_replication_lag_seconds).
  void SetReplicationLag(double seconds);

  // The status of one source table, created on first call; the reference stays valid. Empty
  // target names: not known here (filled in by a later call that knows them).
  TableStatus& Table(const std::string& source_database, const std::string& source_table,
                     const std::string& target_database, const std::string& target_table);

  // Shown under "config" in /status (pass config::EffectiveConfigJson, which hides secrets).
  void SetConfig(nlohmann::ordered_json config);

  // /healthz: healthy while starting, copying or running AND no table is stopped AND the source
  // (or the snapshot) showed life within policy.max_silence AND (if policy.max_lag is set) no
  // table's lag exceeds it, neither at its last flush nor as the age of its oldest change not yet
  // flushed (TableStatus::unflushed_since: a writer stuck on the table); paused tables are not
  // judged on lag (an operator paused them). A stopped table names
  // itself in the reason: the other tables still replicate, but this one needs a person
  // (docs/running.md, "Stopped tables").
  Health CheckHealth(const config::HealthConfig& policy) const;

  // Whether the process shows life, for a watchdog that restarts a wedged process (the systemd
  // service's WatchdogSec). Narrower than CheckHealth, because a restart must cure what it
  // judges: starting, copying and running are alive while the source (or the copy) showed life
  // within policy.max_silence, as for /healthz; lag is not judged (a lagging pipeline works, and
  // a restart would only add to the lag); waiting is alive while its retries keep their schedule
  // (the next attempt is at most policy.max_silence overdue), since a restart cannot bring a
  // server back; standby and stopping are alive; stopped and failed are not.
  Health CheckLiveness(const config::HealthConfig& policy) const;

  PipelineState state() const;
  // The state and its detail as one line, like /status's "status" but without the waiting
  // countdown ("waiting: reconnecting to source db1:3306: ... (attempt 3)"), so that the line
  // changes only when the state does: for a service manager's status text.
  std::string StateLine() const;

  nlohmann::ordered_json ToJson(const config::HealthConfig& policy) const;

  StatusSample Sample() const;

  // How many tables are in each state, for every TableState in its order (zeros included).
  std::vector<std::pair<std::string, size_t>> CountTablesByState() const;

  TimePoint Now() const { return clock_(); }

 private:
  std::string StateText(TimePoint now) const;  // requires mutex_
  // Why the pipeline counts as silent at `now` (no event, heartbeat or progress within
  // policy.max_silence), or empty. Requires mutex_.
  std::string SilenceProblem(const config::HealthConfig& policy, TimePoint now) const;

  Clock clock_;
  const TimePoint started_at_;
  std::atomic<int64_t> last_event_ms_{0};       // when the last event was received (unix ms)
  std::atomic<int64_t> last_event_time_ms_{0};  // that event's commit time on the source
  std::atomic<int64_t> last_heartbeat_ms_{0};
  std::atomic<int64_t> last_progress_ms_{0};
  std::atomic<uint64_t> events_{0};
  std::atomic<uint64_t> heartbeats_{0};
  std::atomic<double> replication_lag_{-1};  // -1 = not reported yet

  mutable std::mutex mutex_;
  PipelineState state_ = PipelineState::kStarting;
  std::string detail_;
  int64_t state_since_ms_;
  int waiting_attempt_ = 0;
  TimePoint waiting_next_{};
  SourcePosition position_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<TableStatus>> tables_;
  std::vector<TableStatus*> tables_in_order_;  // as first seen: the history's stable order
  nlohmann::ordered_json config_;
};

}  // namespace rowbridge::server
