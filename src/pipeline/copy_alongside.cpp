#include "pipeline/copy_alongside.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "common/retry.h"
#include "snapshot/newly_matched.h"

namespace rowbridge::pipeline {

CopyAlongside::CopyAlongside(const config::Config& config, server::MetricsRegistry& registry,
                             server::StatusBoard& status, HandOverDesk& desk,
                             std::function<void(const state::TableCopy&, const Error&)> on_failure)
    : config_(config),
      registry_(registry),
      status_(status),
      desk_(desk),
      on_failure_(std::move(on_failure)) {}

CopyAlongside::~CopyAlongside() {
  Stop();
}

void CopyAlongside::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void CopyAlongside::Ensure(const state::Checkpoint& checkpoint, const std::string& store) {
  if (!checkpoint.table_copy || stop_) return;
  if (running_ || (copying_ && *copying_ == *checkpoint.table_copy)) return;
  if (thread_.joinable()) thread_.join();  // an earlier copy, handed over
  copying_ = checkpoint.table_copy;
  running_ = true;
  thread_ = std::thread([this, checkpoint, store] { Copy(checkpoint, store); });
}

void CopyAlongside::Copy(state::Checkpoint checkpoint, std::string store) {
  struct Done {
    std::atomic<bool>& running;
    ~Done() { running = false; }
  } done{running_};
  // Long enough for an idle source's heartbeat to wake the reader.
  const std::chrono::milliseconds patience = std::max<std::chrono::milliseconds>(
      std::chrono::seconds(10), 3 * config_.source.heartbeat_period);
  const std::vector<std::string> tables = checkpoint.table_copy->tables;
  auto hand_over = [&](const snapshot::BinlogPoint& end) {
    const HandOverDesk::Outcome outcome = desk_.Make({tables, {end.file, end.position}}, patience);
    if (outcome != HandOverDesk::Outcome::kTaken) {
      spdlog::info("the stream did not take the copied table(s) over at {}: {}", end.ToString(),
                   HandOverOutcomeName(outcome));
    }
    return outcome == HandOverDesk::Outcome::kTaken;
  };
  RetryOptions retry;
  retry.policy.initial = config_.source.reconnect.initial_backoff;
  retry.policy.max = config_.source.reconnect.max_backoff;
  retry.stop = &stop_;
  try {
    Retry("the copy alongside the stream", retry, [&] {
      return snapshot::CopyTablesAlongside(config_, checkpoint, store, registry_, status_, &stop_,
                                           hand_over);
    });
  } catch (const Error& e) {
    if (e.IsTransient() && stop_) return;  // stopped while waiting to retry
    // The pipeline's on_failure says what becomes of the tables, and how bad it is.
    if (on_failure_) {
      on_failure_(*checkpoint.table_copy, e);
    } else {
      spdlog::error("the copy of {} failed: {}", fmt::join(tables, ", "), e.what());
    }
  }
}

}  // namespace rowbridge::pipeline
