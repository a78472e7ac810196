#include "common/crc32.h"

#include <array>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rowbridge {
namespace {

using crc32_internal::FoldConstant;

constexpr uint32_t kReflectedPoly = 0xEDB88320u;  // 0x04C11DB7 with its bits reversed

// kTables[0] is the classic byte-at-a-time table; kTables[k][b] is the CRC state change of byte b
// followed by k zero bytes, which lets the loop below consume 8 bytes per step independently.
constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kReflectedPoly : c >> 1;
    t[0][b] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr auto kTables = MakeTables();

inline uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// Advances the internal (not yet inverted) CRC state over `size` bytes, 8 at a time.
uint32_t UpdateTable(uint32_t state, const uint8_t* p, size_t size) {
  while (size >= 8) {
    uint32_t lo = LoadLe32(p) ^ state;
    uint32_t hi = LoadLe32(p + 4);
    state = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
            kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
            kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    size -= 8;
  }
  while (size > 0) {
    state = (state >> 8) ^ kTables[0][(state ^ *p) & 0xFF];
    ++p;
    --size;
  }
  return state;
}

#if defined(__x86_64__)

// Folding works on 128-bit values in reflected order (bit i of a register is the coefficient of
// x^(127-i)). Multiplying a 64-bit lane by FoldConstant(e) gives a value congruent (mod P) to the
// lane times x^(e+32); a register X = H*x^64 + L is moved forward by D bits as
// H * FoldConstant(D+32) + L * FoldConstant(D-32), where H is the low lane and L the high one.
constexpr uint64_t kFold512Lo = FoldConstant(4 * 128 + 32);
constexpr uint64_t kFold512Hi = FoldConstant(4 * 128 - 32);
constexpr uint64_t kFold128Lo = FoldConstant(128 + 32);
constexpr uint64_t kFold128Hi = FoldConstant(128 - 32);
constexpr uint64_t kFold64 = FoldConstant(64);
constexpr uint64_t kBarrettMu = crc32_internal::Reflect33(crc32_internal::BarrettMu());
constexpr uint64_t kBarrettPoly = crc32_internal::Reflect33((uint64_t{1} << 32) | 0x04C11DB7u);

#define ROWBRIDGE_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

ROWBRIDGE_CLMUL_TARGET inline __m128i Load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// x moved forward by the distance `k` was made for.
ROWBRIDGE_CLMUL_TARGET inline __m128i Fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// Advances the internal CRC state over `size` bytes; size is a multiple of 16 and at least 16.
ROWBRIDGE_CLMUL_TARGET uint32_t UpdateClmul(uint32_t state, const uint8_t* p, size_t size) {
  const __m128i k128 =
      _mm_set_epi64x(static_cast<int64_t>(kFold128Hi), static_cast<int64_t>(kFold128Lo));
  // The state is the remainder of everything before p; XOR-ing it onto the first 32 bits makes
  // the folded value congruent to the whole message so far.
  __m128i x0 = _mm_xor_si128(Load128(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  if (size >= 64) {
    const __m128i k512 =
        _mm_set_epi64x(static_cast<int64_t>(kFold512Hi), static_cast<int64_t>(kFold512Lo));
    __m128i x1 = Load128(p + 16);
    __m128i x2 = Load128(p + 32);
    __m128i x3 = Load128(p + 48);
    p += 64;
    size -= 64;
    while (size >= 64) {
      x0 = _mm_xor_si128(Fold(x0, k512), Load128(p));
      x1 = _mm_xor_si128(Fold(x1, k512), Load128(p + 16));
      x2 = _mm_xor_si128(Fold(x2, k512), Load128(p + 32));
      x3 = _mm_xor_si128(Fold(x3, k512), Load128(p + 48));
      p += 64;
      size -= 64;
    }
    x0 = _mm_xor_si128(Fold(x0, k128), x1);
    x0 = _mm_xor_si128(Fold(x0, k128), x2);
    x0 = _mm_xor_si128(Fold(x0, k128), x3);
  } else {
    p += 16;
    size -= 16;
  }
  while (size >= 16) {
    x0 = _mm_xor_si128(Fold(x0, k128), Load128(p));
    p += 16;
    size -= 16;
  }

  // The CRC state is X * x^32 mod P for the 128-bit X in x0.
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  // 128 -> 96 bits: H * x^128 + L * x^64 is congruent to X * x^64 and lands in bits 0..95 as a
  // 96-bit S with S congruent to X * x^32.
  __m128i t = _mm_xor_si128(_mm_clmulepi64_si128(x0, k128, 0x10), _mm_srli_si128(x0, 8));
  // 96 -> 64 bits: S = A * x^64 + B with A in bits 0..31; A * x^128 + B * x^64 lands in bits
  // 0..63 as a 64-bit T congruent to S.
  const __m128i k64 = _mm_set_epi64x(0, static_cast<int64_t>(kFold64));
  t = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(t, low32), k64, 0x00), _mm_srli_si128(t, 4));
  // Barrett: q = floor(floor(T / x^32) * mu / x^32), T mod P = T + q * P, in bits 32..63.
  const __m128i barrett =
      _mm_set_epi64x(static_cast<int64_t>(kBarrettMu), static_cast<int64_t>(kBarrettPoly));
  __m128i q = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, low32), barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(t, q), 1));
}

#undef ROWBRIDGE_CLMUL_TARGET

bool DetectClmul() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

// Dynamic initialization; a call made before it runs sees false and takes the table path, which
// gives the same result.
const bool kHasClmul = DetectClmul();

// Below this the fixed cost of the final reduction outweighs folding.
constexpr size_t kClmulMinSize = 64;

#endif  // defined(__x86_64__)

}  // namespace

uint32_t Crc32Portable(uint32_t crc, const void* data, size_t size) {
  return ~UpdateTable(~crc, static_cast<const uint8_t*>(data), size);
}

uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  auto* p = static_cast<const uint8_t*>(data);
  uint32_t state = ~crc;
#if defined(__x86_64__)
  if (kHasClmul && size >= kClmulMinSize) {
    size_t bulk = size & ~size_t{15};
    state = UpdateClmul(state, p, bulk);
    p += bulk;
    size -= bulk;
  }
#endif
  return ~UpdateTable(state, p, size);
}

bool Crc32HasHardwarePath() {
#if defined(__x86_64__)
  return kHasClmul;
#else
  return false;
#endif
}

}  // namespace rowbridge
