// MySQL binary DECIMAL (NEWDECIMAL) values as stored in row events and in JSON opaque values.
//
// Layout (strings/decimal.c in the server): the integer part and the fraction are stored as
// big-endian groups of 9 decimal digits in 4 bytes, with a shorter group (1-4 bytes) for the
// leftover digits (integer leftover first, fraction leftover last). The first bit is the sign
// (set = positive); negative values have every byte inverted. The size depends only on
// (precision, scale), see DecimalBinarySize.
//
// Decoding never allocates; every function bounds-checks and throws Error(kCorruption) on bytes
// that do not form a decimal of the given precision/scale (short input, a 9-digit group >
// 999999999).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rowbridge::binlog {

// Largest precision and scale MySQL allows for DECIMAL.
inline constexpr int kMaxDecimalPrecision = 65;
inline constexpr int kMaxDecimalScale = 30;

// Bytes a DECIMAL(precision, scale) takes in the binlog. Throws Error(kCorruption) if
// precision/scale are out of range (precision 1..65, scale 0..min(30, precision)).
size_t DecimalBinarySize(int precision, int scale);

// Appends the exact decimal text as MySQL prints it: an optional '-', the integer digits without
// leading zeros (a single "0" when the integer part is zero), then '.' and exactly `scale`
// fraction digits when scale > 0. Examples: "-0.50", "0.00", "123.456", "-12". `size` must be at
// least DecimalBinarySize(precision, scale); extra bytes are ignored (only the prefix is read).
void AppendDecimalText(const uint8_t* data, size_t size, int precision, int scale,
                       std::string& out);
std::string DecimalText(const uint8_t* data, size_t size, int precision, int scale);

// The same text for DECIMAL(precision <= kMaxSmallDecimalPrecision, scale), whose value fits 64
// bits, written at `out` (kSmallDecimalTextSize bytes of room); returns its length. The fast path
// of AppendDecimalText, and of converters that write the text straight into a column.
constexpr int kMaxSmallDecimalPrecision = 18;
constexpr size_t kSmallDecimalTextSize = 24;
size_t FormatSmallDecimal(const uint8_t* data, size_t size, int precision, int scale, char* out);

// A signed 256-bit integer in two's complement, limbs[0] least significant. Wide enough for any
// 65-digit DECIMAL (10^65 < 2^216), the layout ClickHouse Decimal256 uses on the wire.
struct Int256 {
  uint64_t limbs[4] = {0, 0, 0, 0};

  bool IsNegative() const { return (limbs[3] >> 63) != 0; }
  // The low 32/64/128 bits, for Decimal32/64/128 targets; the caller checks FitsIn first.
  int32_t Low32() const { return static_cast<int32_t>(limbs[0]); }
  int64_t Low64() const { return static_cast<int64_t>(limbs[0]); }
  // True if the value is representable as a signed integer of `bits` (32, 64, 128 or 256) bits.
  bool FitsIn(int bits) const;
  bool operator==(const Int256&) const = default;
};

// value = unscaled / 10^scale.
struct DecimalValue {
  Int256 unscaled;
  int scale = 0;
  bool operator==(const DecimalValue&) const = default;
};

// Decodes into the unscaled integer; never allocates. Same input rules as AppendDecimalText.
DecimalValue DecodeDecimal(const uint8_t* data, size_t size, int precision, int scale);

// Decimal text of an unscaled value ("-0.50" style, as AppendDecimalText), for tests and
// formatting typed values.
void AppendDecimalText(const DecimalValue& value, std::string& out);

}  // namespace rowbridge::binlog
