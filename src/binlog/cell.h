// A Cell is one column value of one row image, exactly as the binlog stores it, without copying.
// The row decoder produces cells; value decoders (value_decoder.h), the mysqlbinlog/JSON
// formatters and the ClickHouse converters consume them. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "binlog/table_map.h"

namespace rowbridge::binlog {

struct Cell {
  const ColumnDef* column = nullptr;  // never null for a cell handed out by the row decoder
  uint32_t index = 0;                 // column index in the table (0-based)
  bool is_null = false;
  // For PARTIAL_UPDATE_ROWS after-images: the JSON column holds a binary JSON diff, not a document.
  bool is_json_diff = false;
  // The value bytes with any length prefix already stripped: for fixed-size types exactly the
  // stored bytes (e.g. 4 bytes for INT, the packed bytes for DECIMAL/TIME2), for CHAR, VARCHAR,
  // BLOB, TEXT, JSON, GEOMETRY and VECTOR the payload only. Empty when is_null.
  const uint8_t* data = nullptr;
  size_t size = 0;
};

}  // namespace rowbridge::binlog
