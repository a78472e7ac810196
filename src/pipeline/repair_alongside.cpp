#include "pipeline/repair_alongside.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "check/table_repair.h"
#include "common/retry.h"
#include "snapshot/newly_matched.h"

namespace rowbridge::pipeline {

RepairAlongside::RepairAlongside(const config::Config& config, server::StatusBoard& status,
                                 server::PipelineMetrics& metrics,
                                 std::function<void(mysql::Connection&)> before_range,
                                 std::function<void(const std::string& table)> on_done)
    : config_(config),
      status_(status),
      metrics_(metrics),
      before_range_(std::move(before_range)),
      on_done_(std::move(on_done)) {}

RepairAlongside::~RepairAlongside() {
  Stop();
}

void RepairAlongside::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void RepairAlongside::Ensure(const state::Checkpoint& checkpoint) {
  std::lock_guard lock(mutex_);
  if (stop_) return;
  for (const state::TableRepair& repair : checkpoint.table_repairs) {
    if (std::find(taken_.begin(), taken_.end(), repair) != taken_.end()) continue;
    taken_.push_back(repair);
    queue_.push_back(repair);
  }
  if (queue_.empty() || working_) return;
  if (thread_.joinable()) thread_.join();  // done with the earlier queue
  working_ = true;
  thread_ = std::thread([this] { Work(); });
}

void RepairAlongside::Work() {
  for (;;) {
    state::TableRepair repair;
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty() || stop_) {
        working_ = false;
        return;
      }
      repair = queue_.front();
      queue_.erase(queue_.begin());
    }
    RepairOne(repair);
  }
}

void RepairAlongside::RepairOne(const state::TableRepair& repair) {
  const config::QualifiedName name = snapshot::SplitLabel(repair.table);
  server::TableStatus& table = status_.Table(name.database, name.table, "", "");
  table.SetRepair("running", "", status_.Now());
  spdlog::info("repair of {}: comparing its target with the source range by range", repair.table);
  RetryOptions retry;
  retry.policy.initial = config_.source.reconnect.initial_backoff;
  retry.policy.max = config_.source.reconnect.max_backoff;
  retry.stop = &stop_;
  try {
    const check::TableRepairResult result = Retry("the repair of " + repair.table, retry, [&] {
      return check::RepairTable(config_, repair.table, repair.version_base, before_range_, &stop_);
    });
    if (result.check.stopped) return;  // run again by the next start
    const check::RepairCounts& c = result.counts;
    const std::string detail = fmt::format(
        "{} of {} key ranges differed; {} rows written, {} keys deleted{}", c.ranges,
        result.check.ranges, c.rows_written, c.keys_deleted,
        c.keys_shared ? fmt::format(", {} keys in several source tables left alone", c.keys_shared)
                      : "");
    spdlog::info("repair of {} done: {}", repair.table, detail);
    table.SetRepair("done", detail, status_.Now());
  } catch (const Error& e) {
    if (e.IsTransient() && stop_) return;  // stopped while waiting to retry
    spdlog::error("repair of {} failed: {}", repair.table, e.what());
    metrics_.errors.WithLabels({"repair"}).Increment();
    table.SetRepair("failed", e.what(), status_.Now());
  }
  if (on_done_) on_done_(repair.table);
}

}  // namespace rowbridge::pipeline
