// Enum8 / Enum16 columns: stored as Int8 / Int16 values; the type carries the name -> value map.
// Append(value) and AppendName(name) throw Error(kConversion) for a value or name the enum does
// not declare (ClickHouse would reject the whole INSERT). The default value is the smallest
// declared value, as ClickHouse's is.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clickhouse/columns/fixed_width.h"

namespace rowbridge::clickhouse {

using EnumItems = std::vector<std::pair<std::string, int16_t>>;

// T is int8_t (Enum8) or int16_t (Enum16).
template <typename T>
class ColumnEnum : public FixedWidthColumn<T> {
 public:
  explicit ColumnEnum(EnumItems items);
  const EnumItems& items() const { return items_; }  // sorted by value

  void Append(int16_t value);
  void AppendName(std::string_view name);
  void AppendDefault() override { this->AppendRaw(static_cast<T>(items_.front().second)); }
  T At(size_t row) const { return this->Raw(row); }
  // The declared name of the row's value; throws Error(kCorruption) for an undeclared value read
  // from the wire.
  std::string_view NameAt(size_t row) const;
  void AppendText(size_t row, std::string& out) const override { out.append(NameAt(row)); }
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnEnum<T>>(items_); }

 private:
  EnumItems items_;                 // sorted by value
  std::vector<size_t> name_order_;  // indexes into items_, sorted by name
};

using ColumnEnum8 = ColumnEnum<int8_t>;
using ColumnEnum16 = ColumnEnum<int16_t>;

// Bool (ClickHouse 21.12+): one byte, 0 or 1, printed as false/true.
class ColumnBool : public FixedWidthColumn<uint8_t> {
 public:
  ColumnBool();
  void Append(bool v) { AppendRaw(v ? 1 : 0); }
  bool At(size_t row) const { return Raw(row) != 0; }
  void AppendText(size_t row, std::string& out) const override {
    out.append(At(row) ? "true" : "false");
  }
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnBool>(); }
};

}  // namespace rowbridge::clickhouse
