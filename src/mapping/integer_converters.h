// Converters for integer-like MySQL values: TINYINT..BIGINT (signed or unsigned), YEAR, BIT(n),
// and the numbers behind ENUM (the 1-based index) and SET (the member bitmask), into
//   Int8..Int256, UInt8..UInt256  range-checked: integer_overflow / negative_to_unsigned, clamp
//                                 to the nearest bound; BIT(n) into a signed n-bit integer keeps
//                                 the bit pattern (BIT(64) b'1...1' → Int64 -1)
//   Float32, Float64              only when every source value is exact (≤ 24 / 53 bits)
//   Decimal(P, S)                 value * 10^S; decimal_overflow clamps to ±(10^P - 1)
//   Bool                          non-zero → true (MySQL's truth), TINYINT and BIT(1) only
//   String, LowCardinality(String), FixedString   decimal text (YEAR: four digits)
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

// Where the integer comes from.
enum class IntegerSource : uint8_t {
  kSigned,     // TINYINT..BIGINT (and unknown signedness)
  kUnsigned,   // ... UNSIGNED
  kBit,        // BIT(n), zero-extended
  kYear,       // YEAR: 0 or 1901..2155
  kEnumIndex,  // ENUM: 0..65535
  kSetBits,    // SET: 1..64 member bits
};

// The source kind of a plain integer, YEAR or BIT column.
IntegerSource IntegerSourceOf(const binlog::ColumnDef& column);

// Fills c.fn (and the range fields) for an integer-like source; returns false and sets why_not
// if the target cannot hold it. c.source, c.target and c.text_sink must be set.
bool SelectIntegerConverter(Converter& c, IntegerSource source, std::string& why_not);

// For other families whose values end up integers (DECIMAL(p,0), TIMESTAMP seconds):
// SetIntegerTargetRange sets c.min/c.max for an Int*/UInt* target (false for other targets);
// StoreInteger applies the integer_overflow / negative_to_unsigned rules to `v` and appends it.
bool SetIntegerTargetRange(Converter& c);
void StoreInteger(const Converter& c, const binlog::Cell& cell, clickhouse::Column& column,
                  clickhouse::Int128 v);

}  // namespace rowbridge::mapping
