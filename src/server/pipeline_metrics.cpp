#include "server/pipeline_metrics.h"

#include <chrono>

namespace rowbridge::server {
namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

PipelineMetrics::PipelineMetrics(MetricsRegistry& r)
    : source_events(r.AddCounter("rowbridge_source_events_total",
                                 "Binlog events received from the source, by event type.",
                                 {"type"})),
      source_bytes(r.AddCounter("rowbridge_source_bytes_total",
                                "Bytes of binlog events received from the source.")
                       .Get()),
      source_reconnects(r.AddCounter("rowbridge_source_reconnects_total",
                                     "Times the connection to the source was re-established.")
                            .Get()),
      source_last_event_time(
          r.AddGauge("rowbridge_source_last_event_timestamp_seconds",
                     "Source commit time (unix seconds) of the last binlog event received.")
              .Get()),
      source_connected(
          r.AddGauge("rowbridge_source_connected", "1 while the binlog connection is up, else 0.")
              .Get()),
      rows(r.AddCounter(
          "rowbridge_rows_total",
          "Row changes the stream wrote to ClickHouse, by source table and change type "
          "(insert, update, delete).",
          {"database", "table", "change"})),
      snapshot_rows(r.AddCounter("rowbridge_snapshot_rows_total",
                                 "Rows written by the initial copy, by source table (the "
                                 "stream's are in rowbridge_rows_total).",
                                 {"database", "table"})),
      target_bytes(r.AddCounter("rowbridge_target_bytes_total",
                                "Uncompressed bytes of row data sent to ClickHouse, by source "
                                "table.",
                                {"database", "table"})),
      flush_seconds(r.AddHistogram("rowbridge_flush_duration_seconds",
                                   "Time to write one batch to ClickHouse, by source table.",
                                   ExponentialBuckets(0.001, 2, 16), {"database", "table"})),
      flush_rows(r.AddHistogram("rowbridge_flush_rows", "Rows per batch written, by source table.",
                                ExponentialBuckets(1, 4, 12), {"database", "table"})),
      lag(r.AddGauge("rowbridge_lag_seconds",
                     "Seconds between a row's commit on the source and its flush to ClickHouse, "
                     "at the table's last flush.",
                     {"database", "table"})),
      last_flush_time(r.AddGauge("rowbridge_last_flush_timestamp_seconds",
                                 "Unix time of the table's last flush to ClickHouse.",
                                 {"database", "table"})),
      table_stopped(r.AddGauge("rowbridge_table_stopped",
                               "1 for a source table no longer replicated (a schema change or "
                               "statement-logged DML rowbridge cannot follow; the reason is in "
                               "/status); absent for the others.",
                               {"database", "table"})),
      buffered_bytes(
          r.AddGauge("rowbridge_buffered_bytes",
                     "Bytes the batches hold in memory: rows waiting to be written and the "
                     "capacity written batches keep for reuse (bounded by "
                     "memory.max_buffered_bytes).")
              .Get()),
      errors(r.AddCounter("rowbridge_errors_total",
                          "Errors by kind (network, timeout, server, conversion ...), including "
                          "ones that were retried.",
                          {"kind"})),
      start_time(
          r.AddGauge("rowbridge_start_time_seconds", "Unix time when rowbridge started.").Get()),
      build_info(r.AddGauge("rowbridge_build_info", "Always 1; the version is in the label.",
                            {"version"})) {
  start_time.Set(NowSeconds());
  build_info.WithLabels({ROWBRIDGE_VERSION}).Set(1);
}

}  // namespace rowbridge::server
