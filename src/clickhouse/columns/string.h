// String and FixedString(N) columns.
//
// ColumnString keeps its values already in wire form (VarUInt length + bytes, back to back), so
// Append is a length byte and a copy and WriteData is one append. The end offset of every record,
// which At(row) needs, is indexed only when At is first called after appends (reading result
// blocks, tests), never on the insert path; so even const access is not thread-safe.
// ColumnFixedString(N) keeps N bytes per row; shorter values are padded with zero bytes (as
// ClickHouse does), longer ones are rejected with Error(kConversion).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/columns/byte_buffer.h"
#include "clickhouse/columns/column.h"

namespace rowbridge::clickhouse {

class ColumnString : public Column {
 public:
  ColumnString();

  void Append(std::string_view value) {
    const size_t n = value.size();
    char* const start = wire_.Room(n + 10);
    char* p = start;
    if (n < 0x80) [[likely]] {
      *p++ = static_cast<char>(n);
    } else {
      p = PutLongVarUInt(p, n);
    }
    CopyBytes(p, value.data(), n);  // copies nothing when empty (data() may be null)
    wire_.Commit(static_cast<size_t>(p - start) + n);
    ++rows_;
  }
  // The value of `row`; valid until the column is next modified.
  std::string_view At(size_t row) const;

  size_t Size() const override { return rows_; }
  void Clear() override;
  void Reserve(size_t rows) override { wire_.reserve(rows); }
  size_t HeldBytes() const override {
    return wire_.capacity() + ends_.capacity() * sizeof(uint64_t);
  }
  void ReleaseMemory() override;
  // Reserves room for `bytes` of string data across all future rows.
  void ReserveBytes(size_t bytes) { wire_.reserve(bytes); }
  void AppendDefault() override { Append({}); }
  void WriteData(WireWriter& out) const override { out.Bytes(wire_.data(), wire_.size()); }
  bool ContiguousData(std::string_view& bytes) const override {
    bytes = wire_.view();
    return true;
  }
  void ReadData(WireReader& in, size_t rows) override;
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnString>(); }

 private:
  // Writes `v` as a VarUInt at `p` (room for 10 bytes) and returns the end.
  static char* PutLongVarUInt(char* p, uint64_t v);
  // Extends ends_ to every row.
  void IndexRows() const;

  ByteBuffer wire_;  // VarUInt(length) + bytes per row
  size_t rows_ = 0;
  mutable std::vector<uint64_t> ends_;  // end offset in wire_ of each row's record, as indexed
};

class ColumnFixedString : public Column {
 public:
  explicit ColumnFixedString(size_t width);
  size_t width() const { return width_; }

  // Throws Error(kConversion) when value is longer than width().
  void Append(std::string_view value);
  // All width() bytes of the row, padding included.
  std::string_view At(size_t row) const;

  size_t Size() const override { return width_ == 0 ? 0 : data_.size() / width_; }
  void Clear() override { data_.clear(); }
  void Reserve(size_t rows) override { data_.reserve(rows * width_); }
  size_t HeldBytes() const override { return data_.capacity(); }
  void ReleaseMemory() override { std::string().swap(data_); }
  void AppendDefault() override { data_.append(width_, '\0'); }
  void WriteData(WireWriter& out) const override { out.Bytes(data_.data(), data_.size()); }
  bool ContiguousData(std::string_view& bytes) const override {
    bytes = data_;
    return true;
  }
  void ReadData(WireReader& in, size_t rows) override;
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnFixedString>(width_); }

 private:
  size_t width_;
  std::string data_;
};

}  // namespace rowbridge::clickhouse
