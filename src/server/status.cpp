#include "server/status.h"

#include <algorithm>

#include "common/error.h"
#include "config/units.h"
#include "server/status_time.h"

namespace rowbridge::server {
namespace {

using Json = nlohmann::ordered_json;
using std::chrono::milliseconds;

// Whole seconds, rounded up, as a duration text ("4s", "1m30s").
std::string Seconds(int64_t ms) {
  if (ms <= 0) return "0s";
  return config::FormatDuration(milliseconds((ms + 999) / 1000 * 1000));
}

}  // namespace

const char* PipelineStateName(PipelineState state) {
  switch (state) {
    case PipelineState::kStandby:
      return "standby";
    case PipelineState::kStarting:
      return "starting";
    case PipelineState::kSnapshot:
      return "snapshot";
    case PipelineState::kRunning:
      return "running";
    case PipelineState::kWaiting:
      return "waiting";
    case PipelineState::kStopping:
      return "stopping";
    case PipelineState::kStopped:
      return "stopped";
    case PipelineState::kFailed:
      return "failed";
  }
  return "?";
}

StatusBoard::StatusBoard(Clock clock)
    : clock_(std::move(clock)), started_at_(clock_()), state_since_ms_(UnixMs(started_at_)) {}

void StatusBoard::SetState(PipelineState state, std::string detail) {
  std::lock_guard lock(mutex_);
  if (state != state_) state_since_ms_ = UnixMs(clock_());
  state_ = state;
  detail_ = std::move(detail);
  waiting_attempt_ = 0;
}

void StatusBoard::SetWaiting(std::string what, int attempt, TimePoint next_attempt) {
  std::lock_guard lock(mutex_);
  if (state_ != PipelineState::kWaiting) state_since_ms_ = UnixMs(clock_());
  state_ = PipelineState::kWaiting;
  detail_ = std::move(what);
  waiting_attempt_ = attempt;
  waiting_next_ = next_attempt;
}

void StatusBoard::RecordSourceEvent(TimePoint event_time) {
  last_event_ms_.store(UnixMs(clock_()), std::memory_order_relaxed);
  last_event_time_ms_.store(UnixMs(event_time), std::memory_order_relaxed);
  events_.fetch_add(1, std::memory_order_relaxed);
}

void StatusBoard::RecordHeartbeat() {
  last_heartbeat_ms_.store(UnixMs(clock_()), std::memory_order_relaxed);
  heartbeats_.fetch_add(1, std::memory_order_relaxed);
}

void StatusBoard::RecordProgress() {
  last_progress_ms_.store(UnixMs(clock_()), std::memory_order_relaxed);
}

void StatusBoard::SetReplicationLag(double seconds) {
  replication_lag_.store(std::max(0.0, seconds), std::memory_order_relaxed);
}

void StatusBoard::SetSourcePosition(SourcePosition position) {
  std::lock_guard lock(mutex_);
  position_ = std::move(position);
}

TableStatus& StatusBoard::Table(const std::string& source_database, const std::string& source_table,
                                const std::string& target_database,
                                const std::string& target_table) {
  std::lock_guard lock(mutex_);
  auto key = std::make_pair(source_database, source_table);
  auto it = tables_.find(key);
  if (it == tables_.end()) {
    it = tables_
             .emplace(key, std::make_unique<TableStatus>(source_database, source_table,
                                                         target_database, target_table))
             .first;
    tables_in_order_.push_back(it->second.get());
  } else {
    it->second->SetTargetIfUnknown(target_database, target_table);
  }
  return *it->second;
}

void StatusBoard::SetConfig(nlohmann::ordered_json config) {
  std::lock_guard lock(mutex_);
  config_ = std::move(config);
}

std::string StatusBoard::StateText(TimePoint now) const {
  std::string text = PipelineStateName(state_);
  if (state_ == PipelineState::kWaiting && waiting_attempt_ > 0) {
    int64_t remaining = UnixMs(waiting_next_) - UnixMs(now);
    return fmt::format("{}: {} (attempt {}, {})", text, detail_, waiting_attempt_,
                       remaining > 0 ? "next in " + Seconds(remaining) : "retrying now");
  }
  if (!detail_.empty()) text += ": " + detail_;
  return text;
}

std::string StatusBoard::SilenceProblem(const config::HealthConfig& policy, TimePoint now) const {
  const int64_t last_alive =
      std::max({last_event_ms_.load(std::memory_order_relaxed),
                last_heartbeat_ms_.load(std::memory_order_relaxed),
                last_progress_ms_.load(std::memory_order_relaxed), state_since_ms_});
  const int64_t silence = UnixMs(now) - last_alive;
  if (silence <= policy.max_silence.count()) return "";
  return fmt::format("{}, but no event, heartbeat or progress for {} (limit {})", StateText(now),
                     Seconds(silence), config::FormatDuration(policy.max_silence));
}

Health StatusBoard::CheckLiveness(const config::HealthConfig& policy) const {
  const TimePoint now = clock_();
  std::lock_guard lock(mutex_);
  switch (state_) {
    case PipelineState::kStandby:
    case PipelineState::kStopping:
      return {true, StateText(now)};
    case PipelineState::kStopped:
    case PipelineState::kFailed:
      return {false, StateText(now)};
    case PipelineState::kWaiting: {
      const int64_t overdue = UnixMs(now) - UnixMs(waiting_next_);
      if (waiting_attempt_ > 0 && overdue > policy.max_silence.count()) {
        return {false, fmt::format("{}, but the attempt is {} overdue (limit {})", StateText(now),
                                   Seconds(overdue), config::FormatDuration(policy.max_silence))};
      }
      return {true, StateText(now)};
    }
    case PipelineState::kStarting:
    case PipelineState::kSnapshot:
    case PipelineState::kRunning:
      break;
  }
  if (std::string silent = SilenceProblem(policy, now); !silent.empty()) return {false, silent};
  return {true, StateText(now)};
}

PipelineState StatusBoard::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::string StatusBoard::StateLine() const {
  std::lock_guard lock(mutex_);
  std::string text = PipelineStateName(state_);
  if (!detail_.empty()) text += ": " + detail_;
  if (state_ == PipelineState::kWaiting && waiting_attempt_ > 0) {
    text += fmt::format(" (attempt {})", waiting_attempt_);
  }
  return text;
}

Health StatusBoard::CheckHealth(const config::HealthConfig& policy) const {
  const TimePoint now = clock_();
  std::lock_guard lock(mutex_);
  switch (state_) {
    case PipelineState::kStandby:
      // Healthy as what it is: ready to take over. /status and the page say "standby".
      return {true, StateText(now)};
    case PipelineState::kWaiting:
    case PipelineState::kStopping:
    case PipelineState::kStopped:
    case PipelineState::kFailed:
      return {false, StateText(now)};
    case PipelineState::kStarting:
    case PipelineState::kSnapshot:
    case PipelineState::kRunning:
      break;
  }
  std::vector<const TableStatus*> stopped;
  for (const auto& [key, table] : tables_) {
    if (table->state() == TableState::kStopped) stopped.push_back(table.get());
  }
  if (!stopped.empty()) {
    // The other tables still replicate, but a stopped one needs a person; every name is said,
    // the first one's reason too (the others' are in /status).
    const TableStatus& first = *stopped.front();
    const std::string first_name = first.source_database() + "." + first.source_table();
    if (stopped.size() == 1) {
      return {false, fmt::format("{}, but table {} is stopped: {}", StateText(now), first_name,
                                 first.stop_reason())};
    }
    std::string names;
    for (const TableStatus* table : stopped) {
      if (!names.empty()) names += ", ";
      names += table->source_database() + "." + table->source_table();
    }
    return {false, fmt::format("{}, but {} tables are stopped ({}); {}: {}", StateText(now),
                               stopped.size(), names, first_name, first.stop_reason())};
  }
  if (std::string silent = SilenceProblem(policy, now); !silent.empty()) return {false, silent};
  if (policy.max_lag) {
    const TableStatus* worst = nullptr;
    milliseconds worst_lag{0};
    for (const auto& [key, table] : tables_) {
      if (table->state() == TableState::kPaused) continue;  // asked for; its lag is not news
      std::optional<milliseconds> lag = table->lag();
      if (lag && *lag > *policy.max_lag && *lag > worst_lag) {
        worst = table.get();
        worst_lag = *lag;
      }
    }
    if (worst != nullptr) {
      return {false,
              fmt::format("{}, but table {}.{} was {} behind the source at its last flush "
                          "(limit {})",
                          StateText(now), worst->source_database(), worst->source_table(),
                          Seconds(worst_lag.count()), config::FormatDuration(*policy.max_lag))};
    }
    // The lag above is measured at flushes: a table whose writes never finish keeps its last,
    // good one forever. Its oldest change waiting tells.
    const TableStatus* stuck = nullptr;
    milliseconds stuck_for{0};
    for (const auto& [key, table] : tables_) {
      if (table->state() == TableState::kPaused) continue;
      const std::optional<TimePoint> since = table->unflushed_since();
      if (!since) continue;
      const milliseconds waiting(UnixMs(now) - UnixMs(*since));
      if (waiting > *policy.max_lag && waiting > stuck_for) {
        stuck = table.get();
        stuck_for = waiting;
      }
    }
    if (stuck != nullptr) {
      return {false,
              fmt::format("{}, but table {}.{} has changes received {} ago and not yet "
                          "flushed (limit {})",
                          StateText(now), stuck->source_database(), stuck->source_table(),
                          Seconds(stuck_for.count()), config::FormatDuration(*policy.max_lag))};
    }
  }
  return {true, StateText(now)};
}

Json StatusBoard::ToJson(const config::HealthConfig& policy) const {
  Health health = CheckHealth(policy);
  const TimePoint now = clock_();
  std::lock_guard lock(mutex_);
  Json out;
  out["version"] = ROWBRIDGE_VERSION;
  out["state"] = PipelineStateName(state_);
  out["status"] = StateText(now);
  out["state_since"] = TimestampJson(state_since_ms_);
  out["started_at"] = TimestampJson(UnixMs(started_at_));
  out["uptime_seconds"] = (UnixMs(now) - UnixMs(started_at_)) / 1000;
  out["health"] = {{"healthy", health.healthy}, {"reason", health.reason}};
  const double replication_lag = replication_lag_.load(std::memory_order_relaxed);
  Json position = {
      {"file", position_.file}, {"position", position_.position}, {"gtid_set", position_.gtid_set}};
  out["source"] = {
      {"position", position},
      {"events", events_.load(std::memory_order_relaxed)},
      {"heartbeats", heartbeats_.load(std::memory_order_relaxed)},
      {"last_event_at", TimestampJson(last_event_ms_.load(std::memory_order_relaxed))},
      {"last_event_time", TimestampJson(last_event_time_ms_.load(std::memory_order_relaxed))},
      {"last_heartbeat_at", TimestampJson(last_heartbeat_ms_.load(std::memory_order_relaxed))},
      {"lag_seconds", replication_lag < 0 ? Json() : Json(replication_lag)}};
  Json tables = Json::array();
  for (const auto& [key, table] : tables_) tables.push_back(table->ToJson(now));
  out["tables"] = tables;
  if (!config_.is_null()) out["config"] = config_;
  return out;
}

StatusSample StatusBoard::Sample() const {
  StatusSample sample;
  sample.at = clock_();
  const double lag = replication_lag_.load(std::memory_order_relaxed);
  if (lag >= 0) sample.lag_seconds = lag;
  std::lock_guard lock(mutex_);
  sample.tables.reserve(tables_in_order_.size());
  for (const TableStatus* table : tables_in_order_) {
    sample.tables.push_back(
        {table->source_database(), table->source_table(), table->rows_written(), table->lag()});
  }
  return sample;
}

std::vector<std::pair<std::string, size_t>> StatusBoard::CountTablesByState() const {
  constexpr TableState kStates[] = {TableState::kPending, TableState::kCopying,
                                    TableState::kCopied,  TableState::kStreaming,
                                    TableState::kStopped, TableState::kPaused};
  std::vector<std::pair<std::string, size_t>> counts;
  for (TableState state : kStates) counts.emplace_back(TableStateName(state), 0);
  std::lock_guard lock(mutex_);
  for (const auto& [key, table] : tables_) {
    const std::string name = TableStateName(table->state());
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& count) { return count.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);  // a state added to TableState but not to kStates
    } else {
      ++it->second;
    }
  }
  return counts;
}

}  // namespace rowbridge::server
