// LowCardinality(String) and LowCardinality(Nullable(String)): a per-block dictionary of distinct
// values plus one index per row. Appending hashes the value into the dictionary (open addressing
// over indexes, so no allocation per value); Clear() empties both and keeps capacity.
//
// Native serialization (ClickHouse's "shared dictionaries with additional keys", as the server
// uses it for Native blocks, where no shared/global dictionary exists):
//   state prefix:  UInt64 key version = 1
//   data:          UInt64 index type | flags   (type 0..3 = UInt8..UInt64 indexes in the low
//                                                byte; bit 9 = has additional keys, bit 8 = need
//                                                global dictionary, bit 10 = update dictionary)
//                  UInt64 key count, the keys as a bulk String column
//                  UInt64 row count, the indexes (each 1/2/4/8 bytes)
// For the Nullable variant key 0 stands for NULL (its bytes, written as "", are ignored).
// ReadData also accepts the global-dictionary form (dictionary before the additional keys).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "clickhouse/columns/string.h"

namespace rowbridge::clickhouse {

class ColumnLowCardinalityString : public Column {
 public:
  explicit ColumnLowCardinalityString(bool nullable);
  bool nullable() const { return nullable_; }

  void Append(std::string_view value);
  // Throws Error(kInternal) unless the column is nullable.
  void AppendNull();
  bool IsNull(size_t row) const;
  // The row's value ("" for NULL; check IsNull).
  std::string_view At(size_t row) const;
  // Distinct entries so far, counting the NULL slot of the nullable variant.
  size_t DictionarySize() const { return dictionary_.Size(); }

  size_t Size() const override { return keys_.size(); }
  void Clear() override;
  void Reserve(size_t rows) override { keys_.reserve(rows); }
  size_t HeldBytes() const override {
    return dictionary_.HeldBytes() + (keys_.capacity() + slots_.capacity()) * sizeof(uint32_t);
  }
  void ReleaseMemory() override;
  void AppendDefault() override;
  void WritePrefix(WireWriter& out) const override;
  void WriteData(WireWriter& out) const override;
  void ReadPrefix(WireReader& in) override;
  void ReadData(WireReader& in, size_t rows) override;
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override {
    return std::make_unique<ColumnLowCardinalityString>(nullable_);
  }

 private:
  uint32_t Intern(std::string_view value);
  void Rehash(size_t slot_count);

  bool nullable_;
  ColumnString dictionary_;
  std::vector<uint32_t> keys_;   // dictionary index per row
  std::vector<uint32_t> slots_;  // open-addressing table: dictionary index + 1, 0 = empty
};

}  // namespace rowbridge::clickhouse
