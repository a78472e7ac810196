// DECIMAL: known encodings (from MariaDB binlogs) and a round-trip property test against a
// test-only encoder over random precisions, scales and digits.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "binlog/decimal.h"
#include "common/error.h"
#include "support/bytes.h"

namespace rowbridge::binlog {
namespace {

using ::rowbridge::testing::HexBytes;

// Test-only encoder: `int_digits` has exactly precision - scale digits, `frac_digits` exactly
// scale digits.
std::vector<uint8_t> Encode(bool negative, const std::string& int_digits,
                            const std::string& frac_digits) {
  static constexpr int kBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  std::vector<uint8_t> out;
  auto put = [&](std::string_view digits) {
    const uint32_t v = digits.empty() ? 0 : static_cast<uint32_t>(std::stoul(std::string(digits)));
    const int n = digits.size() == 9 ? 4 : kBytes[digits.size()];
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const size_t int_left = int_digits.size() % 9;
  if (int_left > 0) put(std::string_view(int_digits).substr(0, int_left));
  for (size_t i = int_left; i < int_digits.size(); i += 9)
    put(std::string_view(int_digits).substr(i, 9));
  const size_t frac_full = frac_digits.size() / 9 * 9;
  for (size_t i = 0; i < frac_full; i += 9) put(std::string_view(frac_digits).substr(i, 9));
  if (frac_full < frac_digits.size()) put(std::string_view(frac_digits).substr(frac_full));
  out[0] ^= 0x80;
  if (negative) {
    for (uint8_t& b : out) b = static_cast<uint8_t>(~b);
  }
  return out;
}

std::string TypedText(const std::vector<uint8_t>& bytes, int precision, int scale) {
  std::string out;
  AppendDecimalText(DecodeDecimal(bytes.data(), bytes.size(), precision, scale), out);
  return out;
}

TEST(BinlogDecimal, BinarySizes) {
  EXPECT_EQ(DecimalBinarySize(10, 2), 5u);
  EXPECT_EQ(DecimalBinarySize(65, 30), 30u);
  EXPECT_EQ(DecimalBinarySize(5, 0), 3u);
  EXPECT_EQ(DecimalBinarySize(4, 4), 2u);
  EXPECT_EQ(DecimalBinarySize(9, 9), 4u);
  EXPECT_EQ(DecimalBinarySize(1, 0), 1u);
  EXPECT_EQ(DecimalBinarySize(18, 9), 8u);
  EXPECT_EQ(DecimalBinarySize(65, 0), 29u);
  EXPECT_THROW(DecimalBinarySize(66, 0), Error);
  EXPECT_THROW(DecimalBinarySize(10, 11), Error);
  EXPECT_THROW(DecimalBinarySize(40, 31), Error);
  EXPECT_THROW(DecimalBinarySize(0, 0), Error);
}

TEST(BinlogDecimal, KnownValues) {
  struct Case {
    int precision, scale;
    const char* hex;
    const char* text;
  };
  const Case cases[] = {
      {10, 2, "7fffffffcd", "-0.50"},
      {10, 2, "8000000000", "0.00"},
      {5, 0, "800000", "0"},
      {5, 0, "7e7960", "-99999"},
      {4, 4, "84d2", "0.1234"},
      {4, 4, "58f0", "-0.9999"},
      {30, 10, "7ffffffffffffffffeffffffffff", "-1.0000000000"},
      {65, 30, "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe",
       "-0.000000000000000000000000000001"},
      {65, 30, "80bc614e35b7bf87350e34c02f075f79075bcd1500bc614e35b7bf87037a",
       "12345678901234567890123456789012345.123456789012345678901234567890"},
  };
  for (const Case& c : cases) {
    auto bytes = HexBytes(c.hex);
    EXPECT_EQ(DecimalText(bytes.data(), bytes.size(), c.precision, c.scale), c.text) << c.hex;
    EXPECT_EQ(TypedText(bytes, c.precision, c.scale), c.text) << c.hex;
  }
}

TEST(BinlogDecimal, TypedValueAndWidthChecks) {
  auto bytes = HexBytes("7fffffffcd");  // -0.50
  DecimalValue v = DecodeDecimal(bytes.data(), bytes.size(), 10, 2);
  EXPECT_EQ(v.scale, 2);
  EXPECT_EQ(v.unscaled.Low64(), -50);
  EXPECT_TRUE(v.unscaled.IsNegative());
  EXPECT_TRUE(v.unscaled.FitsIn(32));

  // 10^65 - 1 needs 216 bits.
  auto big = Encode(true, std::string(65, '9'), "");
  DecimalValue b = DecodeDecimal(big.data(), big.size(), 65, 0);
  EXPECT_FALSE(b.unscaled.FitsIn(128));
  EXPECT_TRUE(b.unscaled.FitsIn(256));
  EXPECT_EQ(TypedText(big, 65, 0), "-" + std::string(65, '9'));

  auto i64max = Encode(false, "0009223372036854775807", "");
  DecimalValue m = DecodeDecimal(i64max.data(), i64max.size(), 22, 0);
  EXPECT_TRUE(m.unscaled.FitsIn(64));
  EXPECT_FALSE(m.unscaled.FitsIn(32));
  EXPECT_EQ(m.unscaled.Low64(), INT64_MAX);
  auto over = Encode(false, "0009223372036854775808", "");
  EXPECT_FALSE(DecodeDecimal(over.data(), over.size(), 22, 0).unscaled.FitsIn(64));
  auto i64min = Encode(true, "0009223372036854775808", "");
  DecimalValue mn = DecodeDecimal(i64min.data(), i64min.size(), 22, 0);
  EXPECT_TRUE(mn.unscaled.FitsIn(64));
  EXPECT_EQ(mn.unscaled.Low64(), INT64_MIN);
}

TEST(BinlogDecimal, CorruptInputThrows) {
  auto bytes = HexBytes("80ffffffff");  // a 9-digit group holding 4294967295
  EXPECT_THROW(DecimalText(bytes.data(), bytes.size(), 10, 0), Error);
  EXPECT_THROW(DecimalText(bytes.data(), 4, 10, 2), Error);  // one byte short
  auto leftover = HexBytes("e4");  // DECIMAL(2,0) leftover byte holding 100
  EXPECT_THROW(DecimalText(leftover.data(), leftover.size(), 2, 0), Error);
  EXPECT_THROW(DecodeDecimal(bytes.data(), bytes.size(), 70, 0), Error);
}

TEST(BinlogDecimal, RandomRoundTrip) {
  std::mt19937_64 rng(20240601);
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const int precision = 1 + static_cast<int>(rng() % 65);
    const int max_scale = std::min(precision, 30);
    const int scale = static_cast<int>(rng() % (max_scale + 1));
    const bool negative = rng() % 2 == 0;
    std::string int_digits, frac_digits;
    // Mix dense digits with long runs of zeros (leading zeros are the tricky part).
    const int zero_bias = static_cast<int>(rng() % 4);
    auto digit = [&] {
      return rng() % 4 < static_cast<uint64_t>(zero_bias) ? '0'
                                                          : static_cast<char>('0' + rng() % 10);
    };
    for (int i = 0; i < precision - scale; ++i) int_digits.push_back(digit());
    for (int i = 0; i < scale; ++i) frac_digits.push_back(digit());
    auto bytes = Encode(negative, int_digits, frac_digits);
    ASSERT_EQ(bytes.size(), DecimalBinarySize(precision, scale));

    std::string trimmed =
        int_digits.substr(std::min(int_digits.find_first_not_of('0'), int_digits.size()));
    if (trimmed.empty()) trimmed = "0";
    std::string expected = trimmed + (scale > 0 ? "." + frac_digits : "");
    const bool is_zero = (int_digits + frac_digits).find_first_not_of('0') == std::string::npos;
    // The binary text keeps a stored negative zero's sign, as MySQL's decimal2string does.
    EXPECT_EQ(DecimalText(bytes.data(), bytes.size(), precision, scale),
              (negative ? "-" : "") + expected)
        << precision << "," << scale;
    EXPECT_EQ(TypedText(bytes, precision, scale), (negative && !is_zero ? "-" : "") + expected)
        << precision << "," << scale;
    const size_t significant = trimmed.size() + frac_digits.size();
    if (significant <= 18) {
      DecimalValue v = DecodeDecimal(bytes.data(), bytes.size(), precision, scale);
      ASSERT_TRUE(v.unscaled.FitsIn(64));
      int64_t want = std::stoll(trimmed + frac_digits);
      EXPECT_EQ(v.unscaled.Low64(), negative ? -want : want);
    }
  }
}

// DECIMAL(p <= 18, s) takes the 64-bit path (FormatSmallDecimal); every precision and scale of it,
// with values from all-zero to all-nine, must give the text the digit strings say.
TEST(BinlogDecimal, SmallDecimalsEveryPrecisionAndScale) {
  std::mt19937_64 rng(20261130);
  for (int precision = 1; precision <= kMaxSmallDecimalPrecision; ++precision) {
    for (int scale = 0; scale <= precision; ++scale) {
      for (int iteration = 0; iteration < 300; ++iteration) {
        const bool negative = rng() % 2 == 0;
        const int kind = iteration % 4;  // 0 zeros, 1 nines, 2 dense, 3 sparse
        auto digit = [&] {
          if (kind == 0) return '0';
          if (kind == 1) return '9';
          if (kind == 3 && rng() % 3 != 0) return '0';
          return static_cast<char>('0' + rng() % 10);
        };
        std::string int_digits, frac_digits;
        for (int i = 0; i < precision - scale; ++i) int_digits.push_back(digit());
        for (int i = 0; i < scale; ++i) frac_digits.push_back(digit());
        const auto bytes = Encode(negative, int_digits, frac_digits);
        std::string trimmed =
            int_digits.substr(std::min(int_digits.find_first_not_of('0'), int_digits.size()));
        if (trimmed.empty()) trimmed = "0";
        const std::string expected =
            (negative ? "-" : "") + trimmed + (scale > 0 ? "." + frac_digits : "");
        char text[kSmallDecimalTextSize];
        const size_t n = FormatSmallDecimal(bytes.data(), bytes.size(), precision, scale, text);
        ASSERT_EQ(std::string(text, n), expected) << precision << "," << scale;
        ASSERT_EQ(DecimalText(bytes.data(), bytes.size(), precision, scale), expected);
      }
    }
  }
  const auto bytes = Encode(false, std::string(19, '1'), "");
  EXPECT_THROW(
      {
        char text[kSmallDecimalTextSize];
        FormatSmallDecimal(bytes.data(), bytes.size(), 19, 0, text);
      },
      Error);
  auto corrupt = HexBytes("80ffffffff");  // a 9-digit group holding 4294967295
  char text[kSmallDecimalTextSize];
  EXPECT_THROW(FormatSmallDecimal(corrupt.data(), corrupt.size(), 10, 0, text), Error);
}

}  // namespace
}  // namespace rowbridge::binlog
