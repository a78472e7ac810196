// RepairAlongside: runs the repairs a checkpoint records (state::Checkpoint::table_repairs), one
// after the other, on its own thread while the pipeline's sessions stream (check/table_repair.h
// says why writing into the live target is exact). It outlives sessions: a reconnect of the
// stream does not restart a repair.
//
// A transient error is retried with the stream's backoff (source.reconnect), the table's repair
// starting over; a permanent one ends that repair, reported on the table's status, in the log and
// in rowbridge_errors_total{kind="repair"}. Either way `on_done` is called with the table, and the
// pipeline drops the repair from the checkpoint. Stop() (also the destructor) stops after the
// range in hand; the next start runs the repair again from the start.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "mysql/connection.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"
#include "state/checkpoint.h"

namespace rowbridge::pipeline {

class RepairAlongside {
 public:
  // `before_range`: called on the repair's source connection before a differing range is
  // repaired (the pipeline waits there for its stream to catch up with the source).
  RepairAlongside(const config::Config& config, server::StatusBoard& status,
                  server::PipelineMetrics& metrics,
                  std::function<void(mysql::Connection&)> before_range,
                  std::function<void(const std::string& table)> on_done);
  ~RepairAlongside();
  RepairAlongside(const RepairAlongside&) = delete;
  RepairAlongside& operator=(const RepairAlongside&) = delete;

  // Queues the repairs `checkpoint` records that this process has not queued yet, and starts the
  // thread if it is not running.
  void Ensure(const state::Checkpoint& checkpoint);
  void Stop();

 private:
  void Work();
  void RepairOne(const state::TableRepair& repair);

  const config::Config& config_;
  server::StatusBoard& status_;
  server::PipelineMetrics& metrics_;
  std::function<void(mysql::Connection&)> before_range_;
  std::function<void(const std::string&)> on_done_;

  std::atomic<bool> stop_{false};
  std::mutex mutex_;  // guards what follows
  std::vector<state::TableRepair> queue_;
  std::vector<state::TableRepair> taken_;  // queued once in this process
  bool working_ = false;
  std::thread thread_;
};

}  // namespace rowbridge::pipeline
