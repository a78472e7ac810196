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
