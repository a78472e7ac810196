// Rows of a binary-protocol result set (the answer to COM_STMT_EXECUTE). A row is a 0x00 header,
// a NULL bitmap of (columns + 9) / 8 bytes whose bit i + 2 marks column i NULL, then the values of
// the non-NULL columns, each in the form its column definition's MYSQL_TYPE_* code dictates:
//   TINY 1 byte; SHORT, YEAR 2; LONG, INT24, FLOAT 4; LONGLONG, DOUBLE 8 (all little-endian,
//   signedness from the column's UNSIGNED flag);
//   DATE, DATETIME, TIMESTAMP  a length byte (0, 4, 7 or 11) and that many bytes: year (2),
//                              month, day [, hour, minute, second [, microseconds (4)]];
//   TIME                       a length byte (0, 8 or 12): negative, days (4), hour, minute,
//                              second [, microseconds (4)];
//   NULL                       nothing;
//   everything else (DECIMAL as text, strings, BLOBs, BIT, ENUM, SET, JSON, GEOMETRY) a
//   length-encoded string.
//
// ParseBinaryRow gives each value's bytes without any length prefix: the fixed-size bytes as
// sent, the temporal struct (its size tells which form), the string's payload. Pure function over
// untrusted bytes: every read is bounds-checked and malformed input throws Error(kProtocol) naming
// `peer` and the column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "mysql/messages.h"

namespace rowbridge::mysql {

// The column definition flag that marks an unsigned integer column.
inline constexpr uint16_t kUnsignedFlag = 0x0020;

// Bytes of a fixed-size binary value of MYSQL_TYPE_* `type`; 0 for the length-prefixed forms.
size_t BinaryFixedSize(uint8_t type);

// True for a packet that is a binary row (starts with 0x00) rather than the end of the rows.
inline bool IsBinaryRow(std::string_view payload) {
  return !payload.empty() && payload[0] == '\0';
}

// Parses one binary row of `columns.size()` columns: fields[i] is the value's bytes and nulls[i]
// is 1 for SQL NULL (fields[i] is then empty). Both vectors must already have the column count as
// size; nothing is resized. Throws Error(kProtocol) on a malformed row (truncated value, a
// temporal length the protocol does not allow, bytes after the last value).
void ParseBinaryRow(std::string_view payload, std::span<const ColumnDefinition> columns,
                    std::vector<std::string_view>& fields, std::vector<uint8_t>& nulls,
                    std::string_view peer);

}  // namespace rowbridge::mysql
