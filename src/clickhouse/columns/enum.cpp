#include "clickhouse/columns/enum.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {

template <typename T>
ColumnEnum<T>::ColumnEnum(EnumItems items)
    : FixedWidthColumn<T>(FormatTypeName(
          MakeEnum(std::is_same_v<T, int8_t> ? TypeCode::kEnum8 : TypeCode::kEnum16, items))),
      items_(std::move(items)) {
  std::sort(items_.begin(), items_.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [name, value] : items_) {
    if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max())
      Fail(ErrorCode::kInvalidArgument, "{}: value {} out of range", this->type_name(), value);
  }
  name_order_.resize(items_.size());
  for (size_t i = 0; i < items_.size(); ++i) name_order_[i] = i;
  std::sort(name_order_.begin(), name_order_.end(),
            [this](size_t a, size_t b) { return items_[a].first < items_[b].first; });
}

template <typename T>
void ColumnEnum<T>::Append(int16_t value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), value,
                             [](const auto& item, int16_t v) { return item.second < v; });
  if (it == items_.end() || it->second != value)
    Fail(ErrorCode::kConversion, "{} has no value {}", this->type_name(), value);
  this->AppendRaw(static_cast<T>(value));
}

template <typename T>
void ColumnEnum<T>::AppendName(std::string_view name) {
  auto it = std::lower_bound(
      name_order_.begin(), name_order_.end(), name,
      [this](size_t i, std::string_view n) { return std::string_view(items_[i].first) < n; });
  if (it == name_order_.end() || items_[*it].first != name)
    Fail(ErrorCode::kConversion, "{} has no name '{}'", this->type_name(), name);
  this->AppendRaw(static_cast<T>(items_[*it].second));
}

template <typename T>
std::string_view ColumnEnum<T>::NameAt(size_t row) const {
  T value = this->Raw(row);
  auto it = std::lower_bound(items_.begin(), items_.end(), value,
                             [](const auto& item, int16_t v) { return item.second < v; });
  if (it == items_.end() || it->second != value)
    Fail(ErrorCode::kCorruption, "{} column holds undeclared value {} at row {}", this->type_name(),
         static_cast<int>(value), row);
  return it->first;
}

template class ColumnEnum<int8_t>;
template class ColumnEnum<int16_t>;

ColumnBool::ColumnBool() : FixedWidthColumn<uint8_t>("Bool") {}

}  // namespace rowbridge::clickhouse
