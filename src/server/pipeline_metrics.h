// The metrics rowbridge exports, registered in one place so that names, help texts and labels
// stay consistent and docs/observability.md can list them. The pipeline keeps a PipelineMetrics
// and takes per-table handles once per table (WithLabels), never per row.
//
// Per-table metrics are labelled {database, table} with the SOURCE table's names.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "server/metrics.h"

namespace rowbridge::server {

// The name of tables_by_state, which the admin server sets from the status board at each scrape.
inline constexpr const char* kTablesByStateMetric = "rowbridge_tables";

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
  // rowbridge_tables{state}: the tables /status lists, by state (TableStateName; every state, 0
  // included). Set by AdminServer from the StatusBoard when /metrics is scraped.
  Family<Gauge>& tables_by_state;

  // The binlog retention headroom of the checkpoint's file (mysql/binlog_retention.h). Families
  // without labels whose one series appears with the first measurement, so that nothing reads 0
  // before anything was measured.
  Family<Gauge>& retention_seconds;  // rowbridge_binlog_retention_headroom_seconds (+Inf: never)
  Family<Gauge>& retention_bytes;    // rowbridge_binlog_retention_headroom_bytes (+Inf: no limit)
  Family<Gauge>& retention_expire;   // rowbridge_binlog_retention_expire_seconds (0: never)
  Family<Gauge>& retention_limit;    // rowbridge_binlog_retention_limit_bytes (0: none)
  Family<Gauge>& retention_purged;   // rowbridge_binlog_retention_checkpoint_purged (0 or 1)
  Family<Gauge>& retention_checked;  // rowbridge_binlog_retention_checked_timestamp_seconds

  // Values written under the clamp policy instead of one the target cannot hold, by source
  // column and rule (mapping/out_of_range.h); the stream's and the copy's.
  Family<Counter>& values_clamped;  // rowbridge_values_clamped_total{database,table,column,rule}
  // Source column DEFAULTs a schema change could not carry to the target (not constants, or not
  // a value the target type holds); each was warned about.
  Family<Counter>& defaults_not_carried;  // rowbridge_defaults_not_carried_total{database,table,
                                          // column}

  // Process.
  Gauge& buffered_bytes;      // rowbridge_buffered_bytes
  Family<Counter>& errors;    // rowbridge_errors_total{kind}
  Gauge& start_time;          // rowbridge_start_time_seconds
  Family<Gauge>& build_info;  // rowbridge_build_info{version} = 1

  // What counts one column's clamped values under one rule in values_clamped (the series is
  // created here, at the first clamp, never for a column that does not clamp).
  std::function<void(uint64_t)> ClampSink(const std::string& database, const std::string& table,
                                          const std::string& column, const std::string& rule);
};

}  // namespace rowbridge::server
