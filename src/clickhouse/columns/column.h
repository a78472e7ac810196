// Column: one ClickHouse column of a Block, holding its values in the native format's memory
// layout so that serializing a batch is (nearly) one memcpy. Concrete classes exist per type
// (numeric.h, string.h, date.h, decimal.h, uuid.h, enum.h, nullable.h, low_cardinality.h,
// array.h); CreateColumn (factory.h) builds one from a ClickHouse type name.
//
// Contract shared by every column:
//  - Appending a value never allocates per value: values go into contiguous buffers that grow
//    geometrically, and Clear() keeps their capacity so one column object serves batch after batch.
//  - WritePrefix/WriteData produce exactly what ClickHouse's native format expects for the column
//    body (the "state prefix" and the bulk data); only LowCardinality has a non-empty prefix.
//    ReadPrefix/ReadData are their inverse and append `rows` values to the column; they throw
//    Error(kCorruption) on malformed input and never read past what the reader can give.
//  - AppendText renders one value the way clickhouse-client prints it in TSV before escaping
//    (NULL as \N); DateTime values are rendered in UTC whatever the column's time zone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {

class Column;
using ColumnPtr = std::unique_ptr<Column>;

class Column {
 public:
  virtual ~Column() = default;
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;

  // The ClickHouse type name this column is sent as, e.g. "Nullable(String)".
  const std::string& type_name() const { return type_name_; }

  virtual size_t Size() const = 0;
  // Drops every value, keeping allocated capacity.
  virtual void Clear() = 0;
  virtual void Reserve(size_t rows) = 0;
  // The bytes its buffers hold (capacity, not size): what a reused column keeps between batches.
  virtual size_t HeldBytes() const = 0;
  // Drops every value and frees the buffers (after an outsized batch, e.g. one 100 MB row, whose
  // capacity would otherwise stay for the rest of the run). The column object stays, so pointers
  // to it remain valid.
  virtual void ReleaseMemory() = 0;
  // Appends the type's default value (0, "", 1970-01-01, the zero bytes of a FixedString, NULL
  // for Nullable, [] for Array): what ClickHouse fills in for a column an INSERT leaves out.
  virtual void AppendDefault() = 0;

  virtual void WritePrefix(WireWriter& out) const {}
  virtual void WriteData(WireWriter& out) const = 0;
  // Columns whose bulk data already sits in one buffer in wire form point `bytes` at it and
  // return true, so a block writer can hand it on without copying; the view is exactly what
  // WriteData writes and stays valid until the column is modified. Others return false.
  virtual bool ContiguousData(std::string_view& /*bytes*/) const { return false; }
  // A Nullable column's data is its null map followed by its nested column's data: it writes the
  // null map to `out` and returns the nested column, so that a block writer can hand a nested
  // column held in one buffer on without copying it. Others write nothing and return nullptr.
  virtual const Column* WriteDataHead(WireWriter& /*out*/) const { return nullptr; }
  virtual void ReadPrefix(WireReader& in) {}
  virtual void ReadData(WireReader& in, size_t rows) = 0;

  virtual void AppendText(size_t row, std::string& out) const = 0;
  std::string Text(size_t row) const {
    std::string s;
    AppendText(row, s);
    return s;
  }

  // A new, empty column of the same type.
  virtual ColumnPtr CloneEmpty() const = 0;

 protected:
  explicit Column(std::string type_name) : type_name_(std::move(type_name)) {}
  // Throws Error(kInternal) naming this column's type when row >= Size().
  void CheckRow(size_t row) const;

 private:
  std::string type_name_;
};

// Casts to a concrete column class, throwing Error(kInternal) naming both types on mismatch
// (callers pick the class from the type they created, so a mismatch is a bug, not bad input).
[[noreturn]] void FailWrongColumnClass(const Column& column, const char* wanted);

template <typename T>
T& As(Column& column) {
  if (auto* typed = dynamic_cast<T*>(&column)) return *typed;
  FailWrongColumnClass(column, typeid(T).name());
}
template <typename T>
const T& As(const Column& column) {
  if (auto* typed = dynamic_cast<const T*>(&column)) return *typed;
  FailWrongColumnClass(column, typeid(T).name());
}

}  // namespace rowbridge::clickhouse
