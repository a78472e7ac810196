// Array(T): cumulative end offsets (UInt64, one per row) followed by all elements of all rows in
// one nested column. To append a row, append its elements to nested() and call FinishRow().
#pragma once

#include <vector>

#include "clickhouse/columns/column.h"

namespace rowbridge::clickhouse {

class ColumnArray : public Column {
 public:
  explicit ColumnArray(ColumnPtr nested);

  Column& nested() { return *nested_; }
  const Column& nested() const { return *nested_; }
  template <typename T>
  T& nested_as() {
    return As<T>(*nested_);
  }
  // Ends the current row: it holds the elements appended to nested() since the last FinishRow.
  void FinishRow() { offsets_.push_back(nested_->Size()); }
  // [begin, end) of the row's elements in nested().
  std::pair<size_t, size_t> RowRange(size_t row) const;

  size_t Size() const override { return offsets_.size(); }
  void Clear() override;
  void Reserve(size_t rows) override { offsets_.reserve(rows); }
  size_t HeldBytes() const override {
    return offsets_.capacity() * sizeof(uint64_t) + nested_->HeldBytes();
  }
  void ReleaseMemory() override;
  void AppendDefault() override { FinishRow(); }  // an empty array
  void WritePrefix(WireWriter& out) const override { nested_->WritePrefix(out); }
  void WriteData(WireWriter& out) const override;
  void ReadPrefix(WireReader& in) override { nested_->ReadPrefix(in); }
  void ReadData(WireReader& in, size_t rows) override;
  // [e1,e2,...] with strings, dates, UUIDs and enum names in single quotes and NULL as NULL.
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override;

 private:
  ColumnPtr nested_;
  std::vector<uint64_t> offsets_;
};

}  // namespace rowbridge::clickhouse
