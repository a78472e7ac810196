// Plain number columns: Int8..Int256, UInt8..UInt256, Float32, Float64. Append(v) adds a value,
// At(row) reads one back.
#pragma once

#include <cstdint>

#include "clickhouse/columns/fixed_width.h"
#include "clickhouse/columns/wide_int.h"

namespace rowbridge::clickhouse {

// T is one of int8_t..int64_t, uint8_t..uint64_t, Int128, UInt128, float, double.
template <typename T>
class ColumnNumber : public FixedWidthColumn<T> {
 public:
  ColumnNumber();
  void Append(T v) { this->AppendRaw(v); }
  T At(size_t row) const { return this->Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnNumber<T>>(); }
};

using ColumnInt8 = ColumnNumber<int8_t>;
using ColumnInt16 = ColumnNumber<int16_t>;
using ColumnInt32 = ColumnNumber<int32_t>;
using ColumnInt64 = ColumnNumber<int64_t>;
using ColumnInt128 = ColumnNumber<Int128>;
using ColumnUInt8 = ColumnNumber<uint8_t>;
using ColumnUInt16 = ColumnNumber<uint16_t>;
using ColumnUInt32 = ColumnNumber<uint32_t>;
using ColumnUInt64 = ColumnNumber<uint64_t>;
using ColumnUInt128 = ColumnNumber<UInt128>;
using ColumnFloat32 = ColumnNumber<float>;
using ColumnFloat64 = ColumnNumber<double>;

// Int256 and UInt256 share the Wide256 storage; the class decides the signedness of the text.
class ColumnWide256 : public FixedWidthColumn<Wide256> {
 public:
  explicit ColumnWide256(bool is_signed);
  bool is_signed() const { return is_signed_; }
  void Append(const Wide256& v) { AppendRaw(v); }
  Wide256 At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnWide256>(is_signed_); }

 private:
  bool is_signed_;
};

// ClickHouse's text for floating point: the shortest representation that reads back exactly,
// fixed notation for decimal exponents -6..20, d.ddde<exp> outside ("1e21", "1e-7", no '+'),
// "inf", "-inf", "nan".
void AppendFloatText(double v, std::string& out);
void AppendFloatText(float v, std::string& out);

}  // namespace rowbridge::clickhouse
