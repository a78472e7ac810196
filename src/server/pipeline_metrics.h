// The metrics rowbridge exports, registered in one place so that names, help texts and labels
// stay consistent and docs/observability.md can list them. The pipeline keeps a PipelineMetrics
// and takes per-table handles once per table (WithLabels), never per row.
//
// Per-table metrics are labelled {database, table} with the SOURCE table's names.
#pragma once

#include "server/metrics.h"

namespace rowbridge::server {

struct PipelineMetrics {
  explicit PipelineMetrics(MetricsRegistry& registry);

  // Source (binlog) side.
  Family<Counter>& source_events;  // rowbridge_source_events_total{type}
  Counter& source_bytes;           // rowbridge_source_bytes_total
  Counter& source_reconnects;      // rowbridge_source_reconnects_total
  Gauge& source_last_event_time;   // rowbridge_source_last_event_timestamp_seconds
  Gauge& source_connected;         // rowbridge_source_connected (0 or 1)

  // Per table.
  Family<Counter>& rows;           // rowbridge_rows_total{database,table,change}
  Family<Counter>& snapshot_rows;  // rowbridge_snapshot_rows_total{database,table}
  Family<Counter>& target_bytes;   // rowbridge_target_bytes_total{database,table}
  HistogramFamily& flush_seconds;  // rowbridge_flush_duration_seconds{database,table}
  HistogramFamily& flush_rows;     // rowbridge_flush_rows{database,table}
  Family<Gauge>& lag;              // rowbridge_lag_seconds{database,table}
  Family<Gauge>& last_flush_time;  // rowbridge_last_flush_timestamp_seconds{database,table}
  Family<Gauge>& table_stopped;    // rowbridge_table_stopped{database,table} = 1 once stopped

  // Process.
  Gauge& buffered_bytes;      // rowbridge_buffered_bytes
  Family<Counter>& errors;    // rowbridge_errors_total{kind}
  Gauge& start_time;          // rowbridge_start_time_seconds
  Family<Gauge>& build_info;  // rowbridge_build_info{version} = 1
};

}  // namespace rowbridge::server
