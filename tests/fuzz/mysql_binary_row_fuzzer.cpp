// Fuzzes the binary-protocol row decoder (mysql/binary_row.h) and the cell encoder behind it
// (mapping/binary_cell.h). The first byte gives the column count (0..15), the next that many bytes
// pick each column's type (wire type and table column type together); the rest is the row packet.
// Error is the expected outcome for garbage; anything else (crash, sanitizer report, a field
// outside the payload, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "binlog/cell.h"
#include "common/error.h"
#include "mapping/binary_cell.h"
#include "mysql/binary_row.h"

namespace {

using namespace rowbridge;
using binlog::ColumnType;

struct Kind {
  uint8_t wire;
  bool is_unsigned;
  ColumnType column;
  uint32_t meta;
};

// Pairs a server would send, plus a few it would not (the encoder must reject those cleanly).
constexpr Kind kKinds[] = {
    {1, false, ColumnType::kTiny, 0},       {1, true, ColumnType::kTiny, 0},
    {2, false, ColumnType::kShort, 0},      {9, false, ColumnType::kInt24, 0},
    {9, true, ColumnType::kInt24, 0},       {3, false, ColumnType::kLong, 0},
    {8, true, ColumnType::kLongLong, 0},    {8, false, ColumnType::kLongLong, 0},
    {13, true, ColumnType::kYear, 0},       {4, false, ColumnType::kFloat, 4},
    {5, false, ColumnType::kDouble, 8},     {246, false, ColumnType::kNewDecimal, 0},
    {16, true, ColumnType::kBit, 13},       {16, true, ColumnType::kBit, 64},
    {8, false, ColumnType::kEnum, 2},       {8, false, ColumnType::kSet, 8},
    {10, false, ColumnType::kDate, 0},      {12, false, ColumnType::kDateTime2, 0},
    {12, false, ColumnType::kDateTime2, 6}, {7, false, ColumnType::kTimestamp2, 3},
    {11, false, ColumnType::kTime2, 0},     {11, false, ColumnType::kTime2, 5},
    {253, false, ColumnType::kVarchar, 0},  {254, false, ColumnType::kString, 4},
    {252, false, ColumnType::kBlob, 0},     {6, false, ColumnType::kLong, 0},
    {3, false, ColumnType::kDate, 0},       {254, false, ColumnType::kEnum, 1},
    {5, false, ColumnType::kFloat, 4},      {11, false, ColumnType::kDateTime2, 2},
    {0, false, ColumnType::kNewDecimal, 0}, {14, false, ColumnType::kNewDate, 0},
};
constexpr size_t kKindCount = sizeof kKinds / sizeof kKinds[0];

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const size_t count = static_cast<uint8_t>(input[0]) % 16;
  input.remove_prefix(1);
  if (input.size() < count) return 0;
  std::vector<mysql::ColumnDefinition> wire(count);
  std::vector<binlog::ColumnDef> columns(count);
  std::vector<mapping::WireColumn> wire_columns(count);
  for (size_t i = 0; i < count; ++i) {
    const Kind& k = kKinds[static_cast<uint8_t>(input[i]) % kKindCount];
    wire[i].name = "c";
    wire[i].type = k.wire;
    wire[i].flags = k.is_unsigned ? mysql::kUnsignedFlag : 0;
    columns[i].type = columns[i].wire_type = k.column;
    columns[i].meta = k.meta;
    columns[i].is_unsigned = k.is_unsigned;
    columns[i].precision = 10;
    columns[i].scale = 3;
    columns[i].charset = 63;
    wire_columns[i] = {k.wire, k.is_unsigned};
  }
  const std::string_view payload = input.substr(count);
  std::vector<std::string_view> fields(count);
  std::vector<uint8_t> nulls(count);
  try {
    mysql::ParseBinaryRow(payload, wire, fields, nulls, "fuzz:1");
  } catch (const Error&) {
    return 0;
  }
  for (size_t i = 0; i < count; ++i) {
    if (!fields[i].empty() &&
        (fields[i].data() < payload.data() ||
         fields[i].data() + fields[i].size() > payload.data() + payload.size())) {
      __builtin_trap();
    }
    mapping::CellBuffer buffer{};
    binlog::Cell cell;
    try {
      std::optional<std::string_view> value;
      if (!nulls[i]) value = fields[i];
      mapping::EncodeBinaryCell(columns[i], wire_columns[i], static_cast<uint32_t>(i), value,
                                buffer, "fuzz.t.c", cell);
      if (!cell.is_null && cell.size > 0) {
        const auto* p = cell.data;
        const bool in_buffer = p >= buffer.data() && p + cell.size <= buffer.data() + buffer.size();
        const bool in_payload =
            reinterpret_cast<const char*>(p) >= payload.data() &&
            reinterpret_cast<const char*>(p) + cell.size <= payload.data() + payload.size();
        if (!in_buffer && !in_payload) __builtin_trap();
      }
    } catch (const Error&) {
    }
  }
  return 0;
}
