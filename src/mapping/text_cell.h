// Text-protocol values as binlog Cells: the initial copy reads rows with SELECT (text protocol) and
// must write exactly what the binlog path writes for the same MySQL value. Rather than a second
// family of converters that could drift from the first, each text field is turned back into the
// bytes a row event carries for that value (DECIMAL packed, DATETIME2, TIMESTAMP2, TIME2, ...),
// and the ordinary converters (mapping/converter.h) take it from there. Same cell, same target
// value, by construction.
//
// The SELECT must ask for a few columns in a form whose text is exact (TextSelectExpression):
//   BIT, ENUM, SET   CAST(`c` AS UNSIGNED): the number (BIT value, ENUM index, SET bitmask);
//                    not `c` + 0, a DOUBLE on MySQL and negative for a 64-member SET
//   FLOAT            `c` + 0e0: the float widened to a double, printed as the shortest text that
//                    reads back as that double (a FLOAT column itself prints only 6 digits)
//   DOUBLE           `c` + 0e0 likewise (a DOUBLE(M,D) column prints its value rounded to D
//                    decimals, which is not always the double it stores)
//   TIMESTAMP        the session must have time_zone = '+00:00': the text is the UTC wall time
//   strings          character_set_results must be binary (NULL): bytes as stored
// Everything else is selected as is. BINARY(n) values lose their trailing 0x00 bytes, as in row
// events (the server strips the pad bytes when it logs a row).
//
// Encoding allocates nothing: fixed-size values go into a per-column buffer, strings point at the
// field's bytes. Text that is not a valid value of the column throws Error(kProtocol) naming the
// column and the text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/cell.h"
#include "binlog/table_map.h"
#include "mapping/cell_bytes.h"

namespace rowbridge::mapping {

// The SELECT list item for `column` (`quoted_name` is its backtick-quoted name): the column
// itself, or an expression as listed above, aliased back to the column's name.
std::string TextSelectExpression(const binlog::ColumnDef& column, std::string_view quoted_name);

// `column` as a SELECT delivers it: MySQL's binary JSON arrives as JSON text (in the text and the
// binary protocol alike), so a JSON column reads as the LONGTEXT it prints as. Every other column
// is returned as it is.
binlog::ColumnDef SelectedColumn(const binlog::ColumnDef& column);

inline constexpr size_t kTextCellBufferSize = kCellBufferSize;

// Encodes one field of `column` into `cell`. `buffer` must outlive the cell's use; strings make the
// cell point into `text`. `context` (db.table.column) names the column in errors.
void EncodeTextCell(const binlog::ColumnDef& column, uint32_t index,
                    std::optional<std::string_view> text,
                    std::array<uint8_t, kTextCellBufferSize>& buffer, std::string_view context,
                    binlog::Cell& cell);

// The cells of a whole row, with a buffer per column kept between rows.
class TextRowEncoder {
 public:
  // `columns` must outlive the encoder (cells point at them); `table` is db.table for errors.
  TextRowEncoder(std::span<const binlog::ColumnDef> columns, std::string table);

  // `fields[i]` is the text of column i (nullopt = NULL). Returns cells valid until the next call
  // and while the fields' bytes live.
  std::span<const binlog::Cell> Encode(std::span<const std::optional<std::string_view>> fields);
  // The same, reading field i from `field(i)`, `is_null(i)` (e.g. a mysql::ResultSet).
  template <typename Row>
  std::span<const binlog::Cell> EncodeRow(const Row& row) {
    for (size_t i = 0; i < columns_.size(); ++i) {
      std::optional<std::string_view> text;
      if (!row.IsNull(i)) text = row.Field(i);
      EncodeTextCell(columns_[i], static_cast<uint32_t>(i), text, buffers_[i], contexts_[i],
                     cells_[i]);
    }
    return cells_;
  }

 private:
  std::span<const binlog::ColumnDef> columns_;
  std::vector<std::string> contexts_;
  std::vector<std::array<uint8_t, kTextCellBufferSize>> buffers_;
  std::vector<binlog::Cell> cells_;
};

}  // namespace rowbridge::mapping
