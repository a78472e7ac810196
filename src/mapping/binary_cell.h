// Binary-protocol values as binlog Cells: the initial copy reads chunks through server-side
// prepared statements (mysql/prepared_statement.h), whose binary rows carry numbers as their
// stored bytes and temporal values as small structs. As with text_cell.h, each value is turned
// into the bytes a row event carries for the same stored value, so the ordinary converters give
// the same ClickHouse value as the binlog path, by construction:
//   integers        the low bytes of the little-endian value (MEDIUMINT arrives in 4 bytes),
//                   range-checked against the column's width and signedness
//   YEAR            2-byte year -> 1 byte (year - 1900, 0 for the zero year)
//   FLOAT, DOUBLE   the IEEE bytes as sent (exact: no text in between)
//   DECIMAL         its text, packed (mapping/cell_bytes.h)
//   DATE, DATETIME, TIMESTAMP   the y/m/d h:m:s.us struct -> DATE, DATETIME2, TIMESTAMP2 with
//                   the column's fsp; the session must have time_zone = '+00:00' (the struct is
//                   the UTC wall time of a TIMESTAMP)
//   TIME            the sign/days/h:m:s.us struct -> TIME2
//   BIT             its big-endian bytes as sent
//   ENUM, SET       selected as CAST(`c` AS UNSIGNED) (BinarySelectExpression): the index or
//                   bitmask as an integer (the binary protocol would send the label; `c` + 0 is
//                   a DOUBLE on MySQL and negative for a 64-member SET everywhere)
//   strings         bytes as stored (character_set_results must be binary); BINARY(n) without
//                   its trailing 0x00 bytes, as in row events
// A value the wire type cannot carry for the column, or outside the column's range, throws
// Error(kProtocol) naming the column. Encoding allocates nothing: cells point into the value
// bytes where those already are the cell, else into a per-column buffer.
#pragma once

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

// How the server sends a result column in binary rows: its MYSQL_TYPE_* code and whether an
// integer is unsigned (both from the result set's column definition).
struct WireColumn {
  uint8_t type = 0;
  bool is_unsigned = false;
  bool operator==(const WireColumn&) const = default;
};

// The SELECT list item for `column` (`quoted_name` is its backtick-quoted name) in a binary-
// protocol read: the column itself, or for ENUM and SET `CAST(c AS UNSIGNED) AS c`.
std::string BinarySelectExpression(const binlog::ColumnDef& column, std::string_view quoted_name);

// Throws Error(kProtocol) naming `context` if values sent as `wire` cannot be `column`'s values.
void CheckWireColumn(const binlog::ColumnDef& column, WireColumn wire, std::string_view context);

// Encodes one binary value (mysql/binary_row.h: the bytes without any length prefix; nullopt =
// NULL) of `column`, sent as `wire`, into `cell`. The cell points into `value` or `buffer`; both
// must outlive its use. `context` (db.table.column) names the column in errors.
void EncodeBinaryCell(const binlog::ColumnDef& column, WireColumn wire, uint32_t index,
                      std::optional<std::string_view> value, CellBuffer& buffer,
                      std::string_view context, binlog::Cell& cell);
// The same for a `wire` already accepted by CheckWireColumn (BinaryRowEncoder::Bind checks each
// column once per result set, not once per value).
void EncodeCheckedBinaryCell(const binlog::ColumnDef& column, WireColumn wire, uint32_t index,
                             std::optional<std::string_view> value, CellBuffer& buffer,
                             std::string_view context, binlog::Cell& cell);

// The cells of a whole row, with a buffer per column kept between rows.
class BinaryRowEncoder {
 public:
  // `columns` must outlive the encoder (cells point at them); `table` is db.table for errors.
  BinaryRowEncoder(std::span<const binlog::ColumnDef> columns, std::string table);

  // How the result set sends each column; checked with CheckWireColumn (and the count). Every
  // Encode until the next Bind reads values that way.
  void Bind(std::span<const WireColumn> wire);
  const std::vector<WireColumn>& wire() const { return wire_; }

  // `fields[i]` is the value of column i (nullopt = NULL). Returns cells valid until the next
  // call and while the fields' bytes live.
  std::span<const binlog::Cell> Encode(std::span<const std::optional<std::string_view>> fields);
  // The same, reading field i from `row.Field(i)`, `row.IsNull(i)` (e.g. a
  // mysql::BinaryResultSet).
  template <typename Row>
  std::span<const binlog::Cell> EncodeRow(const Row& row) {
    CheckBound();
    for (size_t i = 0; i < columns_.size(); ++i) {
      std::optional<std::string_view> value;
      if (!row.IsNull(i)) value = row.Field(i);
      EncodeCheckedBinaryCell(columns_[i], wire_[i], static_cast<uint32_t>(i), value, buffers_[i],
                              contexts_[i], cells_[i]);
    }
    return cells_;
  }

 private:
  void CheckBound() const;

  std::span<const binlog::ColumnDef> columns_;
  std::string table_;
  std::vector<std::string> contexts_;
  std::vector<WireColumn> wire_;
  std::vector<CellBuffer> buffers_;
  std::vector<binlog::Cell> cells_;
};

}  // namespace rowbridge::mapping
