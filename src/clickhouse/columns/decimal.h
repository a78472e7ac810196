// Decimal(P, S) columns. ClickHouse stores the unscaled value (value * 10^S) as a two's complement
// integer whose width follows P: Decimal32 (P <= 9), Decimal64 (<= 18), Decimal128 (<= 38,
// __int128) and Decimal256 (<= 76, four 64-bit limbs).
//
// Every Append checks |unscaled| < 10^P and throws Error(kConversion) naming the type otherwise,
// because ClickHouse itself would store the out-of-range value without complaint.
#pragma once

#include <cstdint>
#include <string_view>

#include "clickhouse/columns/fixed_width.h"
#include "clickhouse/columns/wide_int.h"

namespace rowbridge::clickhouse {

// T is int32_t, int64_t, Int128 or Wide256.
template <typename T>
class ColumnDecimal : public FixedWidthColumn<T> {
 public:
  ColumnDecimal(uint32_t precision, uint32_t scale);
  uint32_t precision() const { return precision_; }
  uint32_t scale() const { return scale_; }

  void AppendUnscaled(int64_t unscaled);
  void AppendUnscaled(Int128 unscaled);
  void AppendUnscaled(const Wide256& unscaled);  // two's complement
  // Parses "[-|+]digits[.digits]" with at most scale() fractional digits (fewer are padded);
  // throws Error(kConversion) on malformed text or a value out of range.
  void AppendParsed(std::string_view text);

  T At(size_t row) const { return this->Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override {
    return std::make_unique<ColumnDecimal<T>>(precision_, scale_);
  }

 private:
  [[noreturn]] void OutOfRange(std::string_view value) const;
  uint32_t precision_;
  uint32_t scale_;
  Wide256 limit_;  // 10^precision
};

using ColumnDecimal32 = ColumnDecimal<int32_t>;
using ColumnDecimal64 = ColumnDecimal<int64_t>;
using ColumnDecimal128 = ColumnDecimal<Int128>;
using ColumnDecimal256 = ColumnDecimal<Wide256>;

}  // namespace rowbridge::clickhouse
