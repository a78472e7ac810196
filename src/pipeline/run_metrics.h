// The pipeline's own series (the per-table ones are server::PipelineMetrics): batches, restarts,
// lag and where the checkpoint stands. Registered once per Pipeline, shared by its sessions.
#pragma once

#include "server/metrics.h"

namespace rowbridge::pipeline {

struct RunMetrics {
  explicit RunMetrics(server::MetricsRegistry& registry);

  server::Counter& batches;
  server::Counter& restarts;
  server::Gauge& lag;
  server::Gauge& checkpoint_file;
  server::Gauge& checkpoint_position;
  server::Gauge& checkpoint_version;
  server::Gauge& checkpoint_time;
  server::Gauge& stopped_tables;
};

}  // namespace rowbridge::pipeline
