#include "binlog/row_cursor.h"

#include <bit>

#include "common/error.h"

namespace rowbridge::binlog {

namespace {

bool LsbBit(const uint8_t* bits, size_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

size_t CountBits(std::string_view bitmap, size_t nbits) {
  size_t n = 0;
  auto* b = reinterpret_cast<const uint8_t*>(bitmap.data());
  for (size_t i = 0; i < nbits / 8; ++i) n += std::popcount(b[i]);
  if (nbits % 8) n += std::popcount(static_cast<uint8_t>(b[nbits / 8] & ((1u << (nbits % 8)) - 1)));
  return n;
}

// BINLOG_ROW_VALUE_OPTIONS bit: after-images of PARTIAL_UPDATE_ROWS may hold JSON diffs.
constexpr uint64_t kPartialJsonUpdates = 1;

}  // namespace

void RowCursor::Reset(const RowsEvent& event, const TableInfo& table) {
  event_copy_ = event;
  event_ = &event_copy_;
  table_ = &table;
  pos_ = 0;
  row_number_ = 0;
  before_count_ = after_count_ = 0;
  const auto& map = table.map;
  if (event.column_count != map.columns.size()) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: rows event for {}.{} has {} columns but its TABLE_MAP has {}",
         event.context, event.event_offset, map.database, map.table, event.column_count,
         map.columns.size());
  }
  present_before_ = CountBits(event.columns, event.column_count);
  present_after_ = CountBits(event.columns_after, event.column_count);
  full_images_ = !event.partial_json && present_before_ == event.column_count &&
                 present_after_ == event.column_count;
  size_t n = map.columns.size();
  if (before_.size() < n) before_.resize(n);
  if (after_.size() < n) after_.resize(n);
}

void RowCursor::Corrupt(size_t at, const std::string& what) const {
  if (event_->compressed) {
    Fail(ErrorCode::kCorruption,
         "{}: compressed rows event at offset {}, byte {} of its decompressed rows: {}.{}: {}",
         event_->context, event_->event_offset, at, table_->map.database, table_->map.table, what);
  }
  Fail(ErrorCode::kCorruption, "{} at offset {}: rows event at offset {} for {}.{}: {}",
       event_->context, event_->rows_offset + at, event_->event_offset, table_->map.database,
       table_->map.table, what);
}

bool RowCursor::Next() {
  if (event_ == nullptr || pos_ >= event_->rows.size()) return false;
  ++row_number_;
  before_count_ = after_count_ = 0;
  if (event_->has_before())
    before_count_ = DecodeImage(event_->columns, present_before_, false, before_);
  if (event_->has_after()) {
    std::string_view cols =
        event_->kind == RowsKind::kUpdate ? event_->columns_after : event_->columns;
    size_t present = event_->kind == RowsKind::kUpdate ? present_after_ : present_before_;
    after_count_ = DecodeImage(cols, present, true, after_);
  }
  return true;
}

size_t RowCursor::DecodeImage(std::string_view columns, size_t present, bool after_image,
                              std::vector<Cell>& cells) {
  const auto* data = reinterpret_cast<const uint8_t*>(event_->rows.data());
  const size_t size = event_->rows.size();
  const uint8_t* col_bits = reinterpret_cast<const uint8_t*>(columns.data());

  const uint8_t* partial_bits = nullptr;
  if (after_image && event_->partial_json) {
    // value_options is a packed integer (1, 3, 4 or 9 bytes).
    if (pos_ >= size) Corrupt(pos_, "truncated value_options");
    uint8_t first = data[pos_];
    size_t len = first < 251 ? 1 : first == 252 ? 3 : first == 253 ? 4 : first == 254 ? 9 : 0;
    if (len == 0) Corrupt(pos_, fmt::format("invalid value_options prefix 0x{:02x}", first));
    if (len > size - pos_) Corrupt(pos_, "truncated value_options");
    uint64_t options = first;
    if (len > 1) {
      options = 0;
      for (size_t i = 1; i < len; ++i)
        options |= static_cast<uint64_t>(data[pos_ + i]) << (8 * (i - 1));
    }
    pos_ += len;
    if (options & kPartialJsonUpdates) {
      size_t n = (table_->json_columns + 7) / 8;
      if (n > size - pos_) Corrupt(pos_, "truncated partial-JSON bitmap");
      partial_bits = data + pos_;
      pos_ += n;
    }
  }

  // Every row runs the value loop once per value; the image with every column present (the usual
  // one) takes the loop without column bitmap and JSON tests.
  if (present == table_->map.columns.size() && partial_bits == nullptr) {
    struct {
      Cell* out;
      const ColumnDef* defs;
      void Value(size_t col, const uint8_t* data, size_t size) {
        out[col] = {defs + col, static_cast<uint32_t>(col), false, false, data, size};
      }
      void Null(size_t col) {
        out[col] = {defs + col, static_cast<uint32_t>(col), true, false, nullptr, 0};
      }
    } sink{cells.data(), table_->map.columns.data()};
    WalkFullImage(sink);
    return present;
  }
  size_t null_bytes = (present + 7) / 8;
  if (null_bytes > size - pos_) Corrupt(pos_, "truncated row NULL bitmap");
  const uint8_t* nulls = data + pos_;
  pos_ += null_bytes;
  return DecodePartialValues(nulls, col_bits, partial_bits, cells);
}

size_t RowCursor::DecodePartialValues(const uint8_t* nulls, const uint8_t* col_bits,
                                      const uint8_t* partial_bits, std::vector<Cell>& cells) {
  // The cursor state lives in locals: a member would be reloaded after every Cell store, which
  // the compiler must assume may alias it.
  const auto* data = reinterpret_cast<const uint8_t*>(event_->rows.data());
  const size_t size = event_->rows.size();
  const size_t ncols = table_->map.columns.size();
  const ColumnSlot* const layout = table_->layout.data();
  const ColumnDef* const defs = table_->map.columns.data();
  Cell* const out = cells.data();
  size_t pos = pos_;
  size_t k = 0;
  size_t json_index = 0;
  for (size_t col = 0; col < ncols; ++col) {
    bool json_diff = false;
    // Only a partial-JSON image reads the column's type here: ColumnDef is large, and touching
    // one per value costs more than the rest of the loop.
    if (partial_bits != nullptr && defs[col].type == ColumnType::kJson) {
      json_diff = LsbBit(partial_bits, json_index);
      ++json_index;
    }
    if (!LsbBit(col_bits, col)) continue;
    Cell& cell = out[k];
    cell.column = defs + col;
    cell.index = static_cast<uint32_t>(col);
    if (LsbBit(nulls, k)) {
      cell.is_null = true;
      cell.is_json_diff = false;
      cell.data = nullptr;
      cell.size = 0;
      ++k;
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
    cell.is_null = false;
    cell.is_json_diff = json_diff;
    cell.data = data + pos;
    cell.size = value_size;
    pos += value_size;
    ++k;
  }
  pos_ = pos;
  return k;
}

void RowCursor::BadValue(ValueFault fault, size_t pos, size_t col, size_t value_size) {
  pos_ = pos;
  const ColumnDef& def = table_->map.columns[col];
  switch (fault) {
    case ValueFault::kTruncatedLength:
      Corrupt(pos, fmt::format("column {} ({}): truncated length", col + 1, def.name));
    case ValueFault::kUnsizableType:
      Fail(ErrorCode::kUnsupported,
           "{} at offset {}: {}.{} column {} {}: type {} (meta {}) cannot be decoded",
           event_->context, event_->event_offset, table_->map.database, table_->map.table, col + 1,
           def.name, ColumnTypeName(def.type), def.meta);
    case ValueFault::kOverrun:
      break;
  }
  Corrupt(pos,
          fmt::format("column {} {} ({}): value of {} bytes overruns the event ({} left)", col + 1,
                      def.name, ColumnTypeName(def.type), value_size, event_->rows.size() - pos));
}

}  // namespace rowbridge::binlog
