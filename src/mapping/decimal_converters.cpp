#include "mapping/decimal_converters.h"

#include <charconv>
#include <cstring>

#include "binlog/decimal.h"
#include "clickhouse/columns/decimal.h"
#include "clickhouse/columns/numeric.h"
#include "mapping/integer_converters.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using clickhouse::Column;
using clickhouse::TypeCode;
using clickhouse::Wide256;

constexpr uint64_t kPow10[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};

Wide256 MinusOne(Wide256 v) {
  for (auto& limb : v.limbs) {
    if (limb-- != 0) break;
  }
  return v;
}

Wide256 FromBinlog(const binlog::Int256& v) {
  Wide256 w;
  std::memcpy(w.limbs.data(), v.limbs, sizeof(v.limbs));
  return w;
}

// Decimal text of magnitude / 10^scale, for messages.
std::string ScaledText(const Wide256& magnitude, bool negative, uint32_t scale) {
  std::string digits;
  clickhouse::AppendDecimalText(magnitude, false, digits);
  if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  if (scale > 0) digits.insert(digits.size() - scale, 1, '.');
  if (negative) digits.insert(0, 1, '-');
  return digits;
}

binlog::DecimalValue Decode(const Converter& c, const Cell& cell) {
  return binlog::DecodeDecimal(cell.data, cell.size, c.source.precision, c.source.scale);
}

template <typename T>
void ToDecimal(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  StoreDecimal<T>(c, cell, column, FromBinlog(Decode(c, cell).unscaled));
}

void ToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  if (c.source.precision <= binlog::kMaxSmallDecimalPrecision) {
    char text[binlog::kSmallDecimalTextSize];
    const size_t n =
        binlog::FormatSmallDecimal(cell.data, cell.size, c.source.precision, c.source.scale, text);
    PutText(c, cell, column, std::string_view(text, n));
    return;
  }
  scratch.text.clear();
  binlog::AppendDecimalText(cell.data, cell.size, c.source.precision, c.source.scale, scratch.text);
  PutText(c, cell, column, scratch.text);
}

void ToFloat64(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  scratch.text.clear();
  binlog::AppendDecimalText(cell.data, cell.size, c.source.precision, c.source.scale, scratch.text);
  double v = 0;
  const char* begin = scratch.text.data();
  const char* end = begin + scratch.text.size();
  auto result = std::from_chars(begin, end, v);
  if (result.ec != std::errc() || result.ptr != end)
    Fail(ErrorCode::kInternal, "{}: decimal text '{}' did not parse as a double", c.column,
         scratch.text);
  static_cast<clickhouse::ColumnFloat64&>(column).Append(v);
}

void ToInteger(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const binlog::DecimalValue value = Decode(c, cell);
  if (!value.unscaled.FitsIn(128)) [[unlikely]] {
    const bool negative = value.unscaled.IsNegative();
    const auto bound = negative ? c.min : c.max;
    TextBuffer bound_text;
    FormatInteger(bound, bound_text);
    c.OutOfRange(
        negative && c.min == 0 ? RangeRule::kNegativeToUnsigned : RangeRule::kIntegerOverflow, cell,
        "beyond the target's range", bound_text.view());
    StoreInteger(c, cell, column, bound);
    return;
  }
  auto low = static_cast<clickhouse::UInt128>(value.unscaled.limbs[0]) |
             (static_cast<clickhouse::UInt128>(value.unscaled.limbs[1]) << 64);
  StoreInteger(c, cell, column, static_cast<clickhouse::Int128>(low));
}

}  // namespace

bool SetupDecimalTarget(Converter& c, uint32_t source_scale, std::string& why_not) {
  if (c.target.scale < source_scale) {
    why_not = fmt::format("{} keeps {} fraction digits but {} has {}; rows would lose digits",
                          c.target.name, c.target.scale, c.source_type, source_scale);
    return false;
  }
  c.scale_up = c.target.scale - source_scale;
  c.decimal_limit = clickhouse::Pow10Wide(c.target.precision);
  return true;
}

template <typename T>
void StoreDecimal(const Converter& c, const Cell& cell, Column& column, Wide256 unscaled) {
  const bool negative = unscaled.IsNegative();
  Wide256 magnitude = negative ? clickhouse::Negate(unscaled) : unscaled;
  bool fits = true;
  for (uint32_t left = c.scale_up; left > 0 && fits;) {
    const uint32_t step = left < 19 ? left : 19;
    fits = clickhouse::MulAdd(magnitude, kPow10[step], 0);
    left -= step;
  }
  if (!fits || clickhouse::CompareUnsigned(magnitude, c.decimal_limit) >= 0) [[unlikely]] {
    magnitude = MinusOne(c.decimal_limit);
    c.OutOfRange(RangeRule::kDecimalOverflow, cell,
                 fmt::format("more than {} integer digits", c.target.precision - c.target.scale),
                 ScaledText(magnitude, negative, c.target.scale));
  }
  static_cast<clickhouse::ColumnDecimal<T>&>(column).AppendUnscaled(
      negative ? clickhouse::Negate(magnitude) : magnitude);
}

template void StoreDecimal<int32_t>(const Converter&, const Cell&, Column&, Wide256);
template void StoreDecimal<int64_t>(const Converter&, const Cell&, Column&, Wide256);
template void StoreDecimal<clickhouse::Int128>(const Converter&, const Cell&, Column&, Wide256);
template void StoreDecimal<Wide256>(const Converter&, const Cell&, Column&, Wide256);

bool SelectDecimalConverter(Converter& c, std::string& why_not) {
  if (c.source.precision < 1 || c.source.precision > binlog::kMaxDecimalPrecision ||
      c.source.scale > c.source.precision) {
    why_not = fmt::format("invalid DECIMAL({},{})", c.source.precision, c.source.scale);
    return false;
  }
  if (c.text_sink != TextSink::kNone) {
    c.fn = &ToText;
    return true;
  }
  switch (c.target.code) {
    case TypeCode::kDecimal32:
    case TypeCode::kDecimal64:
    case TypeCode::kDecimal128:
    case TypeCode::kDecimal256:
      if (!SetupDecimalTarget(c, c.source.scale, why_not)) return false;
      switch (c.target.code) {
        case TypeCode::kDecimal32:
          c.fn = &ToDecimal<int32_t>;
          break;
        case TypeCode::kDecimal64:
          c.fn = &ToDecimal<int64_t>;
          break;
        case TypeCode::kDecimal128:
          c.fn = &ToDecimal<clickhouse::Int128>;
          break;
        default:
          c.fn = &ToDecimal<Wide256>;
          break;
      }
      return true;
    case TypeCode::kFloat64:
      c.fn = &ToFloat64;
      return true;
    default:
      break;
  }
  if (SetIntegerTargetRange(c)) {
    if (c.source.scale != 0) {
      why_not =
          fmt::format("{} has fraction digits that {} would drop", c.source_type, c.target.name);
      return false;
    }
    c.fn = &ToInteger;
    return true;
  }
  why_not = fmt::format("{} does not take decimals", c.target.name);
  return false;
}

}  // namespace rowbridge::mapping
