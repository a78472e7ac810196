#include "clickhouse/columns/numeric.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <type_traits>

namespace rowbridge::clickhouse {
namespace {

template <typename T>
constexpr const char* NumberTypeName() {
  if constexpr (std::is_same_v<T, int8_t>) return "Int8";
  if constexpr (std::is_same_v<T, int16_t>) return "Int16";
  if constexpr (std::is_same_v<T, int32_t>) return "Int32";
  if constexpr (std::is_same_v<T, int64_t>) return "Int64";
  if constexpr (std::is_same_v<T, Int128>) return "Int128";
  if constexpr (std::is_same_v<T, uint8_t>) return "UInt8";
  if constexpr (std::is_same_v<T, uint16_t>) return "UInt16";
  if constexpr (std::is_same_v<T, uint32_t>) return "UInt32";
  if constexpr (std::is_same_v<T, uint64_t>) return "UInt64";
  if constexpr (std::is_same_v<T, UInt128>) return "UInt128";
  if constexpr (std::is_same_v<T, float>) return "Float32";
  if constexpr (std::is_same_v<T, double>) return "Float64";
}

// Reformats std::to_chars' shortest scientific output ("d.ddde±xx") the way ClickHouse's
// double-conversion setup prints it (see numeric.h).
template <typename F>
void AppendShortestFloat(F v, std::string& out) {
  if (std::isnan(v)) {
    out.append(std::signbit(v) ? "-nan" : "nan");
    return;
  }
  if (std::isinf(v)) {
    out.append(v < 0 ? "-inf" : "inf");
    return;
  }
  if (v == 0) {
    out.append(std::signbit(v) ? "-0" : "0");
    return;
  }
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view text(buf, result.ptr - buf);
  bool negative = text.front() == '-';
  if (negative) text.remove_prefix(1);
  size_t e_pos = text.find('e');
  std::string_view mantissa = text.substr(0, e_pos);
  int exponent = std::atoi(std::string(text.substr(e_pos + 1)).c_str());
  char digits[32];
  size_t digit_count = 0;
  for (char c : mantissa)
    if (c != '.') digits[digit_count++] = c;

  if (negative) out.push_back('-');
  if (exponent >= -6 && exponent < 21) {
    if (exponent < 0) {
      out.append("0.");
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out.append(digits, digit_count);
    } else {
      size_t integer_digits = static_cast<size_t>(exponent) + 1;
      if (digit_count <= integer_digits) {
        out.append(digits, digit_count);
        out.append(integer_digits - digit_count, '0');
      } else {
        out.append(digits, integer_digits);
        out.push_back('.');
        out.append(digits + integer_digits, digit_count - integer_digits);
      }
    }
  } else {
    out.push_back(digits[0]);
    if (digit_count > 1) {
      out.push_back('.');
      out.append(digits + 1, digit_count - 1);
    }
    out.push_back('e');
    out.append(std::to_string(exponent));
  }
}

}  // namespace

void AppendFloatText(double v, std::string& out) {
  AppendShortestFloat(v, out);
}
void AppendFloatText(float v, std::string& out) {
  AppendShortestFloat(v, out);
}

template <typename T>
ColumnNumber<T>::ColumnNumber() : FixedWidthColumn<T>(NumberTypeName<T>()) {}

template <typename T>
void ColumnNumber<T>::AppendText(size_t row, std::string& out) const {
  T v = this->Raw(row);
  if constexpr (std::is_floating_point_v<T>) {
    AppendFloatText(v, out);
  } else if constexpr (std::is_same_v<T, Int128> || std::is_same_v<T, UInt128>) {
    AppendDecimalText(v, out);
  } else {
    char buf[24];
    // Widened so int8_t/uint8_t print as numbers, not characters.
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    auto result = std::to_chars(buf, buf + sizeof buf, static_cast<Wide>(v));
    out.append(buf, result.ptr);
  }
}

template class ColumnNumber<int8_t>;
template class ColumnNumber<int16_t>;
template class ColumnNumber<int32_t>;
template class ColumnNumber<int64_t>;
template class ColumnNumber<Int128>;
template class ColumnNumber<uint8_t>;
template class ColumnNumber<uint16_t>;
template class ColumnNumber<uint32_t>;
template class ColumnNumber<uint64_t>;
template class ColumnNumber<UInt128>;
template class ColumnNumber<float>;
template class ColumnNumber<double>;

ColumnWide256::ColumnWide256(bool is_signed)
    : FixedWidthColumn<Wide256>(is_signed ? "Int256" : "UInt256"), is_signed_(is_signed) {}

void ColumnWide256::AppendText(size_t row, std::string& out) const {
  AppendDecimalText(Raw(row), is_signed_, out);
}

}  // namespace rowbridge::clickhouse
