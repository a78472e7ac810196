#include "server/table_status.h"

#include <algorithm>

#include "server/status_time.h"

namespace rowbridge::server {
namespace {

using Json = nlohmann::ordered_json;
using std::chrono::milliseconds;

Json NameJson(const std::string& database, const std::string& table) {
  if (database.empty() && table.empty()) return nullptr;
  return {{"database", database}, {"table", table}};
}

}  // namespace

const char* TableStateName(TableState state) {
  switch (state) {
    case TableState::kPending:
      return "pending";
    case TableState::kCopying:
      return "copying";
    case TableState::kCopied:
      return "copied";
    case TableState::kStreaming:
      return "streaming";
    case TableState::kStopped:
      return "stopped";
    case TableState::kPaused:
      return "paused";
  }
  return "?";
}

TableStatus::TableStatus(std::string source_database, std::string source_table,
                         std::string target_database, std::string target_table)
    : source_database_(std::move(source_database)),
      source_table_(std::move(source_table)),
      target_database_(std::move(target_database)),
      target_table_(std::move(target_table)) {}

void TableStatus::SetTargetIfUnknown(const std::string& target_database,
                                     const std::string& target_table) {
  if (target_database.empty() && target_table.empty()) return;
  std::lock_guard lock(mutex_);
  if (!target_database_.empty() || !target_table_.empty()) return;
  target_database_ = target_database;
  target_table_ = target_table;
}

void TableStatus::AddRows(uint64_t inserted, uint64_t updated, uint64_t deleted) {
  inserted_.fetch_add(inserted, std::memory_order_relaxed);
  updated_.fetch_add(updated, std::memory_order_relaxed);
  deleted_.fetch_add(deleted, std::memory_order_relaxed);
}

void TableStatus::AddCopiedRows(uint64_t rows) {
  copied_.fetch_add(rows, std::memory_order_relaxed);
}

void TableStatus::RecordFlush(TimePoint flushed_at, TimePoint newest_event_time) {
  // Clocks of two machines: a source clock ahead of ours must not make the lag negative.
  lag_ms_.store(std::max<int64_t>(0, UnixMs(flushed_at) - UnixMs(newest_event_time)),
                std::memory_order_relaxed);
  last_flush_ms_.store(UnixMs(flushed_at), std::memory_order_relaxed);
}

void TableStatus::MarkUnflushed(TimePoint received_at) {
  // At least 1: 0 means nothing waits.
  const int64_t at = std::max<int64_t>(1, UnixMs(received_at));
  int64_t current = unflushed_ms_.load(std::memory_order_relaxed);
  while ((current == 0 || at < current) &&
         !unflushed_ms_.compare_exchange_weak(current, at, std::memory_order_relaxed)) {
  }
}

void TableStatus::ClearUnflushed() {
  unflushed_ms_.store(0, std::memory_order_relaxed);
}

std::optional<TimePoint> TableStatus::unflushed_since() const {
  const int64_t at = unflushed_ms_.load(std::memory_order_relaxed);
  if (at == 0) return std::nullopt;
  return TimePoint(milliseconds(at));
}

void TableStatus::RecordError(const std::string& message, TimePoint at) {
  std::lock_guard lock(mutex_);
  last_error_ = message;
  last_error_ms_ = UnixMs(at);
}

void TableStatus::StartCopy(uint64_t rows_done, uint64_t rows_estimated, TimePoint now) {
  copy_rows_done_.store(rows_done, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  if (state_ == TableState::kStopped) return;
  state_ = TableState::kCopying;
  copy_rows_estimated_ = rows_estimated;
  copy_rows_at_start_ = rows_done;
  copy_started_ms_ = UnixMs(now);
}

void TableStatus::SetCopyProgress(uint64_t rows_done) {
  copy_rows_done_.store(rows_done, std::memory_order_relaxed);
}

void TableStatus::FinishCopy() {
  std::lock_guard lock(mutex_);
  if (state_ != TableState::kStopped) state_ = TableState::kCopied;
}

void TableStatus::SetStreaming() {
  std::lock_guard lock(mutex_);
  if (state_ != TableState::kStopped) state_ = TableState::kStreaming;
}

void TableStatus::SetPaused(TimePoint at) {
  std::lock_guard lock(mutex_);
  if (state_ == TableState::kStopped || state_ == TableState::kPaused) return;
  state_ = TableState::kPaused;
  paused_ms_ = UnixMs(at);
}

void TableStatus::Resume() {
  std::lock_guard lock(mutex_);
  state_ = TableState::kStreaming;
  stop_reason_.clear();
  stop_position_.clear();
  stopped_ms_ = 0;
}

void TableStatus::SetStopped(const std::string& reason, const std::string& position, TimePoint at) {
  std::lock_guard lock(mutex_);
  if (state_ == TableState::kStopped) return;  // the first reason is the one that counts
  state_ = TableState::kStopped;
  stop_reason_ = reason;
  stop_position_ = position;
  stopped_ms_ = UnixMs(at);
}

TableState TableStatus::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::string TableStatus::stop_reason() const {
  std::lock_guard lock(mutex_);
  return stop_reason_;
}

std::optional<milliseconds> TableStatus::lag() const {
  int64_t lag = lag_ms_.load(std::memory_order_relaxed);
  if (lag < 0) return std::nullopt;
  return milliseconds(lag);
}

uint64_t TableStatus::rows_written() const {
  return inserted_.load(std::memory_order_relaxed) + updated_.load(std::memory_order_relaxed) +
         deleted_.load(std::memory_order_relaxed) + copied_.load(std::memory_order_relaxed);
}

void TableStatus::SetRepair(const std::string& state, const std::string& detail, TimePoint at) {
  std::lock_guard lock(mutex_);
  repair_state_ = state;
  repair_detail_ = detail;
  if (state == "running") {
    repair_started_ms_ = UnixMs(at);
    repair_ended_ms_ = 0;
  } else {
    repair_ended_ms_ = UnixMs(at);
  }
}

Json TableStatus::ToJson(TimePoint now) const {
  std::lock_guard lock(mutex_);
  Json out;
  out["source"] = NameJson(source_database_, source_table_);
  out["target"] = NameJson(target_database_, target_table_);
  out["state"] = TableStateName(state_);
  out["rows"] = {{"insert", inserted_.load(std::memory_order_relaxed)},
                 {"update", updated_.load(std::memory_order_relaxed)},
                 {"delete", deleted_.load(std::memory_order_relaxed)},
                 {"copied", copied_.load(std::memory_order_relaxed)}};
  if (copy_started_ms_ != 0) {
    // The estimate (information_schema's row count) can be low: past it the table is "nearly
    // done", never over 100%.
    const uint64_t done = copy_rows_done_.load(std::memory_order_relaxed);
    const bool finished = state_ != TableState::kCopying && state_ != TableState::kStopped;
    const uint64_t total = std::max(copy_rows_estimated_, done);
    const double fraction =
        finished ? 1.0
                 : (total == 0 ? 0.0 : static_cast<double>(done) / static_cast<double>(total));
    const double elapsed = static_cast<double>(UnixMs(now) - copy_started_ms_) / 1000;
    const uint64_t this_run = done - std::min(done, copy_rows_at_start_);
    const double rate = elapsed > 0 ? static_cast<double>(this_run) / elapsed : 0;
    Json eta;  // null: unknown (nothing copied yet in this run)
    if (finished) {
      eta = 0;
    } else if (rate > 0) {
      eta = static_cast<double>(total - done) / rate;
    }
    out["copy"] = {{"rows_copied", done},
                   {"rows_estimated", copy_rows_estimated_},
                   {"fraction", fraction},
                   {"rows_per_second", rate},
                   {"eta_seconds", eta}};
  }
  if (!repair_state_.empty()) {
    out["repair"] = {
        {"state", repair_state_},
        {"detail", repair_detail_},
        {"started_at", TimestampJson(repair_started_ms_)},
        {"ended_at", repair_ended_ms_ == 0 ? Json() : TimestampJson(repair_ended_ms_)}};
  }
  if (state_ == TableState::kPaused) out["paused"] = {{"at", TimestampJson(paused_ms_)}};
  if (state_ == TableState::kStopped) {
    out["stopped"] = {
        {"reason", stop_reason_}, {"position", stop_position_}, {"at", TimestampJson(stopped_ms_)}};
  }
  std::optional<milliseconds> current_lag = lag();
  out["lag_seconds"] =
      current_lag ? Json(static_cast<double>(current_lag->count()) / 1000) : Json();
  out["last_flush_at"] = TimestampJson(last_flush_ms_.load(std::memory_order_relaxed));
  // Only while changes wait, so the usual shape stays as it was.
  if (const int64_t unflushed = unflushed_ms_.load(std::memory_order_relaxed); unflushed != 0) {
    out["unflushed_since"] = TimestampJson(unflushed);
  }
  if (last_error_ms_ == 0) {
    out["last_error"] = nullptr;
  } else {
    out["last_error"] = {{"message", last_error_}, {"at", TimestampJson(last_error_ms_)}};
  }
  return out;
}

}  // namespace rowbridge::server
