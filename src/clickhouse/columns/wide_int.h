// Integer types wider than 64 bits as ClickHouse stores them: 128-bit values use the compiler's
// __int128 (little-endian in memory, exactly the wire layout), 256-bit values are four 64-bit
// limbs, least significant first (again the wire layout). Conversions to decimal text live here
// because the 256-bit ones need a long division nobody else should rewrite.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace rowbridge::clickhouse {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

// A 256-bit integer as four little-endian 64-bit limbs (limbs[0] is least significant). The same
// struct carries Int256 (two's complement), UInt256 and Decimal256's unscaled value.
struct Wide256 {
  std::array<uint64_t, 4> limbs{};
  bool operator==(const Wide256&) const = default;
  bool IsNegative() const { return limbs[3] >> 63; }
};

Wide256 Negate(const Wide256& v);
// v = v * multiplier + addend as an unsigned number; returns false (v unspecified) on overflow.
bool MulAdd(Wide256& v, uint64_t multiplier, uint64_t addend);
// Unsigned comparison: <0, 0, >0.
int CompareUnsigned(const Wide256& a, const Wide256& b);
// 10^exponent for exponent <= 77.
Wide256 Pow10Wide(uint32_t exponent);
Wide256 WideFromInt128(Int128 v);  // sign-extends

void AppendDecimalText(UInt128 v, std::string& out);
void AppendDecimalText(Int128 v, std::string& out);
// Unsigned or two's complement signed rendering of a 256-bit value.
void AppendDecimalText(const Wide256& v, bool is_signed, std::string& out);

}  // namespace rowbridge::clickhouse
