// libFuzzer target for rowbridge check's text → binlog cell encoding (check/text_cell.h)
// and ENUM/SET label parsing: arbitrary server text for any column type must either encode or
// throw rowbridge::Error, never crash or read out of bounds.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "binlog/decimal.h"
#include "binlog/table_map.h"
#include "check/source_table.h"
#include "check/text_cell.h"
#include "common/error.h"

using rowbridge::binlog::ColumnType;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static constexpr ColumnType kTypes[] = {
      ColumnType::kTiny,     ColumnType::kShort, ColumnType::kInt24,     ColumnType::kLong,
      ColumnType::kLongLong, ColumnType::kFloat, ColumnType::kDouble,    ColumnType::kNewDecimal,
      ColumnType::kDate,     ColumnType::kTime2, ColumnType::kDateTime2, ColumnType::kTimestamp2,
      ColumnType::kYear,     ColumnType::kBit,   ColumnType::kEnum,      ColumnType::kSet,
      ColumnType::kVarchar,  ColumnType::kBlob,  ColumnType::kJson,      ColumnType::kGeometry};
  rowbridge::binlog::ColumnDef def;
  def.name = "fuzz";
  def.type = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  const uint8_t param = data[1];
  switch (def.type) {
    case ColumnType::kNewDecimal:
      def.precision = static_cast<uint8_t>(1 + param % rowbridge::binlog::kMaxDecimalPrecision);
      def.scale = static_cast<uint8_t>(data[2] % (std::min<int>(def.precision, 30) + 1));
      break;
    case ColumnType::kTime2:
    case ColumnType::kDateTime2:
    case ColumnType::kTimestamp2:
      def.meta = param % 7;
      break;
    case ColumnType::kBit:
      def.meta = 1 + param % 64;
      break;
    case ColumnType::kEnum:
      def.meta = 1 + param % 2;
      break;
    case ColumnType::kSet:
      def.meta = std::array<uint32_t, 5>{1, 2, 3, 4, 8}[param % 5];
      break;
    default:
      break;
  }
  const std::string_view text(reinterpret_cast<const char*>(data + 3), size - 3);
  rowbridge::check::TextCellEncoder encoder;
  try {
    const rowbridge::binlog::Cell cell = encoder.Encode(def, 0, text);
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < cell.size; ++i) sink = sink ^ cell.data[i];
    (void)sink;
  } catch (const rowbridge::Error&) {
  }
  try {
    (void)rowbridge::check::ParseEnumLabels(text);
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
