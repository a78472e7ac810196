#include "common/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string_view>
#include <vector>

namespace rowbridge {
namespace {

using crc32_internal::FoldConstant;

uint32_t Zlib(uint32_t crc, const uint8_t* p, size_t n) {
  uLong c = crc;
  while (n > 0) {
    uInt chunk = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
    c = crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// The folding constants derived in crc32.h must equal the ones published for the reflected
// CRC-32 (Intel's "Fast CRC Computation Using PCLMULQDQ" paper and the implementations after it).
TEST(Crc32, DerivedConstantsMatchPublishedOnes) {
  static_assert(FoldConstant(4 * 128 + 32) == 0x154442bd4);
  static_assert(FoldConstant(4 * 128 - 32) == 0x1c6e41596);
  static_assert(FoldConstant(128 + 32) == 0x1751997d0);
  static_assert(FoldConstant(128 - 32) == 0x0ccaa009e);
  static_assert(FoldConstant(64) == 0x163cd6124);
  static_assert(crc32_internal::Reflect33((uint64_t{1} << 32) | 0x04C11DB7u) == 0x1db710641);
  static_assert(crc32_internal::Reflect33(crc32_internal::BarrettMu()) == 0x1f7011641);
  SUCCEED();
}

TEST(Crc32, KnownVectors) {
  std::string_view check = "123456789";
  EXPECT_EQ(Crc32(0, check.data(), check.size()), 0xCBF43926u);
  EXPECT_EQ(Crc32Portable(0, check.data(), check.size()), 0xCBF43926u);
  EXPECT_EQ(Crc32(0, nullptr, 0), 0u);
  EXPECT_EQ(Crc32(0x12345678u, nullptr, 0), 0x12345678u);
  std::string_view fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(Crc32(0, fox.data(), fox.size()), 0x414FA339u);
  std::vector<uint8_t> zeros(4096, 0), ones(4096, 0xFF);
  EXPECT_EQ(Crc32(0, zeros.data(), 32), 0x190A55ADu);
  EXPECT_EQ(Crc32(0, ones.data(), 32), 0xFF6CAB0Bu);
  for (size_t n : {64u, 100u, 4096u}) {
    EXPECT_EQ(Crc32(0, zeros.data(), n), Zlib(0, zeros.data(), n)) << n;
    EXPECT_EQ(Crc32(0, ones.data(), n), Zlib(0, ones.data(), n)) << n;
  }
}

TEST(Crc32, EveryLengthUpTo1024AtEveryAlignment) {
  std::vector<uint8_t> buf = RandomBytes(1024 + 16, 1);
  std::printf("hardware path: %s\n", Crc32HasHardwarePath() ? "yes" : "no");
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t n = 0; n <= 1024; ++n) {
      const uint8_t* p = buf.data() + offset;
      uint32_t seed = static_cast<uint32_t>(n * 2654435761u);
      ASSERT_EQ(Crc32(0, p, n), Zlib(0, p, n)) << "offset " << offset << " length " << n;
      ASSERT_EQ(Crc32(seed, p, n), Zlib(seed, p, n)) << "offset " << offset << " length " << n;
      ASSERT_EQ(Crc32Portable(seed, p, n), Zlib(seed, p, n))
          << "offset " << offset << " length " << n;
    }
  }
}

TEST(Crc32, RandomLengthsUpTo1MiB) {
  std::vector<uint8_t> buf = RandomBytes((1u << 20) + 16, 2);
  std::mt19937 rng(3);
  std::uniform_int_distribution<size_t> len(0, 1u << 20);
  for (int i = 0; i < 200; ++i) {
    size_t n = len(rng);
    size_t offset = rng() % 16;
    const uint8_t* p = buf.data() + offset;
    ASSERT_EQ(Crc32(0, p, n), Zlib(0, p, n)) << "offset " << offset << " length " << n;
  }
  EXPECT_EQ(Crc32(0, buf.data(), 1u << 20), Zlib(0, buf.data(), 1u << 20));
  EXPECT_EQ(Crc32Portable(0, buf.data(), 1u << 20), Zlib(0, buf.data(), 1u << 20));
}

TEST(Crc32, ChainedCallsEqualOneCall) {
  std::vector<uint8_t> buf = RandomBytes(5000, 4);
  uint32_t whole = Zlib(0, buf.data(), buf.size());
  std::mt19937 rng(5);
  for (size_t split = 0; split <= 300; ++split) {
    uint32_t a = Crc32(0, buf.data(), split);
    ASSERT_EQ(Crc32(a, buf.data() + split, buf.size() - split), whole) << "split " << split;
  }
  for (int i = 0; i < 300; ++i) {
    // Three pieces at random split points.
    size_t s1 = rng() % buf.size();
    size_t s2 = s1 + rng() % (buf.size() - s1 + 1);
    uint32_t c = Crc32(0, buf.data(), s1);
    c = Crc32(c, buf.data() + s1, s2 - s1);
    c = Crc32(c, buf.data() + s2, buf.size() - s2);
    ASSERT_EQ(c, whole) << "splits " << s1 << ", " << s2;
  }
}

}  // namespace
}  // namespace rowbridge
