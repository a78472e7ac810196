#include "server/table_stats.h"

namespace rowbridge::server {

TableStats::TableStats(PipelineMetrics& metrics, StatusBoard& board,
                       const std::string& source_database, const std::string& source_table,
                       const std::string& target_database, const std::string& target_table)
    : status(board.Table(source_database, source_table, target_database, target_table)),
      inserted(metrics.rows.WithLabels({source_database, source_table, "insert"})),
      updated(metrics.rows.WithLabels({source_database, source_table, "update"})),
      deleted(metrics.rows.WithLabels({source_database, source_table, "delete"})),
      bytes(metrics.target_bytes.WithLabels({source_database, source_table})),
      flush_seconds(metrics.flush_seconds.WithLabels({source_database, source_table})),
      flush_rows(metrics.flush_rows.WithLabels({source_database, source_table})),
      lag(metrics.lag.WithLabels({source_database, source_table})),
      last_flush_time(metrics.last_flush_time.WithLabels({source_database, source_table})) {}

}  // namespace rowbridge::server
