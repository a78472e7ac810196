#include "pipeline/retention_monitor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "endpoints/connection_options.h"

namespace rowbridge::pipeline {

namespace {
constexpr std::chrono::milliseconds kMaxWait{10000};
}  // namespace

RetentionMonitor::RetentionMonitor(const config::Config& config, server::PipelineMetrics& metrics,
                                   std::function<std::optional<std::string>()> checkpoint_file)
    : config_(config),
      metrics_(metrics),
      checkpoint_file_(std::move(checkpoint_file)),
      connect_options_(endpoints::SourceConnectOptions(config.source)) {
  connect_options_.program_name = "rowbridge retention check";
  // A measurement may be skipped; a stop must not wait long for one on a hung source.
  auto& tcp = connect_options_.tcp;
  tcp.connect_timeout = std::min<std::chrono::milliseconds>(tcp.connect_timeout, kMaxWait);
  tcp.read_timeout = std::min<std::chrono::milliseconds>(tcp.read_timeout, kMaxWait);
  tcp.write_timeout = std::min<std::chrono::milliseconds>(tcp.write_timeout, kMaxWait);
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
  {
    // Cuts a query blocked on the source short (the thread destroys the connection only under
    // this mutex).
    std::lock_guard lock(connection_mutex_);
    if (connection_) connection_->tcp().Interrupt();
  }
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
    if (!connection_) {
      std::unique_ptr<mysql::Connection> connection = mysql::Connection::Connect(connect_options_);
      std::lock_guard lock(connection_mutex_);
      connection_ = std::move(connection);
    }
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
    {
      std::lock_guard lock(connection_mutex_);
      connection_.reset();
    }
    {
      std::lock_guard lock(mutex_);
      if (stop_) return std::nullopt;  // interrupted by Stop: not a failure to report
    }
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
  if (check.retention.purged) return true;
  const mysql::LowBinlogRetention low =
      mysql::FindLowBinlogRetention(check, config_.source.binlog_retention.warn_below);
  return low.seconds || low.bytes;
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
