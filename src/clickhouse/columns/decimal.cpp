#include "clickhouse/columns/decimal.h"

#include <type_traits>

#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {
namespace {

template <typename T>
constexpr uint32_t MaxPrecision() {
  if constexpr (std::is_same_v<T, int32_t>) return 9;
  if constexpr (std::is_same_v<T, int64_t>) return 18;
  if constexpr (std::is_same_v<T, Int128>) return 38;
  return 76;
}

template <typename T>
Wide256 ToWide(T v) {
  if constexpr (std::is_same_v<T, Wide256>) {
    return v;
  } else {
    return WideFromInt128(static_cast<Int128>(v));
  }
}

Wide256 Magnitude(const Wide256& v) {
  return v.IsNegative() ? Negate(v) : v;
}

}  // namespace

template <typename T>
ColumnDecimal<T>::ColumnDecimal(uint32_t precision, uint32_t scale)
    : FixedWidthColumn<T>(FormatTypeName(MakeDecimal(precision, scale))),
      precision_(precision),
      scale_(scale),
      limit_(Pow10Wide(precision)) {
  if (precision > MaxPrecision<T>() || (MaxPrecision<T>() > 9 && precision <= 9) ||
      (MaxPrecision<T>() > 18 && precision <= 18) || (MaxPrecision<T>() > 38 && precision <= 38))
    Fail(ErrorCode::kInternal, "Decimal({}, {}) does not use {}-byte storage", precision, scale,
         sizeof(T));
}

template <typename T>
void ColumnDecimal<T>::OutOfRange(std::string_view value) const {
  Fail(ErrorCode::kConversion, "value {} (unscaled) does not fit {}", value, this->type_name());
}

template <typename T>
void ColumnDecimal<T>::AppendUnscaled(int64_t unscaled) {
  uint64_t magnitude = unscaled < 0 ? 0 - static_cast<uint64_t>(unscaled) : unscaled;
  // For P >= 20, 10^P exceeds every int64 magnitude, and limit_ then has a non-zero upper limb.
  if ((limit_.limbs[1] | limit_.limbs[2] | limit_.limbs[3]) == 0 && magnitude >= limit_.limbs[0])
    OutOfRange(std::to_string(unscaled));
  this->AppendRaw(static_cast<T>(unscaled));
}

template <>
void ColumnDecimal<Wide256>::AppendUnscaled(int64_t unscaled) {
  AppendUnscaled(WideFromInt128(unscaled));
}

template <typename T>
void ColumnDecimal<T>::AppendUnscaled(Int128 unscaled) {
  AppendUnscaled(WideFromInt128(unscaled));
}

template <typename T>
void ColumnDecimal<T>::AppendUnscaled(const Wide256& unscaled) {
  if (CompareUnsigned(Magnitude(unscaled), limit_) >= 0) {
    std::string text;
    AppendDecimalText(unscaled, true, text);
    OutOfRange(text);
  }
  if constexpr (std::is_same_v<T, Wide256>) {
    this->AppendRaw(unscaled);
  } else {
    // In range means the value fits T; the low limbs carry it in two's complement.
    auto low = static_cast<UInt128>(unscaled.limbs[1]) << 64 | unscaled.limbs[0];
    this->AppendRaw(static_cast<T>(static_cast<Int128>(low)));
  }
}

template <typename T>
void ColumnDecimal<T>::AppendParsed(std::string_view text) {
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  size_t point = rest.find('.');
  std::string_view integer = rest.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? std::string_view{} : rest.substr(point + 1);
  auto all_digits = [](std::string_view digits) {
    for (char c : digits)
      if (c < '0' || c > '9') return false;
    return true;
  };
  if ((integer.empty() && fraction.empty()) || !all_digits(integer) || !all_digits(fraction))
    Fail(ErrorCode::kConversion, "'{}' is not a decimal number (for {})", text, this->type_name());
  // Digits beyond the scale must be zeros: dropping anything else would change the value.
  if (fraction.size() > scale_) {
    if (fraction.find_first_not_of('0', scale_) != std::string_view::npos)
      Fail(ErrorCode::kConversion, "'{}' has more than {} fractional digits (for {})", text, scale_,
           this->type_name());
    fraction = fraction.substr(0, scale_);
  }
  while (integer.size() > 1 && integer.front() == '0') integer.remove_prefix(1);
  size_t padding = scale_ - fraction.size();

  // Up to 18 significant digits fit an int64 exactly: the common case, without 256-bit math.
  if (integer.size() + scale_ <= 18) {
    int64_t v = 0;
    for (char c : integer) v = v * 10 + (c - '0');
    for (char c : fraction) v = v * 10 + (c - '0');
    for (size_t i = 0; i < padding; ++i) v *= 10;
    AppendUnscaled(negative ? -v : v);
    return;
  }
  Wide256 v;
  auto push = [&](uint64_t digit) {
    if (!MulAdd(v, 10, digit) || CompareUnsigned(v, limit_) >= 0)
      Fail(ErrorCode::kConversion, "'{}' does not fit {}", text, this->type_name());
  };
  for (char c : integer) push(static_cast<uint64_t>(c - '0'));
  for (char c : fraction) push(static_cast<uint64_t>(c - '0'));
  for (size_t i = 0; i < padding; ++i) push(0);
  AppendUnscaled(negative ? Negate(v) : v);
}

template <typename T>
void ColumnDecimal<T>::AppendText(size_t row, std::string& out) const {
  Wide256 v = ToWide(this->Raw(row));
  if (v.IsNegative()) {
    out.push_back('-');
    v = Negate(v);
  }
  std::string digits;
  AppendDecimalText(v, false, digits);
  if (digits.size() <= scale_) digits.insert(0, scale_ + 1 - digits.size(), '0');
  size_t integer_digits = digits.size() - scale_;
  out.append(digits, 0, integer_digits);
  if (scale_ > 0) {
    out.push_back('.');
    out.append(digits, integer_digits, scale_);
  }
}

template class ColumnDecimal<int32_t>;
template class ColumnDecimal<int64_t>;
template class ColumnDecimal<Int128>;
template class ColumnDecimal<Wide256>;

}  // namespace rowbridge::clickhouse
