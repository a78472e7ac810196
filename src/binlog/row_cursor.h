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
//
// Events whose images all have every column (binlog_row_image=FULL, the usual case) may instead be
// read with NextInto, which hands each value to a sink as it is decoded: no cells are written and
// read back, which is most of what decoding a row costs.
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

  // No row change is left in the event.
  bool AtEnd() const { return event_ == nullptr || pos_ >= event_->rows.size(); }
  // Every image of the event has every column and no JSON diff, so NextInto may be used.
  bool full_images() const { return full_images_; }

  // The one-pass alternative to Next() for full_images() events: decodes the next row change's
  // main image (the after image of WRITE and UPDATE, the before image of DELETE) straight into
  // `sink`, and skips an UPDATE's before image. For each column in table order it calls
  //   sink.Value(column, data, size)   the bytes a Cell would hold, or
  //   sink.Null(column).
  // Returns the bytes the main image takes in the event. before() and after() are empty after it.
  // Precondition: full_images() && !AtEnd(). Malformed rows throw as in Next(), possibly after the
  // sink has seen part of the row.
  template <typename Sink>
  size_t NextInto(Sink& sink);

  std::span<const Cell> before() const { return {before_.data(), before_count_}; }
  std::span<const Cell> after() const { return {after_.data(), after_count_}; }
  // The table of the current event (from Reset).
  const TableInfo& table() const { return *table_; }
  // 0-based number of the current row change within the event.
  size_t row_number() const { return row_number_ - 1; }

 private:
  size_t DecodeImage(std::string_view columns, size_t present, bool after_image,
                     std::vector<Cell>& cells);
  // The values of an image with every column present, from pos_ (its NULL bitmap), into `sink`.
  template <typename Sink>
  void WalkFullImage(Sink& sink);
  // An image with columns missing or JSON diffs, into cells; returns how many.
  size_t DecodePartialValues(const uint8_t* nulls, const uint8_t* col_bits,
                             const uint8_t* partial_bits, std::vector<Cell>& cells);
  // What is wrong with a value the loops cannot hand out.
  enum class ValueFault : uint8_t {
    kTruncatedLength,  // the event ends inside the value's length prefix
    kUnsizableType,    // the column's type has no known size (ColumnSlot::kUnsupported)
    kOverrun,          // the value's `value_size` bytes run past the event
  };
  // The cold path of the value loops: throws for the value of column `col` at `pos`.
  [[noreturn]] [[gnu::noinline]] void BadValue(ValueFault fault, size_t pos, size_t col,
                                               size_t value_size);
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
  bool full_images_ = false;
};

// ---- templates (the row loop is inlined into each sink's caller) ----

template <typename Sink>
size_t RowCursor::NextInto(Sink& sink) {
  ++row_number_;
  before_count_ = after_count_ = 0;
  if (event_->kind == RowsKind::kUpdate) {
    struct {
      void Value(size_t, const uint8_t*, size_t) {}
      void Null(size_t) {}
    } skip;
    WalkFullImage(skip);
  }
  const size_t start = pos_;
  WalkFullImage(sink);
  return pos_ - start;
}

template <typename Sink>
void RowCursor::WalkFullImage(Sink& sink) {
  // The cursor state lives in locals: a member would be reloaded after every call into the sink,
  // which the compiler must assume may modify it.
  const auto* data = reinterpret_cast<const uint8_t*>(event_->rows.data());
  const size_t size = event_->rows.size();
  const size_t ncols = table_->map.columns.size();
  const ColumnSlot* const layout = table_->layout.data();
  size_t pos = pos_;
  const size_t null_bytes = (ncols + 7) / 8;
  if (null_bytes > size - pos) Corrupt(pos, "truncated row NULL bitmap");
  const uint8_t* const nulls = data + pos;
  pos += null_bytes;
  // The NULL bits are taken 64 at a time into a register and shifted out one per column.
  uint64_t null_bits = 0;
  for (size_t col = 0; col < ncols; ++col) {
    if ((col & 63) == 0) {
      null_bits = 0;
      const size_t first = col >> 3;
      const size_t count = null_bytes - first < 8 ? null_bytes - first : 8;
      for (size_t i = 0; i < count; ++i) null_bits |= uint64_t{nulls[first + i]} << (8 * i);
    }
    const bool is_null = null_bits & 1;
    null_bits >>= 1;
    if (is_null) {
      sink.Null(col);
      continue;
    }
    const ColumnSlot slot = layout[col];
    size_t value_size;
    if (slot.kind == ColumnSlot::kFixed) {
      value_size = slot.bytes;
    } else if (slot.kind == ColumnSlot::kPrefixed) [[likely]] {
      if (slot.bytes > size - pos) BadValue(ValueFault::kTruncatedLength, pos, col, 0);
      const uint8_t* len = data + pos;
      switch (slot.bytes) {
        case 1:
          value_size = len[0];
          break;
        case 2:
          value_size = len[0] | (size_t{len[1]} << 8);
          break;
        default:
          value_size = 0;
          for (size_t i = 0; i < slot.bytes; ++i)
            value_size |= static_cast<size_t>(len[i]) << (8 * i);
      }
      pos += slot.bytes;
    } else {
      BadValue(ValueFault::kUnsizableType, pos, col, 0);
    }
    if (value_size > size - pos) BadValue(ValueFault::kOverrun, pos, col, value_size);
    sink.Value(col, data + pos, value_size);
    pos += value_size;
  }
  pos_ = pos;
}

}  // namespace rowbridge::binlog
