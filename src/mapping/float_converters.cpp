#include "mapping/float_converters.h"

#include <charconv>
#include <cmath>

#include "binlog/value_decoder.h"
#include "clickhouse/columns/numeric.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

// Exact doubles 1e0..1e22 (every power of ten up to 10^22 fits a double's 53-bit mantissa).
constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

}  // namespace

// Clinger's fast path: the digits form an integer m < 2^53 and the power of ten is at most
// 10^22, so m and 10^k are exact doubles and the single rounding of one multiplication or
// division is the correctly rounded result, as from_chars computes it.
bool ParseShortDecimal(std::string_view text, double& out) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  uint64_t mantissa = 0;
  int digits = 0;
  int exponent = 0;
  bool any = false;
  for (; p != end && *p >= '0' && *p <= '9'; ++p, any = true) {
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
    if (mantissa != 0) ++digits;
  }
  if (p != end && *p == '.') {
    for (++p; p != end && *p >= '0' && *p <= '9'; ++p, any = true) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
      if (mantissa != 0) ++digits;
      --exponent;
    }
  }
  if (!any || digits > 15) return false;  // 10^15 < 2^53: the mantissa is exact
  if (p != end && *p == 'e') {
    ++p;
    const bool negative_exponent = p != end && *p == '-';
    if (p != end && (*p == '-' || *p == '+')) ++p;
    int e = 0;
    const char* first = p;
    for (; p != end && *p >= '0' && *p <= '9' && e < 1000; ++p) e = e * 10 + (*p - '0');
    if (p == first) return false;
    exponent += negative_exponent ? -e : e;
  }
  if (p != end || exponent < -22 || exponent > 22) return false;
  double d = static_cast<double>(mantissa);
  d = exponent < 0 ? d / kExactPowersOfTen[-exponent] : d * kExactPowersOfTen[exponent];
  out = negative ? -d : d;
  return true;
}

bool ShortestFloatAsDouble(float f, double& out) {
  const double x = f;
  if (!(std::fabs(x) < 8388608.0)) return false;  // 2^23; also NaN
  for (int k = 0; k <= 4; ++k) {
    // x * 10^k is off the exact product by at most 2^23 * 10^4 * 2^-53 < 1e-5: so unless it is
    // that close to a half, its nearest integer is that of the exact product.
    const double scaled = x * kExactPowersOfTen[k];
    const double m = std::nearbyint(scaled);
    if (std::fabs(scaled - m) > 0.4999) return false;
    const double candidate = m / kExactPowersOfTen[k];
    if (static_cast<float>(candidate) == f) {
      out = candidate;
      return true;
    }
  }
  return false;
}

namespace {

using binlog::Cell;
using clickhouse::Column;
using clickhouse::TypeCode;

void FloatToFloat32(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnFloat32&>(column).Append(binlog::CellFloat(cell));
}

// Through the shortest decimal text: a FLOAT column holds 1.1 as far as every MySQL client can
// tell, and widening the binary float would show 1.100000023841858 instead.
void FloatToFloat64(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  char text[32];
  const float f = binlog::CellFloat(cell);
  double d = f;
  if (!ShortestFloatAsDouble(f, d)) {
    auto written = std::to_chars(text, text + sizeof(text), f);
    if (!ParseShortDecimal({text, static_cast<size_t>(written.ptr - text)}, d))
      std::from_chars(text, written.ptr, d);  // infinities/NaN cannot come from MySQL; d keeps f
  }
  static_cast<clickhouse::ColumnFloat64&>(column).Append(d);
}

void DoubleToFloat64(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnFloat64&>(column).Append(binlog::CellDouble(cell));
}

void FloatToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatFloat(binlog::CellFloat(cell), text);
  PutText(c, cell, column, text.view());
}

void DoubleToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatDouble(binlog::CellDouble(cell), text);
  PutText(c, cell, column, text.view());
}

}  // namespace

bool SelectFloatConverter(Converter& c, std::string& why_not) {
  const bool is_float = c.source.type == binlog::ColumnType::kFloat;
  if (c.text_sink != TextSink::kNone) {
    c.fn = is_float ? &FloatToText : &DoubleToText;
    return true;
  }
  if (c.target.code == TypeCode::kFloat64) {
    c.fn = is_float ? &FloatToFloat64 : &DoubleToFloat64;
    return true;
  }
  if (c.target.code == TypeCode::kFloat32 && is_float) {
    c.fn = &FloatToFloat32;
    return true;
  }
  why_not = is_float ? fmt::format("{} does not take floating point numbers", c.target.name)
                     : fmt::format("{} cannot hold every DOUBLE exactly", c.target.name);
  return false;
}

}  // namespace rowbridge::mapping
