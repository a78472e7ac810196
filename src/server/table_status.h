// The status of one replicated source table as /status, /healthz and the web page show it: its
// state in the table's life (copying, copied, streaming, stopped), rows copied and streamed, lag,
// the last flush and the last error.
//
// A table is created `pending` and moves on as the copy and the stream report it:
//   StartCopy -> copying (rows copied of an estimate; a fraction and an ETA follow)
//   FinishCopy -> copied (waiting for the stream)
//   SetStreaming -> streaming (the stream routes its changes)
//   SetStopped -> stopped, with its reason; only Resume (a resnapshot of the table handed over to
//   the stream) leaves it.
//   SetPaused -> paused, by an operator's command (table_commands.h), since when; StartCopy,
//   SetStreaming or Resume leave it. /healthz does not judge a paused table's lag: it was asked
//   for.
//
// Thread-safe. Counters and the lag are atomics (added per flushed batch, never per row); the
// state, names and error take a lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace rowbridge::server {

using TimePoint = std::chrono::system_clock::time_point;

enum class TableState { kPending, kCopying, kCopied, kStreaming, kStopped, kPaused };

const char* TableStateName(TableState state);

class TableStatus {
 public:
  // Empty target names: not known (yet), e.g. a table the checkpoint lists as stopped.
  TableStatus(std::string source_database, std::string source_table, std::string target_database,
              std::string target_table);

  // Fills in the target if it was not known.
  void SetTargetIfUnknown(const std::string& target_database, const std::string& target_table);

  // Rows the stream wrote to the target, by change type.
  void AddRows(uint64_t inserted, uint64_t updated, uint64_t deleted);
  // Rows the initial copy wrote to the target (counted apart from the stream's).
  void AddCopiedRows(uint64_t rows);
  // A batch reached ClickHouse at `flushed_at`; its newest row was committed on the source at
  // `newest_event_time`. The table's lag is the difference.
  void RecordFlush(TimePoint flushed_at, TimePoint newest_event_time);
  // Changes of the table were received at `received_at` and wait in a batch: the table is
  // unflushed since the oldest such time (kept). Called when a batch takes its first change of
  // the table, never per row.
  void MarkUnflushed(TimePoint received_at);
  // A flush wrote every change of the table received so far, except those in batches that mark
  // the table again (the writer re-marks the batch still filling).
  void ClearUnflushed();
  // When the oldest change not yet flushed was received; nullopt when none waits. /healthz judges
  // it: a writer that never finishes leaves the lag at the last flush looking fine forever.
  std::optional<TimePoint> unflushed_since() const;
  void RecordError(const std::string& message, TimePoint at);

  // The copy starts (or resumes) at `now` with `rows_done` of about `rows_estimated` rows done
  // (earlier runs included); the rate and ETA count from here.
  void StartCopy(uint64_t rows_done, uint64_t rows_estimated, TimePoint now);
  void SetCopyProgress(uint64_t rows_done);
  void FinishCopy();
  void SetStreaming();
  // The table is paused from `at` on (not if stopped).
  void SetPaused(TimePoint at);
  // A stopped table streams again (its resnapshot was handed over): the one way out of stopped.
  void Resume();
  // `position`: where in the binlog it stopped (may be empty).
  void SetStopped(const std::string& reason, const std::string& position, TimePoint at);

  // A repair in place of the table's target (`rowbridge check --repair`): `state` is "running",
  // "done" or "failed" (with `detail`: counts, or the error); shown as "repair" in ToJson, with
  // when it began and ended, until the next one.
  void SetRepair(const std::string& state, const std::string& detail, TimePoint at);

  const std::string& source_database() const { return source_database_; }
  const std::string& source_table() const { return source_table_; }
  TableState state() const;
  // The reason of a stopped table; empty otherwise.
  std::string stop_reason() const;
  // Lag at the last flush; nullopt before the first flush.
  std::optional<std::chrono::milliseconds> lag() const;
  // Every row written, copied and streamed (the history's rows/s follow its differences).
  uint64_t rows_written() const;

  // `now` dates the copy's rate and ETA.
  nlohmann::ordered_json ToJson(TimePoint now) const;

 private:
  const std::string source_database_, source_table_;
  std::atomic<uint64_t> inserted_{0}, updated_{0}, deleted_{0}, copied_{0};
  std::atomic<int64_t> last_flush_ms_{0};  // unix ms; 0 = never
  std::atomic<int64_t> lag_ms_{-1};        // -1 = never flushed
  std::atomic<int64_t> unflushed_ms_{0};   // unix ms; 0 = nothing waits
  std::atomic<uint64_t> copy_rows_done_{0};

  mutable std::mutex mutex_;  // guards what follows
  std::string target_database_, target_table_;
  TableState state_ = TableState::kPending;
  uint64_t copy_rows_estimated_ = 0;
  uint64_t copy_rows_at_start_ = 0;
  int64_t copy_started_ms_ = 0;
  std::string stop_reason_, stop_position_;
  int64_t stopped_ms_ = 0;
  int64_t paused_ms_ = 0;
  std::string last_error_;
  int64_t last_error_ms_ = 0;
  std::string repair_state_, repair_detail_;
  int64_t repair_started_ms_ = 0, repair_ended_ms_ = 0;
};

}  // namespace rowbridge::server
