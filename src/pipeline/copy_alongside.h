// CopyAlongside: runs the copy a checkpoint records (state::Checkpoint::table_copy: tables matched
// later, or tables copied again by `resnapshot`) on its own thread while the pipeline's sessions
// stream, and offers its tables to whichever session streams when it is done
// (pipeline/hand_over_desk.h, snapshot/newly_matched.h). It outlives sessions: a reconnect of the
// stream does not restart the copy.
//
// Transient errors of the copy are retried with the stream's backoff (source.reconnect), each
// attempt resuming where the last one stopped; a permanent one calls `on_failure` with the copy
// and the error (the pipeline abandons the copy and streams on without it). Stop() (also the
// destructor) stops the copy after its units in flight and joins it; the next start resumes it.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/error.h"
#include "config/config.h"
#include "pipeline/hand_over_desk.h"
#include "server/metrics.h"
#include "server/status.h"
#include "state/checkpoint.h"

namespace rowbridge::pipeline {

class CopyAlongside {
 public:
  CopyAlongside(const config::Config& config, server::MetricsRegistry& registry,
                server::StatusBoard& status, HandOverDesk& desk,
                std::function<void(const state::TableCopy&, const Error&)> on_failure);
  ~CopyAlongside();
  CopyAlongside(const CopyAlongside&) = delete;
  CopyAlongside& operator=(const CopyAlongside&) = delete;

  // Starts the copy `checkpoint` records (saved in the store `store`) unless it is running, or
  // is done and was handed over. Nothing when the checkpoint records none.
  void Ensure(const state::Checkpoint& checkpoint, const std::string& store);
  // Whether a copy runs (not yet handed over, stopped or failed).
  bool running() const { return running_.load(); }
  void Stop();

 private:
  void Copy(state::Checkpoint checkpoint, std::string store);

  const config::Config& config_;
  server::MetricsRegistry& registry_;
  server::StatusBoard& status_;
  HandOverDesk& desk_;
  std::function<void(const state::TableCopy&, const Error&)> on_failure_;

  std::atomic<bool> stop_{false};
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::optional<state::TableCopy> copying_;  // the copy thread_ runs or ran
};

}  // namespace rowbridge::pipeline
