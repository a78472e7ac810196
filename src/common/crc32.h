// CRC-32 as zlib, gzip and the MySQL/MariaDB binlog compute it: polynomial 0x04C11DB7, bits
// reflected, initial value and final XOR 0xFFFFFFFF.
//
// Crc32(crc, data, size) returns exactly what zlib's crc32(crc, data, size) returns, so calls
// chain: Crc32(Crc32(0, a, n), a + n, m) == Crc32(0, a, n + m). Start a fresh CRC with crc = 0.
// On x86-64 CPUs with PCLMULQDQ and SSE4.1 (checked at run time) inputs of 64 bytes and more are
// folded with carry-less multiplication; everything else uses a slicing-by-8 table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rowbridge {

uint32_t Crc32(uint32_t crc, const void* data, size_t size);

// The table-driven path alone, whatever the CPU; exposed so tests and benchmarks can compare.
uint32_t Crc32Portable(uint32_t crc, const void* data, size_t size);

// True when Crc32 uses the carry-less multiplication path on this CPU.
bool Crc32HasHardwarePath();

namespace crc32_internal {

// x^exponent mod P, with P = x^32 + 0x04C11DB7 in the usual (non-reflected) bit order:
// bit i holds the coefficient of x^i. Used to derive the folding constants.
constexpr uint32_t XPowModP(uint64_t exponent) {
  uint32_t r = 1;  // x^0
  for (uint64_t i = 0; i < exponent; ++i) {
    bool carry = (r & 0x80000000u) != 0;
    r <<= 1;
    if (carry) r ^= 0x04C11DB7u;
  }
  return r;
}

// A polynomial of degree <= 32 in the 33-bit reflected layout PCLMULQDQ works on here:
// bit j holds the coefficient of x^(32-j).
constexpr uint64_t Reflect33(uint64_t poly) {
  uint64_t r = 0;
  for (int j = 0; j <= 32; ++j) {
    if (poly & (uint64_t{1} << (32 - j))) r |= uint64_t{1} << j;
  }
  return r;
}

// The folding constant for x^exponent mod P: multiplying a reflected 64-bit lane by it yields a
// 128-bit reflected value congruent to the lane times x^(exponent + 32).
constexpr uint64_t FoldConstant(uint64_t exponent) {
  return Reflect33(XPowModP(exponent));
}

// floor(x^64 / P), degree 32, for Barrett reduction (in the usual bit order, 33 bits).
constexpr uint64_t BarrettMu() {
  // Long division of x^64 by P = x^32 + 0x04C11DB7. x^64 itself does not fit in 64 bits, so its
  // first step (quotient bit 32) is done by hand: x^64 - x^32 * P = x^32 * 0x04C11DB7.
  constexpr uint64_t kP = (uint64_t{1} << 32) | 0x04C11DB7u;
  uint64_t quotient = uint64_t{1} << 32;
  uint64_t rem = uint64_t{0x04C11DB7u} << 32;
  for (int deg = 63; deg >= 32; --deg) {
    if ((rem >> deg) & 1) {
      quotient |= uint64_t{1} << (deg - 32);
      rem ^= kP << (deg - 32);
    }
  }
  return quotient;
}

}  // namespace crc32_internal
}  // namespace rowbridge
