#include "binlog/value_decoder.h"

namespace rowbridge::binlog {

namespace value_detail {

void ThrowCellSize(const Cell& cell, size_t wanted, const char* what) {
  const ColumnDef* column = cell.column;
  std::string_view name = column != nullptr && !column->name.empty()
                              ? std::string_view(column->name)
                              : std::string_view("?");
  std::string_view type = column != nullptr ? ColumnTypeName(column->type) : "?";
  if (cell.is_null) {
    Fail(ErrorCode::kInternal, "column @{} ({}, {}): read as {} but the value is NULL",
         cell.index + 1, name, type, what);
  }
  Fail(ErrorCode::kCorruption, "column @{} ({}, {}): {} needs {} bytes, the row holds {}",
       cell.index + 1, name, type, what, wanted, cell.size);
}

}  // namespace value_detail

std::span<const float> CellVector(const Cell& c, std::span<float> scratch) {
  const size_t n = CellVectorLength(c);
  if constexpr (std::endian::native == std::endian::little) {
    if (reinterpret_cast<uintptr_t>(c.data) % alignof(float) == 0) {
      return {reinterpret_cast<const float*>(c.data), n};
    }
  }
  if (scratch.size() < n) {
    Fail(ErrorCode::kInternal, "column @{}: VECTOR scratch holds {} floats, value has {}",
         c.index + 1, scratch.size(), n);
  }
  for (size_t i = 0; i < n; ++i) {
    scratch[i] = std::bit_cast<float>(
        static_cast<uint32_t>(value_detail::LoadLittleEndian(c.data + 4 * i, 4)));
  }
  return {scratch.data(), n};
}

}  // namespace rowbridge::binlog
