#include "pipeline/run_metrics.h"

namespace rowbridge::pipeline {

RunMetrics::RunMetrics(server::MetricsRegistry& r)
    : batches(
          r.AddCounter("rowbridge_batches_total", "Batches (INSERT blocks) written to ClickHouse.")
              .Get()),
      restarts(r.AddCounter("rowbridge_pipeline_restarts_total",
                            "Soft restarts after a transient fault (resuming from the last "
                            "checkpoint).")
                   .Get()),
      lag(r.AddGauge("rowbridge_replication_lag_seconds",
                     "Seconds between now and the source commit time of the oldest row not yet "
                     "in ClickHouse (0 when everything read is written and the source is "
                     "idle, as its heartbeats show).")
              .Get()),
      checkpoint_file(r.AddGauge("rowbridge_checkpoint_file_number",
                                 "Numeric extension of the checkpoint's binlog file "
                                 "(mysql-bin.000042 -> 42).")
                          .Get()),
      checkpoint_position(r.AddGauge("rowbridge_checkpoint_position_bytes",
                                     "Offset of the checkpoint in its binlog file.")
                              .Get()),
      checkpoint_version(r.AddGauge("rowbridge_checkpoint_next_version",
                                    "The version the first row change after the checkpoint "
                                    "gets.")
                             .Get()),
      checkpoint_time(r.AddGauge("rowbridge_checkpoint_saved_timestamp_seconds",
                                 "Unix time the last checkpoint was saved.")
                          .Get()),
      stopped_tables(r.AddGauge("rowbridge_stopped_tables",
                                "Source tables no longer replicated because of a schema change "
                                "rowbridge cannot follow (see /status).")
                         .Get()) {}

}  // namespace rowbridge::pipeline
