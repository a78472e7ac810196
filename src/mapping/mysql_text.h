// MySQL's text for a cell: what `SELECT col` shows in the mysql client, which is what String
// targets receive and what out-of-range messages quote. Short forms are rendered into a stack
// TextBuffer (no allocation); long ones append to a caller's reusable std::string.
//
//   integers      decimal, signed or unsigned per the column
//   FLOAT/DOUBLE  the shortest text that reads back as the same float/double (std::to_chars:
//                 "1.1", "-0", "1e+20")
//   DECIMAL       exact, `scale` fraction digits ("-0.50")
//   DATE          YYYY-MM-DD ("0000-00-00" kept)
//   DATETIME(f)   YYYY-MM-DD HH:MM:SS[.f digits]
//   TIMESTAMP(f)  the instant as a wall time in the given zone, same form; the zero timestamp
//                 is "0000-00-00 00:00:00[.000000]"
//   TIME(f)       [-]HH:MM:SS[.f digits], at least two hour digits
//   YEAR          four digits ("0000" for the zero year)
//   BIT           the number (as `SELECT bit_col + 0` shows)
//   ENUM          the label ('' for the error value 0); the index when labels are unknown
//   SET           labels joined by ',' in declaration order; the bitmask when labels are unknown
//   strings, BLOB the bytes as stored
//   JSON          MySQL's JSON text (binary JSON of MySQL; MariaDB's JSON is LONGTEXT)
//   GEOMETRY      WKB: the stored bytes without MySQL's 4-byte SRID prefix
//   VECTOR        [e1,e2,...] with shortest float text
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/cell.h"
#include "binlog/temporal.h"
#include "clickhouse/columns/wide_int.h"
#include "mapping/time_zone.h"

namespace rowbridge::mapping {

// A fixed-capacity text buffer on the stack. 80 bytes hold every fixed-size rendering above.
class TextBuffer {
 public:
  static constexpr size_t kCapacity = 80;
  void Push(char c) {
    if (size_ < kCapacity) data_[size_++] = c;
  }
  void Append(std::string_view s) {
    for (char c : s) Push(c);
  }
  // Zero-padded to at least `width` digits.
  void Digits(uint64_t v, int width);
  void Clear() { size_ = 0; }
  std::string_view view() const { return {data_, size_}; }

 private:
  char data_[kCapacity];
  size_t size_ = 0;
};

void FormatInteger(clickhouse::Int128 v, TextBuffer& out);
void FormatFloat(float v, TextBuffer& out);
void FormatDouble(double v, TextBuffer& out);
void FormatDate(const binlog::TemporalParts& parts, TextBuffer& out);
void FormatDateTime(const binlog::TemporalParts& parts, uint32_t fsp, TextBuffer& out);
void FormatTime(const binlog::TemporalParts& parts, uint32_t fsp, TextBuffer& out);

// Broken-down wall time of a TIMESTAMP in `zone` (the zero timestamp gives all-zero parts).
binlog::TemporalParts TimestampParts(const binlog::TimestampValue& ts, const TimeZone& zone);

// Decoded temporal values of a cell, whatever the storage format (old or "2" formats).
// Throw Error(kCorruption) on short cells and kInvalidArgument on a non-temporal column.
binlog::TemporalParts CellDateParts(const binlog::Cell& cell);      // DATE, NEWDATE
binlog::TemporalParts CellDateTimeParts(const binlog::Cell& cell);  // DATETIME, DATETIME2
binlog::TemporalParts CellTimeParts(const binlog::Cell& cell);      // TIME, TIME2
binlog::TimestampValue CellTimestamp(const binlog::Cell& cell);     // TIMESTAMP, TIMESTAMP2
// Fractional-second digits of a temporal column (0 for the old formats).
uint32_t TemporalFsp(const binlog::ColumnDef& column);

// Appends the MySQL text of any cell (NULL → "NULL"). Allocation is the caller's `out`.
void AppendMysqlText(const binlog::Cell& cell, const TimeZone& zone, std::string& out);

// "INT UNSIGNED", "DECIMAL(9,2)", "DATETIME(3)", "VARCHAR(400 bytes)", "ENUM('a','b')", ...
// for messages and docs; "NOT NULL" is not included.
std::string MysqlTypeName(const binlog::ColumnDef& column);

}  // namespace rowbridge::mapping
