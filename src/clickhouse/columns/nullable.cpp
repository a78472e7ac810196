#include "clickhouse/columns/nullable.h"

#include <algorithm>

namespace rowbridge::clickhouse {

ColumnNullable::ColumnNullable(ColumnPtr nested)
    : Column("Nullable(" + nested->type_name() + ")"), nested_(std::move(nested)) {}

void ColumnNullable::AppendNull() {
  null_map_.push_back(1);
  nested_->AppendDefault();
}

void ColumnNullable::Clear() {
  null_map_.clear();
  nested_->Clear();
}

void ColumnNullable::ReleaseMemory() {
  decltype(null_map_)().swap(null_map_);
  nested_->ReleaseMemory();
}

void ColumnNullable::Reserve(size_t rows) {
  null_map_.reserve(rows);
  nested_->Reserve(rows);
}

const Column* ColumnNullable::WriteDataHead(WireWriter& out) const {
  if (nested_->Size() != null_map_.size())
    Fail(ErrorCode::kInternal, "{} column: {} null flags but {} nested values", type_name(),
         null_map_.size(), nested_->Size());
  out.Bytes(null_map_.data(), null_map_.size());
  return nested_.get();
}

void ColumnNullable::WriteData(WireWriter& out) const {
  WriteDataHead(out)->WriteData(out);
}

void ColumnNullable::ReadData(WireReader& in, size_t rows) {
  constexpr size_t kChunkRows = size_t{1} << 20;
  size_t remaining = rows;
  while (remaining > 0) {
    size_t n = std::min(remaining, kChunkRows);
    size_t old_size = null_map_.size();
    null_map_.resize(old_size + n);
    in.ReadExact(null_map_.data() + old_size, n);
    remaining -= n;
  }
  nested_->ReadData(in, rows);
}

void ColumnNullable::AppendText(size_t row, std::string& out) const {
  if (IsNull(row)) {
    out.append("\\N");
  } else {
    nested_->AppendText(row, out);
  }
}

ColumnPtr ColumnNullable::CloneEmpty() const {
  return std::make_unique<ColumnNullable>(nested_->CloneEmpty());
}

}  // namespace rowbridge::clickhouse
