// Seed rows into the seed's ClickHouse table (tests/data/seed/clickhouse_schema.sql), the way the
// pipeline does it for a changelog target: the mapping module's ConversionPlan (a converter per
// column, chosen once) writes each row's cells straight into reusable column buffers, plus the
// two meta columns (binlog_event_type, bifrost_data_version).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "binlog/cell.h"
#include "binlog/row_cursor.h"
#include "binlog/table_map_cache.h"
#include "clickhouse/block.h"
#include "mapping/conversion_plan.h"

namespace rowbridge::bench {

// (name, type) of every column of the seed's ClickHouse table, in table order, read from
// tests/data/seed/clickhouse_schema.sql.
std::vector<std::pair<std::string, std::string>> SeedClickHouseColumns();

// The seed table's CREATE TABLE statement for ClickHouse (with `database.table` replaced).
std::string SeedClickHouseDdl(const std::string& qualified_table);

// The pipeline's own ConversionPlan for the seed table: AddRow is ConversionPlan::AppendRow.
class SeedBlockBuilder {
 public:
  // Plans the conversion of `source` (a TABLE_MAP with column names, binlog_row_metadata=FULL)
  // into the seed ClickHouse columns; throws Error(kConfig) listing every column that cannot be
  // converted or is missing from the source.
  explicit SeedBlockBuilder(const binlog::TableInfo& source);

  // Appends one row (the after-image cells of an insert).
  void AddRow(std::span<const binlog::Cell> after, int64_t version);
  // Appends the cursor's next row change the pipeline's one-pass way (ConversionPlan::AppendNext:
  // no cells). The cursor must be on a WRITE_ROWS event with full images.
  void AddNext(binlog::RowCursor& cursor, int64_t version);
  clickhouse::Block& block() { return block_.block(); }
  size_t rows() const { return block_.rows(); }
  void Clear() { block_.Clear(); }

 private:
  mapping::ConversionPlan plan_;
  mapping::TargetBlock block_;
};

}  // namespace rowbridge::bench
