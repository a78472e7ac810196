// Nullable(T): a null map (one UInt8 per row, 1 = NULL) followed by the nested column, which
// holds a default placeholder for every NULL row. On the wire the null map precedes the nested
// data; the nested column's state prefix (LowCardinality) comes first of all.
#pragma once

#include <vector>

#include "clickhouse/columns/column.h"
#include "common/buffer_memory.h"

namespace rowbridge::clickhouse {

class ColumnNullable : public Column {
 public:
  explicit ColumnNullable(ColumnPtr nested);

  Column& nested() { return *nested_; }
  const Column& nested() const { return *nested_; }
  template <typename T>
  T& nested_as() {
    return As<T>(*nested_);
  }

  // Appends NULL (and a default placeholder to the nested column).
  void AppendNull();
  // Marks the next row as not NULL; the caller appends exactly one value to nested() as well.
  // Example: col.AppendNotNull(); col.nested_as<ColumnString>().Append("x");
  void AppendNotNull() { null_map_.push_back(0); }
  bool IsNull(size_t row) const {
    CheckRow(row);
    return null_map_[row] != 0;
  }

  // Size() is the null map's length; nested().Size() must match before the block is written.
  size_t Size() const override { return null_map_.size(); }
  void Clear() override;
  void Reserve(size_t rows) override;
  size_t HeldBytes() const override {
    return HeldBufferBytes(null_map_.capacity()) + nested_->HeldBytes();
  }
  void ReleaseMemory() override;
  const Column* WriteDataHead(WireWriter& out) const override;
  void AppendDefault() override { AppendNull(); }
  void WritePrefix(WireWriter& out) const override { nested_->WritePrefix(out); }
  void WriteData(WireWriter& out) const override;
  void ReadPrefix(WireReader& in) override { nested_->ReadPrefix(in); }
  void ReadData(WireReader& in, size_t rows) override;
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override;

 private:
  ColumnPtr nested_;
  std::vector<uint8_t, BufferAllocator<uint8_t>> null_map_;
};

}  // namespace rowbridge::clickhouse
