// Seed rows into the seed's ClickHouse table (tests/data/seed/clickhouse_schema.sql), the way the
// pipeline does it for a changelog target: each row's cells go through the mapping module's
// converters (chosen once per column by SelectConverter) straight into reusable column buffers,
// plus the two meta columns (binlog_event_type, bifrost_data_version).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "binlog/cell.h"
#include "binlog/table_map_cache.h"
#include "clickhouse/block.h"
#include "mapping/converter.h"

namespace rowbridge::bench {

// (name, type) of every column of the seed's ClickHouse table, in table order, read from
// tests/data/seed/clickhouse_schema.sql.
std::vector<std::pair<std::string, std::string>> SeedClickHouseColumns();

// The seed table's CREATE TABLE statement for ClickHouse (with `database.table` replaced).
std::string SeedClickHouseDdl(const std::string& qualified_table);

class SeedBlockBuilder {
 public:
  // Plans the conversion of `source` (a TABLE_MAP with column names, binlog_row_metadata=FULL)
  // into the seed ClickHouse columns; throws Error(kConfig) listing every column that cannot be
  // converted or is missing from the source.
  explicit SeedBlockBuilder(const binlog::TableInfo& source);

  // Appends one row (the after-image cells of an insert).
  void AddRow(std::span<const binlog::Cell> after, int64_t version);
  clickhouse::Block& block() { return block_; }
  size_t rows() const { return rows_; }
  void Clear() {
    block_.Clear();
    rows_ = 0;
  }

 private:
  struct Planned {
    uint32_t source_index;
    mapping::Converter converter;
    clickhouse::Column* column;
  };
  std::vector<Planned> plan_;
  clickhouse::Block block_;
  clickhouse::Column* event_type_ = nullptr;
  clickhouse::Column* version_ = nullptr;
  mapping::ConvertScratch scratch_;
  size_t rows_ = 0;
};

}  // namespace rowbridge::bench
