#include "server/status.h"

#include <algorithm>
#include <ctime>

#include "common/error.h"
#include "config/units.h"

namespace rowbridge::server {
namespace {

using Json = nlohmann::ordered_json;
using std::chrono::milliseconds;

int64_t UnixMs(TimePoint t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

// RFC 3339 in UTC with milliseconds, or null for "never" (0).
Json Timestamp(int64_t unix_ms) {
  if (unix_ms == 0) return nullptr;
  int64_t seconds = unix_ms / 1000;
  int64_t millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

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

TableStatus::TableStatus(std::string source_database, std::string source_table,
                         std::string target_database, std::string target_table)
    : source_database_(std::move(source_database)),
      source_table_(std::move(source_table)),
      target_database_(std::move(target_database)),
      target_table_(std::move(target_table)) {}

void TableStatus::AddRows(uint64_t inserted, uint64_t updated, uint64_t deleted) {
  inserted_.fetch_add(inserted, std::memory_order_relaxed);
  updated_.fetch_add(updated, std::memory_order_relaxed);
  deleted_.fetch_add(deleted, std::memory_order_relaxed);
}

void TableStatus::RecordFlush(TimePoint flushed_at, TimePoint newest_event_time) {
  // Clocks of two machines: a source clock ahead of ours must not make the lag negative.
  lag_ms_.store(std::max<int64_t>(0, UnixMs(flushed_at) - UnixMs(newest_event_time)),
                std::memory_order_relaxed);
  last_flush_ms_.store(UnixMs(flushed_at), std::memory_order_relaxed);
}

void TableStatus::RecordError(const std::string& message, TimePoint at) {
  std::lock_guard lock(error_mutex_);
  last_error_ = message;
  last_error_ms_ = UnixMs(at);
}

std::optional<milliseconds> TableStatus::lag() const {
  int64_t lag = lag_ms_.load(std::memory_order_relaxed);
  if (lag < 0) return std::nullopt;
  return milliseconds(lag);
}

Json TableStatus::ToJson() const {
  Json out;
  out["source"] = {{"database", source_database_}, {"table", source_table_}};
  out["target"] = {{"database", target_database_}, {"table", target_table_}};
  out["rows"] = {{"insert", inserted_.load(std::memory_order_relaxed)},
                 {"update", updated_.load(std::memory_order_relaxed)},
                 {"delete", deleted_.load(std::memory_order_relaxed)}};
  std::optional<milliseconds> current_lag = lag();
  out["lag_seconds"] =
      current_lag ? Json(static_cast<double>(current_lag->count()) / 1000) : Json();
  out["last_flush_at"] = Timestamp(last_flush_ms_.load(std::memory_order_relaxed));
  std::lock_guard lock(error_mutex_);
  if (last_error_ms_ == 0) {
    out["last_error"] = nullptr;
  } else {
    out["last_error"] = {{"message", last_error_}, {"at", Timestamp(last_error_ms_)}};
  }
  return out;
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
  if (std::string silent = SilenceProblem(policy, now); !silent.empty()) return {false, silent};
  if (policy.max_lag) {
    const TableStatus* worst = nullptr;
    milliseconds worst_lag{0};
    for (const auto& [key, table] : tables_) {
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
  out["state_since"] = Timestamp(state_since_ms_);
  out["started_at"] = Timestamp(UnixMs(started_at_));
  out["uptime_seconds"] = (UnixMs(now) - UnixMs(started_at_)) / 1000;
  out["health"] = {{"healthy", health.healthy}, {"reason", health.reason}};
  Json position = {
      {"file", position_.file}, {"position", position_.position}, {"gtid_set", position_.gtid_set}};
  out["source"] = {
      {"position", position},
      {"events", events_.load(std::memory_order_relaxed)},
      {"heartbeats", heartbeats_.load(std::memory_order_relaxed)},
      {"last_event_at", Timestamp(last_event_ms_.load(std::memory_order_relaxed))},
      {"last_event_time", Timestamp(last_event_time_ms_.load(std::memory_order_relaxed))},
      {"last_heartbeat_at", Timestamp(last_heartbeat_ms_.load(std::memory_order_relaxed))}};
  Json tables = Json::array();
  for (const auto& [key, table] : tables_) tables.push_back(table->ToJson());
  out["tables"] = tables;
  if (!config_.is_null()) out["config"] = config_;
  return out;
}

}  // namespace rowbridge::server
