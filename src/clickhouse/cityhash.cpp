// CityHash v1.0.2 (Geoff Pike and Jyrki Alakuijala, Google, MIT licence), re-implemented from the
// published algorithm. Only the pieces CityHash128 needs are here. All arithmetic is modulo 2^64;
// reads are little-endian and unaligned (memcpy), as in the reference on x86-64.
#include "clickhouse/cityhash.h"

#include <cstring>
#include <utility>

namespace rowbridge::clickhouse {
namespace {

constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404fULL;
constexpr uint64_t kK3 = 0xc949d7c7509e6557ULL;

struct Pair {
  uint64_t first;
  uint64_t second;
};

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Right rotation; a shift of 0 must not shift by 64 (undefined).
inline uint64_t RotateRight(uint64_t v, int shift) {
  return shift == 0 ? v : (v >> shift) | (v << (64 - shift));
}

inline uint64_t ShiftMix(uint64_t v) {
  return v ^ (v >> 47);
}

// Murmur-inspired 128 -> 64 bit reduction.
inline uint64_t Mix128To64(uint64_t low, uint64_t high) {
  constexpr uint64_t kMul = 0x9ddfea08eb382d69ULL;
  uint64_t a = (low ^ high) * kMul;
  a ^= a >> 47;
  uint64_t b = (high ^ a) * kMul;
  b ^= b >> 47;
  return b * kMul;
}

uint64_t HashUpTo16(const uint8_t* s, size_t len) {
  if (len > 8) {
    uint64_t first = Load64(s);
    uint64_t last = Load64(s + len - 8);
    // len is 9..16 here, so the rotation amount is never 0.
    return Mix128To64(first, RotateRight(last + len, static_cast<int>(len))) ^ last;
  }
  if (len >= 4) {
    uint64_t first = Load32(s);
    return Mix128To64(len + (first << 3), Load32(s + len - 4));
  }
  if (len > 0) {
    uint32_t lo = s[0];
    uint32_t mid = s[len >> 1];
    uint32_t hi = s[len - 1];
    uint32_t y = lo + (mid << 8);
    uint32_t z = static_cast<uint32_t>(len) + (hi << 2);
    return ShiftMix(y * kK2 ^ z * kK3) * kK2;
  }
  return kK2;
}

// Mixes 32 bytes (as four words) with two seeds into 16 bytes. Deliberately weak and fast.
Pair WeakMix32(uint64_t w, uint64_t x, uint64_t y, uint64_t z, uint64_t a, uint64_t b) {
  a += w;
  b = RotateRight(b + a + z, 21);
  uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

Pair WeakMix32(const uint8_t* s, uint64_t a, uint64_t b) {
  return WeakMix32(Load64(s), Load64(s + 8), Load64(s + 16), Load64(s + 24), a, b);
}

// The short-input path (under 128 bytes): City and Murmur combined.
CityHash128Value MurmurStyle(const uint8_t* s, size_t len, uint64_t a, uint64_t b) {
  uint64_t c;
  uint64_t d;
  if (len <= 16) {
    a = ShiftMix(a * kK1) * kK1;
    c = b * kK1 + HashUpTo16(s, len);
    d = ShiftMix(a + (len >= 8 ? Load64(s) : c));
  } else {
    c = Mix128To64(Load64(s + len - 8) + kK1, a);
    d = Mix128To64(b + len, c + Load64(s + len - 16));
    a += d;
    // Consumes 16 bytes per round while more than 0 bytes remain of (len - 16); the tail was
    // already folded into c and d above.
    size_t left = len - 16;
    while (true) {
      a ^= ShiftMix(Load64(s) * kK1) * kK1;
      a *= kK1;
      b ^= a;
      c ^= ShiftMix(Load64(s + 8) * kK1) * kK1;
      c *= kK1;
      d ^= c;
      s += 16;
      if (left <= 16) break;
      left -= 16;
    }
  }
  a = Mix128To64(a, c);
  b = Mix128To64(d, b);
  return {a ^ b, Mix128To64(b, a)};
}

// One 64-byte round of the long-input loop.
inline void LongRound(const uint8_t* s, uint64_t& x, uint64_t& y, uint64_t& z, Pair& v, Pair& w) {
  x = RotateRight(x + y + v.first + Load64(s + 16), 37) * kK1;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * kK1;
  x ^= w.second;
  y ^= v.first;
  z = RotateRight(z ^ w.first, 33);
  v = WeakMix32(s, v.second * kK1, x + w.first);
  w = WeakMix32(s + 32, z + w.second, y);
  std::swap(z, x);
}

CityHash128Value HashWithSeed(const uint8_t* s, size_t len, uint64_t seed_low, uint64_t seed_high) {
  if (len < 128) return MurmurStyle(s, len, seed_low, seed_high);

  uint64_t x = seed_low;
  uint64_t y = seed_high;
  uint64_t z = len * kK1;
  Pair v;
  Pair w;
  v.first = RotateRight(y ^ kK1, 49) * kK1 + Load64(s);
  v.second = RotateRight(v.first, 42) * kK1 + Load64(s + 8);
  w.first = RotateRight(y + z, 35) * kK1 + x;
  w.second = RotateRight(x + Load64(s + 88), 53) * kK1;

  do {
    LongRound(s, x, y, z, v, w);
    s += 64;
    LongRound(s, x, y, z, v, w);
    s += 64;
    len -= 128;
  } while (len >= 128);

  y += RotateRight(w.first, 37) * kK0 + z;
  x += RotateRight(v.first + z, 49) * kK0;
  // Up to four 32-byte chunks taken backwards from the end of the remaining tail. They may
  // overlap bytes already consumed by the loop; that is how v1.0.2 defines it.
  for (size_t done = 0; done < len;) {
    done += 32;
    y = RotateRight(y - x, 42) * kK0 + v.second;
    w.first += Load64(s + len - done + 16);
    x = RotateRight(x, 49) * kK0 + w.first;
    w.first += v.first;
    v = WeakMix32(s + len - done, v.first, v.second);
  }
  x = Mix128To64(x, v.first);
  y = Mix128To64(y, w.first);
  return {Mix128To64(x + v.second, w.second) + y, Mix128To64(x + w.second, y + v.second)};
}

}  // namespace

CityHash128Value CityHash128(const void* data, size_t size) {
  const auto* s = static_cast<const uint8_t*>(data);
  if (size >= 16) return HashWithSeed(s + 16, size - 16, Load64(s) ^ kK3, Load64(s + 8));
  if (size >= 8) {
    return HashWithSeed(nullptr, 0, Load64(s) ^ (size * kK0), Load64(s + size - 8) ^ kK1);
  }
  return HashWithSeed(s, size, kK0, kK1);
}

}  // namespace rowbridge::clickhouse
