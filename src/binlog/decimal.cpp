#include "binlog/decimal.h"

#include <array>
#include <cstring>
#include <iterator>

#include "common/error.h"

namespace rowbridge::binlog {
namespace {

constexpr int kDigitsPerGroup = 9;
constexpr size_t kGroupBytes = 4;
// Bytes that hold a leftover group of n < 9 digits.
constexpr size_t kLeftoverBytes[kDigitsPerGroup + 1] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
constexpr uint32_t kPowersOfTen[kDigitsPerGroup + 1] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
// "00" "01" ... "99": the text of every two-digit number.
constexpr auto kDigitPairsTable = [] {
  std::array<char, 200> table{};
  for (int i = 0; i < 100; ++i) {
    table[static_cast<size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    table[static_cast<size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return table;
}();
constexpr const char* kDigitPairs = kDigitPairsTable.data();

void CheckPrecisionScale(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 || scale > kMaxDecimalScale ||
      scale > precision) {
    Fail(ErrorCode::kCorruption, "invalid DECIMAL({},{}): precision must be 1..65, scale 0..30",
         precision, scale);
  }
}

// Walks the stored groups most significant first, calling `visit(value, digits)` for each. The
// shape (which groups exist, how many digits each holds) depends only on precision and scale.
// Returns whether the value is negative.
template <typename Visitor>
bool WalkGroups(const uint8_t* data, size_t size, int precision, int scale, Visitor&& visit) {
  CheckPrecisionScale(precision, scale);
  const size_t needed = DecimalBinarySize(precision, scale);
  if (size < needed) {
    Fail(ErrorCode::kCorruption, "DECIMAL({},{}) needs {} bytes, got {}", precision, scale, needed,
         size);
  }
  const int int_digits = precision - scale;
  const int int_full = int_digits / kDigitsPerGroup;
  const int int_left = int_digits % kDigitsPerGroup;
  const int frac_full = scale / kDigitsPerGroup;
  const int frac_left = scale % kDigitsPerGroup;

  // The first bit is the sign, set for non-negative values; negative values are stored with
  // every bit inverted so that the bytes compare like the numbers.
  const bool negative = (data[0] & 0x80) == 0;
  size_t pos = 0;
  auto read_group = [&](size_t bytes, int digits) {
    // A group is a big-endian integer of 1 to 4 bytes; the first byte of the value carries the
    // sign bit, and a negative value has every bit inverted.
    uint32_t v = 0;
    switch (bytes) {
      case 4:
        v = (uint32_t{data[pos]} << 24) | (uint32_t{data[pos + 1]} << 16) |
            (uint32_t{data[pos + 2]} << 8) | data[pos + 3];
        break;
      case 3:
        v = (uint32_t{data[pos]} << 16) | (uint32_t{data[pos + 1]} << 8) | data[pos + 2];
        break;
      case 2:
        v = (uint32_t{data[pos]} << 8) | data[pos + 1];
        break;
      default:
        v = data[pos];
        break;
    }
    const unsigned shift = static_cast<unsigned>(8 * (bytes - 1));
    if (pos == 0) v ^= uint32_t{0x80} << shift;
    if (negative) v ^= static_cast<uint32_t>((uint64_t{1} << (8 * bytes)) - 1);
    pos += bytes;
    if (v >= kPowersOfTen[digits]) {
      Fail(ErrorCode::kCorruption,
           "DECIMAL({},{}): group of {} digits at byte {} holds {}, not a decimal group", precision,
           scale, digits, pos - bytes, v);
    }
    visit(v, digits);
  };
  if (int_left > 0) read_group(kLeftoverBytes[int_left], int_left);
  for (int i = 0; i < int_full; ++i) read_group(kGroupBytes, kDigitsPerGroup);
  for (int i = 0; i < frac_full; ++i) read_group(kGroupBytes, kDigitsPerGroup);
  if (frac_left > 0) read_group(kLeftoverBytes[frac_left], frac_left);
  return negative;
}

// 256-bit helpers on little-endian limbs. (__extension__ keeps -Wpedantic quiet about __int128.)
__extension__ typedef unsigned __int128 UInt128;

void MultiplyAdd(Int256& x, uint32_t multiplier, uint32_t addend) {
  UInt128 carry = addend;
  for (uint64_t& limb : x.limbs) {
    UInt128 product = static_cast<UInt128>(limb) * multiplier + carry;
    limb = static_cast<uint64_t>(product);
    carry = product >> 64;
  }
}

void Negate(Int256& x) {
  UInt128 carry = 1;
  for (uint64_t& limb : x.limbs) {
    UInt128 sum = static_cast<UInt128>(~limb) + carry;
    limb = static_cast<uint64_t>(sum);
    carry = sum >> 64;
  }
}

bool IsZero(const Int256& x) {
  return (x.limbs[0] | x.limbs[1] | x.limbs[2] | x.limbs[3]) == 0;
}

// Divides in place by `divisor`, returning the remainder.
uint32_t DivideSmall(Int256& x, uint32_t divisor) {
  UInt128 remainder = 0;
  for (int i = 3; i >= 0; --i) {
    UInt128 current = (remainder << 64) | x.limbs[i];
    x.limbs[i] = static_cast<uint64_t>(current / divisor);
    remainder = current % divisor;
  }
  return static_cast<uint32_t>(remainder);
}

// Writes exactly `digits` digits of v (zero-padded) at p; returns the end.
char* PutDigits(uint32_t v, int digits, char* p) {
  for (int i = digits - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return p + digits;
}

// Writes v without leading zeros at p; returns the end.
char* PutNumber(uint32_t v, char* p) {
  char buf[10];
  int n = 10;
  do {
    buf[--n] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  std::memcpy(p, buf + n, static_cast<size_t>(10 - n));
  return p + (10 - n);
}

}  // namespace

size_t DecimalBinarySize(int precision, int scale) {
  CheckPrecisionScale(precision, scale);
  const int int_digits = precision - scale;
  return static_cast<size_t>(int_digits / kDigitsPerGroup) * kGroupBytes +
         kLeftoverBytes[int_digits % kDigitsPerGroup] +
         static_cast<size_t>(scale / kDigitsPerGroup) * kGroupBytes +
         kLeftoverBytes[scale % kDigitsPerGroup];
}

bool Int256::FitsIn(int bits) const {
  if (bits >= 256) return true;
  // Representable iff every bit from bits-1 upwards equals the sign bit.
  const uint64_t fill = IsNegative() ? ~uint64_t{0} : 0;
  const int top_limb = (bits - 1) / 64;
  const int top_bit = (bits - 1) % 64;
  const uint64_t high_mask = ~uint64_t{0} << top_bit;  // bits top_bit..63 of top_limb
  if ((limbs[top_limb] & high_mask) != (fill & high_mask)) return false;
  for (int i = top_limb + 1; i < 4; ++i) {
    if (limbs[i] != fill) return false;
  }
  return true;
}

size_t FormatSmallDecimal(const uint8_t* data, size_t size, int precision, int scale, char* out) {
  if (precision > kMaxSmallDecimalPrecision)
    Fail(ErrorCode::kInvalidArgument, "DECIMAL({},{}) is not a small decimal", precision, scale);
  uint64_t magnitude = 0;
  const bool negative = WalkGroups(data, size, precision, scale, [&](uint32_t v, int digits) {
    magnitude = magnitude * kPowersOfTen[digits] + v;
  });
  // Digits are written backwards, two at a time, from the end of a scratch area, then moved to
  // `out`: the fraction's `scale` digits first, then what is left is the integer part. Only
  // divisions by constants (multiplications), none by 10^scale.
  char digits[kSmallDecimalTextSize];
  char* end = digits + sizeof(digits);
  char* p = end;
  auto put_pair = [&p](uint64_t two_digits) {
    p -= 2;
    std::memcpy(p, kDigitPairs + 2 * two_digits, 2);
  };
  uint64_t v = magnitude;
  int fraction_left = scale;
  for (; fraction_left >= 2; fraction_left -= 2) {
    put_pair(v % 100);
    v /= 100;
  }
  if (fraction_left == 1) {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  if (scale > 0) *--p = '.';
  for (; v >= 100; v /= 100) put_pair(v % 100);
  if (v >= 10) {
    put_pair(v);
  } else {
    *--p = static_cast<char>('0' + v);
  }
  if (negative) *--p = '-';
  const auto n = static_cast<size_t>(end - p);
  std::memcpy(out, p, n);
  return n;
}

void AppendDecimalText(const uint8_t* data, size_t size, int precision, int scale,
                       std::string& out) {
  if (precision <= kMaxSmallDecimalPrecision) {
    char text[kSmallDecimalTextSize];
    out.append(text, FormatSmallDecimal(data, size, precision, scale, text));
    return;
  }
  const int int_digits = precision - scale;
  // The text is built on the stack and appended once: a sign, at most 65 digits (plus up to 9
  // more if a corrupt leading group exceeds its digit count), a leading zero and the point. The
  // sign is only learned inside the walk, so its place is kept at [0].
  char text[kMaxDecimalPrecision + 32];
  char* p = text + 1;
  int int_seen = 0;
  bool leading = true;  // still skipping leading zeros of the integer part
  bool frac_started = false;
  const bool negative = WalkGroups(data, size, precision, scale, [&](uint32_t v, int digits) {
    if (int_seen < int_digits) {
      int_seen += digits;
      if (leading) {
        if (v == 0) return;
        p = PutNumber(v, p);
        leading = false;
      } else {
        p = PutDigits(v, digits, p);
      }
      return;
    }
    if (!frac_started) {
      if (leading) *p++ = '0';
      leading = false;
      *p++ = '.';
      frac_started = true;
    }
    p = PutDigits(v, digits, p);
  });
  if (leading) *p++ = '0';  // no fraction and an all-zero integer part
  text[0] = '-';
  const char* begin = negative ? text : text + 1;
  out.append(begin, static_cast<size_t>(p - begin));
}

std::string DecimalText(const uint8_t* data, size_t size, int precision, int scale) {
  std::string out;
  AppendDecimalText(data, size, precision, scale, out);
  return out;
}

DecimalValue DecodeDecimal(const uint8_t* data, size_t size, int precision, int scale) {
  DecimalValue value;
  value.scale = scale;
  const bool negative = WalkGroups(data, size, precision, scale, [&](uint32_t v, int digits) {
    MultiplyAdd(value.unscaled, kPowersOfTen[digits], v);
  });
  if (negative) Negate(value.unscaled);
  return value;
}

void AppendDecimalText(const DecimalValue& value, std::string& out) {
  if (value.scale < 0 || value.scale > kMaxDecimalScale) {
    Fail(ErrorCode::kInvalidArgument, "decimal scale {} is outside 0..30", value.scale);
  }
  Int256 magnitude = value.unscaled;
  const bool negative = magnitude.IsNegative();
  if (negative) Negate(magnitude);
  // At most 78 decimal digits in 256 bits.
  char digits[80];
  int n = 0;
  while (!IsZero(magnitude) || n <= value.scale) {
    digits[n++] = static_cast<char>('0' + DivideSmall(magnitude, 10));
  }
  if (negative) out.push_back('-');
  for (int i = n - 1; i >= 0; --i) {
    out.push_back(digits[i]);
    if (i == value.scale && i != 0) out.push_back('.');
  }
}

}  // namespace rowbridge::binlog
