#include "pipeline/retention_monitor.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "common/error.h"
#include "endpoints/connection_options.h"

namespace rowbridge::pipeline {

RetentionMonitor::RetentionMonitor(const config::Config& config, server::PipelineMetrics& metrics,
                                   std::function<std::optional<std::string>()> checkpoint_file)
    : config_(config),
      metrics_(metrics),
      checkpoint_file_(std::move(checkpoint_file)),
      connect_options_(endpoints::SourceConnectOptions(config.source)) {
  connect_options_.program_name = "rowbridge retention check";
}

RetentionMonitor::~RetentionMonitor() {
  Stop();
}

void RetentionMonitor::Start() {
  if (config_.source.binlog_retention.check_interval.count() <= 0 || thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = false;
  }
  thread_ = std::thread([this] { Loop(); });
}

void RetentionMonitor::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RetentionMonitor::Loop() {
  const auto interval = config_.source.binlog_retention.check_interval;
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    // Until the stream has loaded or saved a checkpoint there is nothing to measure; look again
    // soon rather than an interval later.
    const bool measured = checkpoint_file_().has_value();
    if (measured) CheckOnce();
    lock.lock();
    cv_.wait_for(lock,
                 measured ? interval
                          : std::min<std::chrono::milliseconds>(interval, std::chrono::seconds(1)),
                 [&] { return stop_; });
  }
}

std::optional<mysql::BinlogRetentionCheck> RetentionMonitor::CheckOnce() {
  const std::optional<std::string> file = checkpoint_file_();
  if (!file || file->empty()) return std::nullopt;
  try {
    if (!connection_) connection_ = mysql::Connection::Connect(connect_options_);
    mysql::BinlogRetentionCheck check =
        mysql::CheckBinlogRetention(*connection_, connect_options_, *file, &start_times_);
    if (failing_) spdlog::info("binlog retention check works again");
    failing_ = false;
    Publish(check);
    const bool low = Low(check);
    if (low && !low_) {
      spdlog::warn("binlog retention of the checkpoint is low: {}",
                   mysql::DescribeBinlogRetention(*file, check.retention, check.settings));
    }
    low_ = low;
    return check;
  } catch (const std::exception& e) {
    // A measurement only: the stream has its own connection and never waits for this one.
    connection_.reset();
    if (!failing_) {
      spdlog::warn(
          "binlog retention check on source {}:{} failed (the gauges keep their last values; "
          "logged again only after a check succeeds): {}",
          config_.source.host, config_.source.port, e.what());
    }
    failing_ = true;
    return std::nullopt;
  }
}

bool RetentionMonitor::Low(const mysql::BinlogRetentionCheck& check) const {
  const mysql::BinlogRetention& r = check.retention;
  if (r.purged) return true;
  const double warn_below =
      std::chrono::duration<double>(config_.source.binlog_retention.warn_below).count();
  if (r.headroom_seconds && *r.headroom_seconds < warn_below) return true;
  return check.settings.size_limit > 0 &&
         r.headroom_bytes < static_cast<double>(check.settings.size_limit) / 10;
}

void RetentionMonitor::Publish(const mysql::BinlogRetentionCheck& check) {
  const mysql::BinlogRetention& r = check.retention;
  // Unknown keeps the last value: the next file's start is read again on the next round.
  if (r.headroom_seconds) metrics_.retention_seconds.Get().Set(*r.headroom_seconds);
  metrics_.retention_bytes.Get().Set(r.headroom_bytes);
  metrics_.retention_expire.Get().Set(check.settings.expire_seconds);
  metrics_.retention_limit.Get().Set(static_cast<double>(check.settings.size_limit));
  metrics_.retention_purged.Get().Set(r.purged ? 1 : 0);
  metrics_.retention_checked.Get().Set(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace rowbridge::pipeline
