// RetentionMonitor: measures the binlog retention headroom of the checkpoint's file
// (mysql/binlog_retention.h) every source.binlog_retention.check_interval on a thread and a source
// connection of its own, and exports it (rowbridge_binlog_retention_*). A failed measurement never
// touches replication: it is logged once (until one succeeds again), the gauges keep their last
// values and rowbridge_binlog_retention_checked_timestamp_seconds stops advancing. A headroom
// below source.binlog_retention.warn_below (or a size headroom below a tenth of the limit, or a
// purged file) is logged as a warning once, until it is above again. Its connections wait at most
// 10 s for the source, and Stop cuts a query in flight.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "config/config.h"
#include "mysql/binlog_retention.h"
#include "mysql/connection.h"
#include "server/pipeline_metrics.h"

namespace rowbridge::pipeline {

class RetentionMonitor {
 public:
  // `checkpoint_file` says the file to measure; nullopt (no checkpoint yet) skips a round.
  RetentionMonitor(const config::Config& config, server::PipelineMetrics& metrics,
                   std::function<std::optional<std::string>()> checkpoint_file);
  ~RetentionMonitor();
  RetentionMonitor(const RetentionMonitor&) = delete;
  RetentionMonitor& operator=(const RetentionMonitor&) = delete;

  // Starts the thread (measuring at once, then every interval); nothing if the interval is 0.
  void Start();
  void Stop();
  // One measurement now; the result, or nullopt when there was nothing to measure or it failed.
  std::optional<mysql::BinlogRetentionCheck> CheckOnce();

 private:
  void Loop();
  void Publish(const mysql::BinlogRetentionCheck& check);
  bool Low(const mysql::BinlogRetentionCheck& check) const;

  const config::Config& config_;
  server::PipelineMetrics& metrics_;
  std::function<std::optional<std::string>()> checkpoint_file_;
  mysql::ConnectOptions connect_options_;
  std::mutex connection_mutex_;  // guards connection_ itself (not its use) against Stop
  std::unique_ptr<mysql::Connection> connection_;
  std::map<std::string, double> start_times_;
  bool failing_ = false;  // the last measurement failed (logged)
  bool low_ = false;      // the last measurement was low (logged)

  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rowbridge::pipeline
