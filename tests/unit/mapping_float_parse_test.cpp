// ParseShortDecimal, the FLOAT → Float64 fast path, must give exactly the double from_chars
// gives for the shortest text of every float it accepts, and decline what it cannot do exactly.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "mapping/float_converters.h"

namespace rowbridge::mapping {
namespace {

// Checks one float; returns whether the fast path took it.
bool CheckFloat(float f) {
  char text[32];
  const auto written = std::to_chars(text, text + sizeof(text), f);
  const std::string_view view(text, static_cast<size_t>(written.ptr - text));
  double expected = f;
  std::from_chars(text, written.ptr, expected);
  double fast = 12345.0;
  if (!ParseShortDecimal(view, fast)) {
    EXPECT_EQ(fast, 12345.0) << view;  // left alone
    return false;
  }
  EXPECT_EQ(std::bit_cast<uint64_t>(fast), std::bit_cast<uint64_t>(expected)) << view;
  return true;
}

TEST(MappingFloatParse, MatchesFromCharsOnRandomFloats) {
  std::mt19937 rng(2024);
  size_t fast = 0;
  constexpr size_t kSamples = 300000;
  for (size_t i = 0; i < kSamples; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f) || std::isinf(f)) continue;
    fast += CheckFloat(f) ? 1 : 0;
  }
  EXPECT_GT(fast, 0u);
}

TEST(MappingFloatParse, MatchesFromCharsOnTypicalColumnValues) {
  // FLOAT(9,2)-like values, which is what the fast path exists for: all of them take it.
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int cents = static_cast<int>(rng() % 200000000) - 100000000;
    EXPECT_TRUE(CheckFloat(static_cast<float>(cents) / 100.0f));
  }
  for (float f : {0.0f, -0.0f, 1.1f, -0.25f, 3.4028235e38f, 1e-45f, 1.17549435e-38f, 16777216.0f,
                  1e20f, 1e22f, 1e23f, 123456.79f, 0.1f, 7e-10f})
    CheckFloat(f);
}

// ShortestFloatAsDouble must give exactly what the text route gives, whenever it answers.
bool CheckDirect(float f) {
  char text[32];
  const auto written = std::to_chars(text, text + sizeof(text), f);
  double expected = f;
  std::from_chars(text, written.ptr, expected);
  double direct = 12345.0;
  if (!ShortestFloatAsDouble(f, direct)) {
    EXPECT_EQ(direct, 12345.0);
    return false;
  }
  EXPECT_EQ(std::bit_cast<uint64_t>(direct), std::bit_cast<uint64_t>(expected))
      << std::string_view(text, static_cast<size_t>(written.ptr - text)) << " got " << direct;
  return true;
}

TEST(MappingFloatParse, DirectShortestDoubleMatchesTheTextRoute) {
  std::mt19937 rng(99);
  size_t taken = 0;
  // Random bit patterns (mostly declined: huge, tiny or many places)...
  for (int i = 0; i < 300000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (!std::isnan(f) && !std::isinf(f)) taken += CheckDirect(f) ? 1 : 0;
  }
  // ...every float near decimals with 0..4 places, and their neighbours, at every magnitude it
  // takes, including the edges of 2^23 and ties like x.5 and x.05.
  for (int places = 0; places <= 4; ++places) {
    const double scale = std::pow(10.0, places);
    for (int i = 0; i < 200000; ++i) {
      const double magnitude = std::pow(2.0, static_cast<double>(rng() % 2400) / 100.0 - 1.0);
      const double decimal = std::round(magnitude * scale) / scale * ((rng() & 1) ? -1 : 1);
      const float f = static_cast<float>(decimal);
      for (float g : {f, std::nextafter(f, 1e30f), std::nextafter(f, -1e30f)})
        taken += CheckDirect(g) ? 1 : 0;
    }
  }
  for (float f : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, 0.05f, 0.15f, 8388607.5f, 8388608.0f,
                  -8388607.0f, 1e-45f, 1.17549435e-38f, 0.1f, 1.1f, 123456.79f, 9999999.99f})
    CheckDirect(f);
  EXPECT_GT(taken, 500000u);
}

TEST(MappingFloatParse, SignedZeroAndDeclines) {
  double d = 1;
  ASSERT_TRUE(ParseShortDecimal("-0", d));
  EXPECT_TRUE(std::signbit(d));
  EXPECT_EQ(d, 0.0);
  ASSERT_TRUE(ParseShortDecimal("1.5e-07", d));
  EXPECT_EQ(d, 1.5e-07);
  ASSERT_TRUE(ParseShortDecimal("1e+22", d));
  EXPECT_EQ(d, 1e22);
  d = 7;
  for (const char* text : {"", "-", "e5", "1e", "1e+", "1.2.3", "inf", "nan", "1e23", "1e-23",
                           "1234567890123456", "1x", "0.00000000000000000000001"}) {
    EXPECT_FALSE(ParseShortDecimal(text, d)) << text;
    EXPECT_EQ(d, 7) << text;
  }
}

}  // namespace
}  // namespace rowbridge::mapping
