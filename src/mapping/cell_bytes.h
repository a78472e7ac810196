// The bytes a row event carries for a value, built from the value's parts: what the text and the
// binary protocol encoders (text_cell.h, binary_cell.h) share, so both write the binlog formats
// from one implementation. Callers validate the parts' ranges first (month <= 12, minute <= 59,
// ...); these functions only pack.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "binlog/table_map.h"
#include "binlog/temporal.h"

namespace rowbridge::mapping {

// Largest binlog encoding of a fixed-size value: DECIMAL(65,30) takes 30 bytes.
inline constexpr size_t kCellBufferSize = 32;
using CellBuffer = std::array<uint8_t, kCellBufferSize>;

// Throws Error(kProtocol) "<context>: the source sent '<shown>' for a <TYPE> column: <why>".
[[noreturn]] void BadSourceValue(std::string_view context, const binlog::ColumnDef& column,
                                 std::string_view shown, std::string_view why);

// A string value's bytes as a row event carries them: BINARY(n) without its trailing 0x00 pad
// bytes (the server strips them when it logs a row), everything else as it is.
std::string_view RowEventBytes(const binlog::ColumnDef& column, std::string_view value);

void StoreLittleEndian(uint8_t* p, uint64_t v, size_t n);
void StoreBigEndian(uint8_t* p, uint64_t v, size_t n);

// DECIMAL text as the server prints it ("-123.45", "0.050") packed for column.precision and
// column.scale into `buffer`; returns the byte count. Throws BadSourceValue for text that is not
// a decimal number or does not fit the column.
size_t PackDecimalText(const binlog::ColumnDef& column, std::string_view text, CellBuffer& buffer,
                       std::string_view context);

// DATE: 3 bytes.
size_t PackDate(const binlog::TemporalParts& t, uint8_t* p);
// DATETIME2 with `fsp` fractional digits (microseconds beyond them are dropped).
size_t PackDateTime2(const binlog::TemporalParts& t, uint32_t fsp, uint8_t* p);
// Seconds since 1970-01-01 00:00:00 of a UTC wall time; 0 for the zero date (0000-00-00).
int64_t UtcSeconds(const binlog::TemporalParts& t);
// TIMESTAMP2 of `seconds` (0 .. 2^32-1).
size_t PackTimestamp2(uint64_t seconds, uint32_t microsecond, uint32_t fsp, uint8_t* p);
// TIME2 of [-]hour:minute:second.microsecond (hour <= 1023); `fsp` must be 0..6.
size_t PackTime2(bool negative, uint32_t hour, uint32_t minute, uint32_t second,
                 uint32_t microsecond, uint32_t fsp, uint8_t* p);

}  // namespace rowbridge::mapping
