#include "mapping/label_converters.h"

#include "binlog/value_decoder.h"
#include "clickhouse/columns/array.h"
#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/string.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnType;
using clickhouse::Column;
using clickhouse::TypeCode;

[[noreturn]] void BadIndex(const Converter& c, uint64_t index) {
  Fail(ErrorCode::kCorruption, "{}: ENUM index {} but the column declares {} values", c.column,
       index, c.source.enum_values.size());
}

void EnumToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const uint16_t index = binlog::CellEnumIndex(cell);
  if (index > c.source.enum_values.size()) BadIndex(c, index);
  PutText(c, cell, column, index == 0 ? std::string_view() : c.source.enum_values[index - 1]);
}

template <typename T>
void EnumToEnum(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const uint16_t index = binlog::CellEnumIndex(cell);
  if (index >= c.enum_values.size()) BadIndex(c, index);
  if (index == 0 && !c.enum_zero_valid) [[unlikely]]
    c.OutOfRange(RangeRule::kInvalidEnum, cell,
                 "MySQL's error value '' (index 0) is not declared by the target",
                 "the target's smallest value");
  static_cast<clickhouse::ColumnEnum<T>&>(column).Append(c.enum_values[index]);
}

// The labels of the members set in `bits`, comma-separated (bits beyond the declared members are
// ignored).
void AppendSetText(const std::vector<std::string>& labels, uint64_t bits, std::string& out) {
  bool first = true;
  for (size_t i = 0; bits != 0 && i < labels.size(); ++i, bits >>= 1) {
    if (bits & 1) {
      if (!first) out.push_back(',');
      out.append(labels[i]);
      first = false;
    }
  }
}

void SetToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch& scratch) {
  const uint64_t bits = binlog::CellSetBits(cell);
  if (bits < c.set_texts.size()) [[likely]] {
    PutText(c, cell, column, c.set_texts[bits]);
    return;
  }
  scratch.text.clear();
  AppendSetText(c.source.set_values, bits, scratch.text);
  PutText(c, cell, column, scratch.text);
}

void SetToArray(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  uint64_t bits = binlog::CellSetBits(cell);
  auto& array = static_cast<clickhouse::ColumnArray&>(column);
  auto& strings = array.nested_as<clickhouse::ColumnString>();
  const auto& labels = c.source.set_values;
  for (size_t i = 0; bits != 0 && i < labels.size(); ++i, bits >>= 1) {
    if (bits & 1) strings.Append(labels[i]);
  }
  array.FinishRow();
}

bool SelectEnumTarget(Converter& c, std::string& why_not) {
  const auto& items = c.target.enum_items;
  if (items.empty()) {
    why_not = fmt::format("{} declares no values", c.target.name);
    return false;
  }
  int16_t smallest = items.front().second;
  for (const auto& item : items) smallest = std::min(smallest, item.second);
  c.enum_values.assign(c.source.enum_values.size() + 1, smallest);
  std::string missing;
  auto find = [&](std::string_view label, int16_t& value) {
    for (const auto& item : items) {
      if (item.first == label) {
        value = item.second;
        return true;
      }
    }
    return false;
  };
  c.enum_zero_valid = find("", c.enum_values[0]);
  for (size_t i = 0; i < c.source.enum_values.size(); ++i) {
    if (!find(c.source.enum_values[i], c.enum_values[i + 1])) {
      if (!missing.empty()) missing += ", ";
      missing += "'" + c.source.enum_values[i] + "'";
    }
  }
  if (!missing.empty()) {
    why_not = fmt::format("{} lacks the label(s) {}", c.target.name, missing);
    return false;
  }
  c.fn = c.target.code == TypeCode::kEnum8 ? &EnumToEnum<int8_t> : &EnumToEnum<int16_t>;
  return true;
}

}  // namespace

bool SelectLabelConverter(Converter& c, std::string& why_not) {
  const bool is_enum = c.source.type == ColumnType::kEnum;
  const auto& labels = is_enum ? c.source.enum_values : c.source.set_values;
  const bool wants_labels = c.text_sink != TextSink::kNone || c.target.code == TypeCode::kEnum8 ||
                            c.target.code == TypeCode::kEnum16 ||
                            (!is_enum && c.target.code == TypeCode::kArray &&
                             c.target.nested.at(0).code == TypeCode::kString);
  if (!wants_labels) {
    why_not = fmt::format("{} does not take {} labels", c.target.name, is_enum ? "ENUM" : "SET");
    return false;
  }
  if (labels.empty()) {
    why_not = fmt::format(
        "the {} labels are unknown: run the source with binlog_row_metadata=FULL or supply the "
        "column definitions",
        is_enum ? "ENUM" : "SET");
    return false;
  }
  if (c.text_sink != TextSink::kNone) {
    c.fn = is_enum ? &EnumToText : &SetToText;
    if (!is_enum && labels.size() <= Converter::kMaxPrecomputedSetMembers) {
      c.set_texts.resize(size_t{1} << labels.size());
      for (uint64_t bits = 0; bits < c.set_texts.size(); ++bits)
        AppendSetText(labels, bits, c.set_texts[bits]);
    }
    return true;
  }
  if (is_enum && (c.target.code == TypeCode::kEnum8 || c.target.code == TypeCode::kEnum16))
    return SelectEnumTarget(c, why_not);
  if (!is_enum && c.target.code == TypeCode::kArray) {
    c.fn = &SetToArray;
    return true;
  }
  why_not = fmt::format("{} does not take {} labels", c.target.name, is_enum ? "ENUM" : "SET");
  return false;
}

}  // namespace rowbridge::mapping
