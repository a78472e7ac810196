// libFuzzer target: one cell of any column type with arbitrary bytes, through the typed decoders
// (DECIMAL, temporal, ...) and both formatters. The first bytes choose the column type and its
// metadata; the rest is the cell. Error is expected for garbage; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "binlog/cell.h"
#include "binlog/decimal.h"
#include "binlog/temporal.h"
#include "binlog/value_format.h"
#include "common/error.h"

namespace {

using rowbridge::binlog::ColumnType;

constexpr ColumnType kTypes[] = {
    ColumnType::kTiny,       ColumnType::kShort,      ColumnType::kLong,      ColumnType::kFloat,
    ColumnType::kDouble,     ColumnType::kNull,       ColumnType::kTimestamp, ColumnType::kLongLong,
    ColumnType::kInt24,      ColumnType::kDate,       ColumnType::kTime,      ColumnType::kDateTime,
    ColumnType::kYear,       ColumnType::kNewDate,    ColumnType::kVarchar,   ColumnType::kBit,
    ColumnType::kTimestamp2, ColumnType::kDateTime2,  ColumnType::kTime2,     ColumnType::kVector,
    ColumnType::kJson,       ColumnType::kNewDecimal, ColumnType::kEnum,      ColumnType::kSet,
    ColumnType::kBlob,       ColumnType::kVarString,  ColumnType::kString,    ColumnType::kGeometry,
    ColumnType::kDecimal,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowbridge::binlog;
  if (size < 5) return 0;
  ColumnDef column;
  column.type = kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])];
  column.meta = data[1] % 70;
  column.precision = data[2] % 70;
  column.scale = data[3] % 35;
  column.charset = (data[4] & 1) != 0 ? 63 : 45;
  column.is_unsigned = (data[4] & 2) != 0;
  if ((data[4] & 4) != 0) column.enum_values = {"a", "b"};
  if ((data[4] & 8) != 0) column.set_values = {"x", "y", "z"};
  // Copy the cell so reads past its end are caught by ASan.
  std::vector<uint8_t> bytes(data + 5, data + size);
  Cell cell;
  cell.column = &column;
  cell.is_null = (data[4] & 16) != 0;
  cell.is_json_diff = (data[4] & 32) != 0;
  cell.data = bytes.data();
  cell.size = cell.is_null ? 0 : bytes.size();
  std::string out;
  try {
    AppendMysqlbinlogValue(cell, out);
  } catch (const rowbridge::Error&) {
  }
  out.clear();
  try {
    AppendJsonValue(cell, out);
  } catch (const rowbridge::Error&) {
  }
  try {
    DecodeDecimal(bytes.data(), bytes.size(), column.precision, column.scale);
  } catch (const rowbridge::Error&) {
  }
  try {
    DecodeTime2(bytes.data(), bytes.size(), column.meta);
    DecodeDateTime2(bytes.data(), bytes.size(), column.meta);
    DecodeTimestamp2(bytes.data(), bytes.size(), column.meta);
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
