// The pipeline's status as /status shows it and /healthz judges it.
//
// The pipeline reports into a StatusBoard: its state ("running", "waiting: reconnecting to source
// 127.0.0.1:3306 (attempt 3, next in 4s)", "stopped"), the source position, source activity
// (events, heartbeats) and, per replicated table, rows by change type, lag and the last flush and
// error. Frequent updates are atomic stores: per-table handles are looked up once and kept, and
// row counts are added per flushed batch, not per row. State changes and errors take a lock.
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

#include "config/config.h"

namespace rowbridge::server {

using TimePoint = std::chrono::system_clock::time_point;
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

// One replicated source table. Thread-safe.
class TableStatus {
 public:
  TableStatus(std::string source_database, std::string source_table, std::string target_database,
              std::string target_table);

  // Rows written to the target, by change type.
  void AddRows(uint64_t inserted, uint64_t updated, uint64_t deleted);
  // A batch reached ClickHouse at `flushed_at`; its newest row was committed on the source at
  // `newest_event_time`. The table's lag is the difference.
  void RecordFlush(TimePoint flushed_at, TimePoint newest_event_time);
  void RecordError(const std::string& message, TimePoint at);

  const std::string& source_database() const { return source_database_; }
  const std::string& source_table() const { return source_table_; }
  // Lag at the last flush; nullopt before the first flush.
  std::optional<std::chrono::milliseconds> lag() const;

  nlohmann::ordered_json ToJson() const;

 private:
  const std::string source_database_, source_table_, target_database_, target_table_;
  std::atomic<uint64_t> inserted_{0}, updated_{0}, deleted_{0};
  std::atomic<int64_t> last_flush_ms_{0};  // unix ms; 0 = never
  std::atomic<int64_t> lag_ms_{-1};        // -1 = never flushed
  mutable std::mutex error_mutex_;
  std::string last_error_;
  int64_t last_error_ms_ = 0;
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

  // The status of one source table, created on first call; the reference stays valid.
  TableStatus& Table(const std::string& source_database, const std::string& source_table,
                     const std::string& target_database, const std::string& target_table);

  // Shown under "config" in /status (pass config::EffectiveConfigJson, which hides secrets).
  void SetConfig(nlohmann::ordered_json config);

  // /healthz: healthy while starting, copying or running AND the source (or the snapshot) showed
  // life within policy.max_silence AND (if policy.max_lag is set) no table's lag exceeds it.
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

  mutable std::mutex mutex_;
  PipelineState state_ = PipelineState::kStarting;
  std::string detail_;
  int64_t state_since_ms_;
  int waiting_attempt_ = 0;
  TimePoint waiting_next_{};
  SourcePosition position_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<TableStatus>> tables_;
  nlohmann::ordered_json config_;
};

}  // namespace rowbridge::server
