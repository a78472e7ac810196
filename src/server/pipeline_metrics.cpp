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
      tables_by_state(r.AddGauge(kTablesByStateMetric,
                                 "Replicated source tables by state (pending, copying, copied, "
                                 "streaming, stopped, paused), as /status lists them.",
                                 {"state"})),
      retention_seconds(r.AddGauge(
          "rowbridge_binlog_retention_headroom_seconds",
          "Seconds until the source purges the checkpoint's binlog file by age (a lower bound "
          "while it is the file being written; negative: past its expiry, purged at the next "
          "rotation; +Inf: the source does not expire binlogs).")),
      retention_bytes(r.AddGauge(
          "rowbridge_binlog_retention_headroom_bytes",
          "Bytes of binlog the source can add before its size limit purges the checkpoint's "
          "file (+Inf: no size limit).")),
      retention_expire(r.AddGauge("rowbridge_binlog_retention_expire_seconds",
                                  "The source's binlog expiry in seconds (0: never).")),
      retention_limit(r.AddGauge("rowbridge_binlog_retention_limit_bytes",
                                 "The source's limit on the binlogs' total size (0: none).")),
      retention_purged(r.AddGauge("rowbridge_binlog_retention_checkpoint_purged",
                                  "1 when the checkpoint's binlog file is no longer on the source "
                                  "(a restart could not resume), else 0.")),
      retention_checked(r.AddGauge("rowbridge_binlog_retention_checked_timestamp_seconds",
                                   "Unix time of the last successful retention measurement.")),
      values_clamped(r.AddCounter(
          "rowbridge_values_clamped_total",
          "Values written as the nearest value the target column holds (policy clamp), by source "
          "column and out-of-range rule; the copy's and the stream's.",
          {"database", "table", "column", "rule"})),
      defaults_not_carried(r.AddCounter(
          "rowbridge_defaults_not_carried_total",
          "Source column DEFAULTs a schema change could not carry to the target table (an "
          "expression, CURRENT_TIMESTAMP, or a value the target type cannot hold); each is "
          "logged as a warning. Rows the target held before the column was added read NULL "
          "(Nullable) or the type's zero value in it.",
          {"database", "table", "column"})),
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

std::function<void(uint64_t)> PipelineMetrics::ClampSink(const std::string& database,
                                                         const std::string& table,
                                                         const std::string& column,
                                                         const std::string& rule) {
  Counter& counter = values_clamped.WithLabels({database, table, column, rule});
  return [&counter](uint64_t n) { counter.Increment(n); };
}

}  // namespace rowbridge::server
