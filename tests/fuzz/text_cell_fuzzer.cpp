// libFuzzer target for the text-protocol field encoder (mapping/text_cell.h) that the copy and
// `rowbridge check` read source rows with, and for the ENUM/SET label lists of information_schema
// (tables/source_schema.h): any bytes as the text of a column of any type must either become a
// cell or throw rowbridge::Error, never crash or read out of bounds.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "binlog/table_map.h"
#include "common/error.h"
#include "mapping/text_cell.h"
#include "tables/source_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using rowbridge::binlog::ColumnType;
  if (size < 3) return 0;
  static constexpr ColumnType kTypes[] = {
      ColumnType::kTiny,       ColumnType::kShort,     ColumnType::kInt24,      ColumnType::kLong,
      ColumnType::kLongLong,   ColumnType::kYear,      ColumnType::kFloat,      ColumnType::kDouble,
      ColumnType::kNewDecimal, ColumnType::kBit,       ColumnType::kEnum,       ColumnType::kSet,
      ColumnType::kDate,       ColumnType::kDateTime2, ColumnType::kTimestamp2, ColumnType::kTime2,
      ColumnType::kString,     ColumnType::kVarchar,   ColumnType::kBlob,       ColumnType::kJson,
      ColumnType::kGeometry};
  rowbridge::binlog::ColumnDef column;
  column.type = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  column.is_unsigned = (data[1] & 1) != 0;
  column.charset = (data[1] & 2) != 0 ? 63 : 45;
  switch (column.type) {
    case ColumnType::kNewDecimal:
      column.precision = static_cast<uint8_t>(1 + data[2] % 65);
      column.scale = static_cast<uint8_t>(data[2] / 65 % (std::min<int>(column.precision, 30) + 1));
      break;
    case ColumnType::kBit:
      column.meta = 1 + data[2] % 64;
      break;
    case ColumnType::kEnum:
      column.meta = 1 + data[2] % 2;
      break;
    case ColumnType::kSet:
      column.meta = 1 + data[2] % 8;
      break;
    case ColumnType::kDateTime2:
    case ColumnType::kTimestamp2:
    case ColumnType::kTime2:
      column.meta = data[2] % 7;
      break;
    default:
      column.meta = data[2];
      break;
  }
  std::array<uint8_t, rowbridge::mapping::kTextCellBufferSize> buffer{};
  rowbridge::binlog::Cell cell;
  const std::string_view text(reinterpret_cast<const char*>(data + 3), size - 3);
  try {
    rowbridge::mapping::EncodeTextCell(column, 0, text, buffer, "fuzz.t.c", cell);
    if (cell.size > buffer.size() && cell.data == buffer.data()) __builtin_trap();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < cell.size; ++i) sink = sink ^ cell.data[i];
    (void)sink;
  } catch (const rowbridge::Error&) {
  }
  try {
    (void)rowbridge::tables::ParseLabelList(text);
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
