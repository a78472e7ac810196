// Block: what one Data packet carries — block info plus ordered, named, typed columns of equal
// length — and its native serialization.
//
// WriteBlock/ReadBlock handle the body of a Data packet after the (external) table name:
//   [BlockInfo if revision >= kRevisionWithBlockInfo]  VarUInt columns  VarUInt rows
//   per column: String name, String type,
//               [UInt8 custom serialization flag if revision >= kRevisionWithCustomSerialization],
//               column data (state prefix + bulk data) only when rows > 0.
// Revision 0 gives exactly clickhouse-client's `FORMAT Native` (no block info), which the tests
// use to exchange blocks with a real server without the protocol client.
//
// A Block is built once (e.g. from the header an INSERT's server sends, see EmptyLike) and
// reused: Clear() empties every column but keeps its buffers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/columns/column.h"
#include "clickhouse/compression.h"
#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {

inline constexpr uint64_t kRevisionWithBlockInfo = 51903;
inline constexpr uint64_t kRevisionWithCustomSerialization = 54454;

struct BlockInfo {
  bool is_overflows = false;
  int32_t bucket_num = -1;
  bool operator==(const BlockInfo&) const = default;
};

class Block {
 public:
  Block() = default;
  Block(Block&&) = default;
  Block& operator=(Block&&) = default;

  BlockInfo info;

  // Throws Error(kInvalidArgument) if a column of that name already exists.
  Column& AddColumn(std::string name, ColumnPtr column);
  template <typename T>
  T& AddColumn(std::string name, std::unique_ptr<T> column) {
    T& ref = *column;
    AddColumn(std::move(name), ColumnPtr(std::move(column)));
    return ref;
  }

  size_t ColumnCount() const { return columns_.size(); }
  // Rows of the block; throws Error(kInternal) naming the columns if their lengths differ.
  size_t RowCount() const;
  const std::string& Name(size_t index) const { return columns_.at(index).name; }
  Column& At(size_t index) { return *columns_.at(index).column; }
  const Column& At(size_t index) const { return *columns_.at(index).column; }
  // nullptr if absent.
  Column* Find(std::string_view name);
  // Throws Error(kInvalidArgument) naming the column if absent.
  Column& Get(std::string_view name);

  // Empties every column, keeping names, types and buffer capacity.
  void Clear();
  // The bytes the columns' buffers hold, and freeing them (Column::HeldBytes, ReleaseMemory).
  size_t HeldBytes() const;
  void ReleaseMemory();

  // A block with the same column names and types and no rows (e.g. from the sample block a
  // server sends before INSERT data).
  Block EmptyLike() const;

 private:
  struct NamedColumn {
    std::string name;
    ColumnPtr column;
  };
  std::vector<NamedColumn> columns_;
};

void WriteBlock(WireWriter& out, const Block& block, uint64_t revision);
// The same bytes, handed to a sink (a started FrameStream, or a socket): column data that sits in
// one buffer (Column::ContiguousData, also as a Nullable column's values) goes to the sink
// without a copy; everything else is serialized into `scratch` first. The caller Finish()es a
// FrameStream.
void WriteBlock(ByteSink& out, const Block& block, uint64_t revision, WireWriter& scratch);
// Throws Error(kCorruption) on malformed data, Error(kUnsupported) for column types we cannot
// read or for custom (sparse) serialization.
Block ReadBlock(WireReader& in, uint64_t revision);

}  // namespace rowbridge::clickhouse
