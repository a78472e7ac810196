// RowCursor walks the row images of one rows event and hands out each row change as spans of
// Cells that point into the event bytes. This is the hot path: after the first rows event of a
// table, Reset() and Next() allocate nothing (the cell arrays keep their capacity), and sizing a
// value costs one layout lookup plus at most one length read.
//
//   RowCursor cursor;                      // keep one per consumer and reuse it
//   cursor.Reset(rows_event, *table_info);
//   while (cursor.Next()) {
//     for (const Cell& c : cursor.after()) ...   // WRITE and UPDATE
//     for (const Cell& c : cursor.before()) ...  // UPDATE and DELETE
//   }
//
// Cells list only the columns present in that image (binlog_row_image=MINIMAL/NOBLOB leave some
// out), in column order; Cell::index is the column's position in the table. For
// PARTIAL_UPDATE_ROWS, after-image JSON cells stored as a binary diff have is_json_diff set.
// Malformed rows throw Error(kCorruption) naming the binlog, offset and table.column.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "binlog/cell.h"
#include "binlog/rows_event.h"
#include "binlog/table_map_cache.h"

namespace rowbridge::binlog {

class RowCursor {
 public:
  // Starts on `event`'s rows using `table`'s map and layout; both (and the bytes `event` points
  // to) must stay alive while cells are used. Throws if the event's column count differs from
  // the table map's.
  void Reset(const RowsEvent& event, const TableInfo& table);

  // Decodes the next row change; false when the event has no more rows.
  bool Next();

  std::span<const Cell> before() const { return {before_.data(), before_count_}; }
  std::span<const Cell> after() const { return {after_.data(), after_count_}; }
  // 0-based number of the current row change within the event.
  size_t row_number() const { return row_number_ - 1; }

 private:
  size_t DecodeImage(std::string_view columns, size_t present, bool after_image,
                     std::vector<Cell>& cells);
  template <bool kEveryColumn>
  size_t DecodeValues(const uint8_t* nulls, const uint8_t* col_bits, const uint8_t* partial_bits,
                      std::vector<Cell>& cells);
  // The cold path of DecodeValues: throws for the value of column `col` at `pos`.
  [[noreturn]] [[gnu::noinline]] void BadValue(size_t pos, size_t col, size_t value_size);
  [[noreturn]] void Corrupt(size_t at, const std::string& what) const;

  const RowsEvent* event_ = nullptr;
  const TableInfo* table_ = nullptr;
  RowsEvent event_copy_;
  size_t pos_ = 0;
  size_t row_number_ = 0;
  size_t present_before_ = 0;
  size_t present_after_ = 0;
  std::vector<Cell> before_;
  std::vector<Cell> after_;
  size_t before_count_ = 0;
  size_t after_count_ = 0;
};

}  // namespace rowbridge::binlog
