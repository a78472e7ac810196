#include "binlog/column_layout.h"

#include "binlog/decimal.h"

namespace rowbridge::binlog {

namespace {

ColumnSlot Fixed(uint32_t n) {
  return {ColumnSlot::kFixed, static_cast<uint8_t>(n)};
}
ColumnSlot Prefixed(uint32_t n) {
  return {ColumnSlot::kPrefixed, static_cast<uint8_t>(n)};
}

ColumnSlot SlotFor(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kYear:
    case ColumnType::kBool:
      return Fixed(1);
    case ColumnType::kShort:
      return Fixed(2);
    case ColumnType::kInt24:
    case ColumnType::kDate:
    case ColumnType::kNewDate:
    case ColumnType::kTime:
      return Fixed(3);
    case ColumnType::kLong:
    case ColumnType::kTimestamp:
      return Fixed(4);
    case ColumnType::kLongLong:
    case ColumnType::kDateTime:
      return Fixed(8);
    case ColumnType::kFloat:
      return Fixed(4);
    case ColumnType::kDouble:
      return Fixed(8);
    case ColumnType::kNull:
      return Fixed(0);
    case ColumnType::kTimestamp2:
      if (c.meta > 6) break;
      return Fixed(4 + (c.meta + 1) / 2);
    case ColumnType::kDateTime2:
      if (c.meta > 6) break;
      return Fixed(5 + (c.meta + 1) / 2);
    case ColumnType::kTime2:
      if (c.meta > 6) break;
      return Fixed(3 + (c.meta + 1) / 2);
    case ColumnType::kNewDecimal:
      if (c.precision == 0 || c.precision > 65 || c.scale > 30 || c.scale > c.precision) break;
      return Fixed(static_cast<uint32_t>(DecimalBinarySize(c.precision, c.scale)));
    case ColumnType::kBit:
      if (c.meta == 0 || c.meta > 64) break;
      return Fixed((c.meta + 7) / 8);
    case ColumnType::kEnum:
      if (c.meta != 1 && c.meta != 2) break;
      return Fixed(c.meta);
    case ColumnType::kSet:
      if (c.meta == 0 || c.meta > 8) break;
      return Fixed(c.meta);
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      return Prefixed(c.meta > 255 ? 2 : 1);
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
    case ColumnType::kVector:
      if (c.meta == 0 || c.meta > 4) break;
      return Prefixed(c.meta);
    default:
      break;
  }
  return {};
}

}  // namespace

std::vector<ColumnSlot> BuildColumnLayout(const TableMap& map) {
  std::vector<ColumnSlot> slots;
  slots.reserve(map.columns.size());
  for (const auto& c : map.columns) slots.push_back(SlotFor(c));
  return slots;
}

}  // namespace rowbridge::binlog
