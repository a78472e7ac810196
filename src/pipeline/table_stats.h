// The metric and status handles of one replicated source table, looked up once (when the table is
// first routed) so that flushing a batch only does atomic adds.
#pragma once

#include <string>

#include "server/metrics.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"

namespace rowbridge::pipeline {

struct TableStats {
  TableStats(server::PipelineMetrics& metrics, server::StatusBoard& status,
             const std::string& source_database, const std::string& source_table,
             const std::string& target_database, const std::string& target_table);

  server::TableStatus& status;
  server::Counter& inserted;
  server::Counter& updated;
  server::Counter& deleted;
  server::Counter& bytes;
  server::Histogram& flush_seconds;
  server::Histogram& flush_rows;
  server::Gauge& lag;
  server::Gauge& last_flush_time;
};

}  // namespace rowbridge::pipeline
