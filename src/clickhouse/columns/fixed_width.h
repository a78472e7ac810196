// FixedWidthColumn<T>: the storage shared by every column whose values are fixed-size
// little-endian records (numbers, dates, UUID, Enum, Bool, Decimal): one contiguous vector that
// is also the wire image, so WriteData is a single append and ReadData a single read per chunk.
#pragma once

#include <algorithm>
#include <vector>

#include "clickhouse/columns/column.h"
#include "common/buffer_memory.h"

namespace rowbridge::clickhouse {

template <typename T>
class FixedWidthColumn : public Column {
 public:
  using Storage = std::vector<T, BufferAllocator<T>>;

  size_t Size() const override { return data_.size(); }
  void Clear() override { data_.clear(); }
  void Reserve(size_t rows) override { data_.reserve(rows); }
  size_t HeldBytes() const override { return HeldBufferBytes(data_.capacity() * sizeof(T)); }
  void ReleaseMemory() override { Storage().swap(data_); }
  void AppendDefault() override { data_.push_back(T{}); }

  void WriteData(WireWriter& out) const override {
    out.Bytes(data_.data(), data_.size() * sizeof(T));
  }
  bool ContiguousData(std::string_view& bytes) const override {
    bytes = {reinterpret_cast<const char*>(data_.data()), data_.size() * sizeof(T)};
    return true;
  }
  void ReadData(WireReader& in, size_t rows) override {
    // Grows in bounded chunks so a corrupt row count fails on the truncated read instead of
    // first allocating whatever the count claims.
    constexpr size_t kChunkRows = 65536;
    while (rows > 0) {
      size_t n = std::min(rows, kChunkRows);
      size_t old_size = data_.size();
      data_.resize(old_size + n);
      in.ReadExact(data_.data() + old_size, n * sizeof(T));
      rows -= n;
    }
  }

  // The raw stored value (for Date the day number, for DateTime the epoch second, ...).
  T Raw(size_t row) const {
    CheckRow(row);
    return data_[row];
  }
  const Storage& data() const { return data_; }
  Storage& mutable_data() { return data_; }

 protected:
  using Column::Column;
  void AppendRaw(T v) { data_.push_back(v); }

  Storage data_;
};

}  // namespace rowbridge::clickhouse
