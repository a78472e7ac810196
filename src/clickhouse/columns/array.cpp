#include "clickhouse/columns/array.h"

#include <algorithm>

#include "clickhouse/columns/nullable.h"

namespace rowbridge::clickhouse {
namespace {

// Whether ClickHouse quotes the element type inside an array's text form.
bool QuotedInArray(std::string_view type) {
  for (std::string_view wrapper : {"Nullable(", "LowCardinality("}) {
    while (type.starts_with(wrapper)) type = type.substr(wrapper.size());
  }
  for (std::string_view quoted :
       {"String", "FixedString", "Date", "DateTime", "UUID", "Enum8", "Enum16"}) {
    if (type.starts_with(quoted)) return true;
  }
  return false;
}

void AppendQuoted(std::string_view text, std::string& out) {
  out.push_back('\'');
  for (char c : text) {
    switch (c) {
      case '\'':
        out.append("\\'");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\0':
        out.append("\\0");
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
}

}  // namespace

ColumnArray::ColumnArray(ColumnPtr nested)
    : Column("Array(" + nested->type_name() + ")"), nested_(std::move(nested)) {}

std::pair<size_t, size_t> ColumnArray::RowRange(size_t row) const {
  CheckRow(row);
  return {row == 0 ? 0 : offsets_[row - 1], offsets_[row]};
}

void ColumnArray::Clear() {
  offsets_.clear();
  nested_->Clear();
}

void ColumnArray::ReleaseMemory() {
  std::vector<uint64_t>().swap(offsets_);
  nested_->ReleaseMemory();
}

void ColumnArray::WriteData(WireWriter& out) const {
  size_t elements = offsets_.empty() ? 0 : offsets_.back();
  if (nested_->Size() != elements)
    Fail(ErrorCode::kInternal, "{} column: offsets cover {} elements but nested has {}",
         type_name(), elements, nested_->Size());
  out.Bytes(offsets_.data(), offsets_.size() * sizeof(uint64_t));
  nested_->WriteData(out);
}

void ColumnArray::ReadData(WireReader& in, size_t rows) {
  uint64_t base = offsets_.empty() ? 0 : offsets_.back();
  uint64_t previous = 0;
  offsets_.reserve(offsets_.size() + std::min<size_t>(rows, 65536));
  for (size_t i = 0; i < rows; ++i) {
    auto offset = in.Fixed<uint64_t>();
    if (offset < previous)
      Fail(ErrorCode::kCorruption, "{} column: offset {} of row {} is below the previous {}",
           type_name(), offset, i, previous);
    previous = offset;
    offsets_.push_back(base + offset);
  }
  if (previous > 0) nested_->ReadData(in, previous);
}

void ColumnArray::AppendText(size_t row, std::string& out) const {
  auto [begin, end] = RowRange(row);
  bool quoted = QuotedInArray(nested_->type_name());
  const auto* nullable = dynamic_cast<const ColumnNullable*>(nested_.get());
  std::string element;
  out.push_back('[');
  for (size_t i = begin; i < end; ++i) {
    if (i != begin) out.push_back(',');
    if (nullable != nullptr && nullable->IsNull(i)) {
      out.append("NULL");
      continue;
    }
    element.clear();
    nested_->AppendText(i, element);
    if (quoted) {
      AppendQuoted(element, out);
    } else {
      out.append(element);
    }
  }
  out.push_back(']');
}

ColumnPtr ColumnArray::CloneEmpty() const {
  return std::make_unique<ColumnArray>(nested_->CloneEmpty());
}

}  // namespace rowbridge::clickhouse
