// The metric and status handles of one replicated source table, looked up once (when the table is
// first routed) so that flushing a batch only does atomic adds.
#pragma once

#include <string>

#include "server/metrics.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"

namespace rowbridge::server {

struct TableStats {
  TableStats(PipelineMetrics& metrics, StatusBoard& status, const std::string& source_database,
             const std::string& source_table, const std::string& target_database,
             const std::string& target_table);

  TableStatus& status;
  Counter& inserted;
  Counter& updated;
  Counter& deleted;
  Counter& bytes;
  Histogram& flush_seconds;
  Histogram& flush_rows;
  Gauge& lag;
  Gauge& last_flush_time;
};

}  // namespace rowbridge::server
