#include "clickhouse/columns/wide_int.h"

#include <algorithm>

namespace rowbridge::clickhouse {

Wide256 Negate(const Wide256& v) {
  Wide256 r;
  uint64_t carry = 1;
  for (size_t i = 0; i < 4; ++i) {
    uint64_t inverted = ~v.limbs[i];
    r.limbs[i] = inverted + carry;
    carry = (carry && r.limbs[i] == 0) ? 1 : 0;
  }
  return r;
}

bool MulAdd(Wide256& v, uint64_t multiplier, uint64_t addend) {
  UInt128 carry = addend;
  for (auto& limb : v.limbs) {
    UInt128 product = static_cast<UInt128>(limb) * multiplier + carry;
    limb = static_cast<uint64_t>(product);
    carry = product >> 64;
  }
  return carry == 0;
}

int CompareUnsigned(const Wide256& a, const Wide256& b) {
  for (size_t i = 4; i-- > 0;) {
    if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
  }
  return 0;
}

Wide256 Pow10Wide(uint32_t exponent) {
  Wide256 v;
  v.limbs[0] = 1;
  for (uint32_t i = 0; i < exponent; ++i) MulAdd(v, 10, 0);
  return v;
}

Wide256 WideFromInt128(Int128 v) {
  Wide256 r;
  auto u = static_cast<UInt128>(v);
  r.limbs[0] = static_cast<uint64_t>(u);
  r.limbs[1] = static_cast<uint64_t>(u >> 64);
  uint64_t fill = v < 0 ? ~uint64_t{0} : 0;
  r.limbs[2] = fill;
  r.limbs[3] = fill;
  return r;
}

void AppendDecimalText(UInt128 v, std::string& out) {
  char digits[40];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  std::reverse(digits, digits + n);
  out.append(digits, n);
}

void AppendDecimalText(Int128 v, std::string& out) {
  if (v < 0) {
    out.push_back('-');
    // Negating in unsigned arithmetic is defined for the minimum value too.
    AppendDecimalText(UInt128{0} - static_cast<UInt128>(v), out);
  } else {
    AppendDecimalText(static_cast<UInt128>(v), out);
  }
}

void AppendDecimalText(const Wide256& value, bool is_signed, std::string& out) {
  Wide256 v = value;
  if (is_signed && v.IsNegative()) {
    out.push_back('-');
    v = Negate(v);
  }
  // Repeated division by 10^19 (the largest power of ten in 64 bits), most significant limb
  // first, collecting 19-digit chunks from the least significant end.
  constexpr uint64_t kChunk = 10'000'000'000'000'000'000ull;
  uint64_t chunks[6];
  size_t chunk_count = 0;
  auto is_zero = [&v] { return (v.limbs[0] | v.limbs[1] | v.limbs[2] | v.limbs[3]) == 0; };
  do {
    UInt128 remainder = 0;
    for (size_t i = 4; i-- > 0;) {
      UInt128 current = (remainder << 64) | v.limbs[i];
      v.limbs[i] = static_cast<uint64_t>(current / kChunk);
      remainder = current % kChunk;
    }
    chunks[chunk_count++] = static_cast<uint64_t>(remainder);
  } while (!is_zero());
  out.append(std::to_string(chunks[chunk_count - 1]));
  for (size_t i = chunk_count - 1; i-- > 0;) {
    std::string part = std::to_string(chunks[i]);
    out.append(19 - part.size(), '0');
    out.append(part);
  }
}

}  // namespace rowbridge::clickhouse
