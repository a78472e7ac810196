#include "clickhouse/block.h"

#include "clickhouse/columns/factory.h"

namespace rowbridge::clickhouse {
namespace {

constexpr uint64_t kMaxColumns = 1'000'000;
constexpr size_t kMaxNameBytes = size_t{1} << 20;

void WriteBlockInfo(WireWriter& out, const BlockInfo& info) {
  out.VarUInt(1);
  out.Fixed<uint8_t>(info.is_overflows ? 1 : 0);
  out.VarUInt(2);
  out.Fixed<int32_t>(info.bucket_num);
  out.VarUInt(0);
}

BlockInfo ReadBlockInfo(WireReader& in) {
  BlockInfo info;
  while (uint64_t field = in.VarUInt()) {
    switch (field) {
      case 1:
        info.is_overflows = in.Fixed<uint8_t>() != 0;
        break;
      case 2:
        info.bucket_num = in.Fixed<int32_t>();
        break;
      default:
        Fail(ErrorCode::kCorruption, "ClickHouse block info: unknown field number {}", field);
    }
  }
  return info;
}

// Block info, column count and row count; returns the row count.
size_t WriteBlockHeader(WireWriter& out, const Block& block, uint64_t revision) {
  if (revision >= kRevisionWithBlockInfo) WriteBlockInfo(out, block.info);
  const size_t rows = block.RowCount();
  out.VarUInt(block.ColumnCount());
  out.VarUInt(rows);
  return rows;
}

void WriteColumnHeader(WireWriter& out, const std::string& name, const Column& column,
                       uint64_t revision) {
  out.String(name);
  out.String(column.type_name());
  if (revision >= kRevisionWithCustomSerialization) out.Fixed<uint8_t>(0);
}

}  // namespace

Column& Block::AddColumn(std::string name, ColumnPtr column) {
  if (Find(name) != nullptr)
    Fail(ErrorCode::kInvalidArgument, "ClickHouse block already has a column named {}", name);
  columns_.push_back({std::move(name), std::move(column)});
  return *columns_.back().column;
}

size_t Block::RowCount() const {
  if (columns_.empty()) return 0;
  size_t rows = columns_.front().column->Size();
  for (const auto& c : columns_) {
    if (c.column->Size() != rows)
      Fail(ErrorCode::kInternal, "ClickHouse block: column {} has {} rows but column {} has {}",
           c.name, c.column->Size(), columns_.front().name, rows);
  }
  return rows;
}

Column* Block::Find(std::string_view name) {
  for (auto& c : columns_)
    if (c.name == name) return c.column.get();
  return nullptr;
}

Column& Block::Get(std::string_view name) {
  if (Column* c = Find(name)) return *c;
  Fail(ErrorCode::kInvalidArgument, "ClickHouse block has no column named {}", name);
}

size_t Block::HeldBytes() const {
  size_t held = 0;
  for (const auto& c : columns_) held += c.column->HeldBytes();
  return held;
}

void Block::ReleaseMemory() {
  for (auto& c : columns_) c.column->ReleaseMemory();
}

void Block::Clear() {
  for (auto& c : columns_) c.column->Clear();
}

Block Block::EmptyLike() const {
  Block copy;
  copy.info = info;
  for (const auto& c : columns_) copy.columns_.push_back({c.name, c.column->CloneEmpty()});
  return copy;
}

void WriteBlock(WireWriter& out, const Block& block, uint64_t revision) {
  const size_t rows = WriteBlockHeader(out, block, revision);
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    const Column& column = block.At(i);
    WriteColumnHeader(out, block.Name(i), column, revision);
    if (rows > 0) {
      column.WritePrefix(out);
      column.WriteData(out);
    }
  }
}

void WriteBlock(ByteSink& out, const Block& block, uint64_t revision, WireWriter& scratch) {
  scratch.Clear();
  const size_t rows = WriteBlockHeader(scratch, block, revision);
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    const Column& column = block.At(i);
    WriteColumnHeader(scratch, block.Name(i), column, revision);
    if (rows == 0) continue;
    column.WritePrefix(scratch);
    const Column* data_column = &column;
    if (const Column* nested = column.WriteDataHead(scratch)) data_column = nested;
    std::string_view data;
    if (data_column->ContiguousData(data)) {
      out.Append(scratch.data());
      scratch.Clear();
      out.Append(data);
    } else {
      data_column->WriteData(scratch);
    }
  }
  out.Append(scratch.data());
  scratch.Clear();
}

Block ReadBlock(WireReader& in, uint64_t revision) {
  Block block;
  if (revision >= kRevisionWithBlockInfo) block.info = ReadBlockInfo(in);
  uint64_t column_count = in.VarUInt();
  uint64_t rows = in.VarUInt();
  if (column_count > kMaxColumns)
    Fail(ErrorCode::kCorruption, "ClickHouse block claims {} columns", column_count);
  for (uint64_t i = 0; i < column_count; ++i) {
    std::string name = in.String(kMaxNameBytes);
    std::string type = in.String(kMaxNameBytes);
    if (revision >= kRevisionWithCustomSerialization && in.Fixed<uint8_t>() != 0)
      Fail(ErrorCode::kUnsupported,
           "ClickHouse block column {} ({}) uses custom (sparse) serialization", name, type);
    ColumnPtr column = CreateColumn(type);
    if (rows > 0) {
      column->ReadPrefix(in);
      column->ReadData(in, rows);
    }
    block.AddColumn(std::move(name), std::move(column));
  }
  return block;
}

}  // namespace rowbridge::clickhouse
