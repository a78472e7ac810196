// WRITE/UPDATE/DELETE ROWS events in every version (v0 of MySQL 5.1 pre-GA, v1, v2 with extra
// data, MySQL 8 PARTIAL_UPDATE_ROWS, MariaDB's compressed variants): the fixed part that says
// which table and which columns each image holds. The row images themselves are walked by
// RowCursor (row_cursor.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/event.h"
#include "binlog/format_description.h"

namespace rowbridge::binlog {

enum class RowsKind : uint8_t { kWrite, kUpdate, kDelete };

// Rows event flags.
inline constexpr uint16_t kRowsFlagStatementEnd = 0x0001;

struct RowsEvent {
  EventType type = EventType::kUnknown;
  RowsKind kind = RowsKind::kWrite;
  uint8_t version = 1;        // 0, 1 or 2
  bool partial_json = false;  // PARTIAL_UPDATE_ROWS: after-images may hold JSON diffs
  bool compressed = false;    // MariaDB *_COMPRESSED: `rows` is the decompressed copy
  uint64_t table_id = 0;
  uint16_t flags = 0;
  uint32_t column_count = 0;
  // Columns present in the before image (UPDATE/DELETE) or the only image (WRITE), and in the
  // after image of UPDATE (equal to `columns` otherwise). LSB-first bitmaps of column_count bits.
  std::string_view columns;
  std::string_view columns_after;
  std::string_view extra_data;  // v2 extra row info (after its 2-byte length), possibly empty
  std::string_view rows;        // the row images
  // Offset of rows[0] in the file, for errors; for compressed events the event's offset.
  uint64_t rows_offset = 0;
  uint64_t event_offset = 0;
  std::string_view context;

  bool has_before() const { return kind != RowsKind::kWrite; }
  bool has_after() const { return kind != RowsKind::kDelete; }
};

// Parses the fixed part of a rows event. `scratch` holds the decompressed rows of MariaDB
// compressed events (reused between calls; the result's `rows` may point into it).
RowsEvent ParseRowsEvent(const Event& event, const FormatDescription& format, std::string& scratch);

}  // namespace rowbridge::binlog
