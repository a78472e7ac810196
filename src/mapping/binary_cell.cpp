#include "mapping/binary_cell.h"

#include <fmt/format.h>

#include "binlog/column_type.h"
#include "binlog/value_decoder.h"
#include "common/error.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnDef;
using binlog::ColumnType;

// MYSQL_TYPE_* codes as they appear in result set column definitions.
constexpr uint8_t kWireDecimal = 0, kWireTiny = 1, kWireShort = 2, kWireLong = 3, kWireFloat = 4,
                  kWireDouble = 5, kWireTimestamp = 7, kWireLongLong = 8, kWireInt24 = 9,
                  kWireDate = 10, kWireTime = 11, kWireDateTime = 12, kWireYear = 13,
                  kWireNewDate = 14, kWireBit = 16, kWireNewDecimal = 246;

size_t WireIntegerWidth(uint8_t type) {
  switch (type) {
    case kWireTiny:
      return 1;
    case kWireShort:
    case kWireYear:
      return 2;
    case kWireLong:
    case kWireInt24:
      return 4;
    case kWireLongLong:
      return 8;
    default:
      return 0;
  }
}

bool IsWireTemporal(uint8_t type) {
  return type == kWireTimestamp || type == kWireDate || type == kWireTime ||
         type == kWireDateTime || type == kWireNewDate;
}

// Sent as a length-encoded string (binary_row.h).
bool IsWireBytes(uint8_t type) {
  return WireIntegerWidth(type) == 0 && type != kWireFloat && type != kWireDouble &&
         type != 6 /* NULL */ && !IsWireTemporal(type);
}

std::string_view WireName(uint8_t type) {
  return binlog::ColumnTypeName(static_cast<ColumnType>(type));
}

// The value for error messages: its bytes in hex (the first 16).
std::string Shown(std::string_view value, WireColumn wire) {
  std::string out = fmt::format("{} 0x", WireName(wire.type));
  for (size_t i = 0; i < value.size() && i < 16; ++i)
    out += fmt::format("{:02x}", static_cast<uint8_t>(value[i]));
  if (value.size() > 16) out += "...";
  return out;
}

[[noreturn]] void BadValue(std::string_view context, const ColumnDef& column,
                           std::string_view value, WireColumn wire, std::string_view why) {
  BadSourceValue(context, column, Shown(value, wire), why);
}

uint64_t LittleEndian(std::string_view value) {
  uint64_t v = 0;
  for (size_t i = 0; i < value.size(); ++i)
    v |= uint64_t{static_cast<uint8_t>(value[i])} << (8 * i);
  return v;
}

// The wire integer, sign-extended unless the wire says unsigned; `negative` tells which.
uint64_t WireInteger(std::string_view value, WireColumn wire, bool& negative) {
  uint64_t v = LittleEndian(value);
  const size_t bits = 8 * value.size();
  negative = false;
  if (!wire.is_unsigned && bits < 64 && (v >> (bits - 1)) & 1) v |= ~uint64_t{0} << bits;
  if (!wire.is_unsigned) negative = static_cast<int64_t>(v) < 0;
  return v;
}

// The y/m/d h:m:s.us struct of DATE, DATETIME and TIMESTAMP (0, 4, 7 or 11 bytes).
bool ParseWireDateTime(std::string_view value, binlog::TemporalParts& t) {
  const auto* p = reinterpret_cast<const uint8_t*>(value.data());
  t = {};
  switch (value.size()) {
    case 11:
      t.microsecond = static_cast<uint32_t>(LittleEndian(value.substr(7, 4)));
      [[fallthrough]];
    case 7:
      t.hour = p[4];
      t.minute = p[5];
      t.second = p[6];
      [[fallthrough]];
    case 4:
      t.year = static_cast<uint32_t>(p[0] | p[1] << 8);
      t.month = p[2];
      t.day = p[3];
      [[fallthrough]];
    case 0:
      break;
    default:
      return false;
  }
  return t.year <= 9999 && t.month <= 12 && t.day <= 31 && t.hour < 24 && t.minute < 60 &&
         t.second < 60 && t.microsecond < 1000000;
}

void EncodeInteger(const ColumnDef& column, WireColumn wire, std::string_view value,
                   CellBuffer& buffer, std::string_view context, Cell& cell) {
  const size_t width = binlog::IntegerWidth(column.type);
  bool negative = false;
  const uint64_t v = WireInteger(value, wire, negative);
  bool fits = false;
  if (column.is_unsigned) {
    fits = !negative && (width == 8 || v >> (8 * width) == 0);
  } else if (width == 8) {
    fits = negative || v >> 63 == 0;
  } else {
    const int64_t s = static_cast<int64_t>(v);
    const int64_t limit = int64_t{1} << (8 * width - 1);
    fits = (negative || v >> 63 == 0) && s >= -limit && s < limit;
  }
  if (!fits) BadValue(context, column, value, wire, "out of the column's range");
  if (width <= value.size()) {
    // Little-endian two's complement: the low bytes already are the cell.
    cell.data = reinterpret_cast<const uint8_t*>(value.data());
  } else {
    StoreLittleEndian(buffer.data(), v, width);
    cell.data = buffer.data();
  }
  cell.size = width;
}

// Checks the wire type and the value's size; the value has passed binary_row.h's framing, but the
// cell must not trust that it came from there.
void CheckValue(const ColumnDef& column, WireColumn wire, std::string_view value,
                std::string_view context) {
  const size_t integer = WireIntegerWidth(wire.type);
  if (integer != 0 && value.size() != integer)
    BadValue(context, column, value, wire, "wrong size for the wire type");
  if ((wire.type == kWireFloat && value.size() != 4) ||
      (wire.type == kWireDouble && value.size() != 8))
    BadValue(context, column, value, wire, "wrong size for the wire type");
}

void EncodeValue(const ColumnDef& column, WireColumn wire, std::string_view value,
                 CellBuffer& buffer, std::string_view context, Cell& cell) {
  CheckValue(column, wire, value, context);
  uint8_t* p = buffer.data();
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      EncodeInteger(column, wire, value, buffer, context, cell);
      return;
    case ColumnType::kYear: {
      bool negative = false;
      const uint64_t year = WireInteger(value, wire, negative);
      if (negative || (year != 0 && (year < 1901 || year > 2155)))
        BadValue(context, column, value, wire, "not a YEAR");
      p[0] = static_cast<uint8_t>(year == 0 ? 0 : year - 1900);
      cell.data = p;
      cell.size = 1;
      return;
    }
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      cell.data = reinterpret_cast<const uint8_t*>(value.data());
      cell.size = value.size();
      return;
    case ColumnType::kNewDecimal:
      cell.size = PackDecimalText(column, value, buffer, context);
      cell.data = p;
      return;
    case ColumnType::kBit: {
      const size_t bytes = (column.meta + 7) / 8;
      if (bytes == 0 || bytes > 8 || value.size() != bytes)
        BadValue(context, column, value, wire, fmt::format("not {} bytes of BIT", bytes));
      if (column.meta % 8 != 0 && static_cast<uint8_t>(value[0]) >> (column.meta % 8) != 0)
        BadValue(context, column, value, wire, "too large for the BIT width");
      cell.data = reinterpret_cast<const uint8_t*>(value.data());
      cell.size = bytes;
      return;
    }
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      bool negative = false;
      const uint64_t v = WireInteger(value, wire, negative);
      const size_t bytes = column.meta;
      if (negative || bytes == 0 || bytes > 8 || (bytes < 8 && v >> (8 * bytes) != 0))
        BadValue(context, column, value, wire, "too large for the column");
      StoreLittleEndian(p, v, bytes);
      cell.data = p;
      cell.size = bytes;
      return;
    }
    case ColumnType::kDate:
    case ColumnType::kNewDate: {
      binlog::TemporalParts t;
      if (!ParseWireDateTime(value, t) || t.hour != 0 || t.minute != 0 || t.second != 0 ||
          t.microsecond != 0)
        BadValue(context, column, value, wire, "not a DATE");
      cell.size = PackDate(t, p);
      cell.data = p;
      return;
    }
    case ColumnType::kDateTime2: {
      binlog::TemporalParts t;
      if (!ParseWireDateTime(value, t)) BadValue(context, column, value, wire, "not a DATETIME");
      if (column.meta > 6) BadValue(context, column, value, wire, "fractional precision above 6");
      cell.size = PackDateTime2(t, column.meta, p);
      cell.data = p;
      return;
    }
    case ColumnType::kTimestamp2: {
      binlog::TemporalParts t;
      if (!ParseWireDateTime(value, t)) BadValue(context, column, value, wire, "not a TIMESTAMP");
      if (column.meta > 6) BadValue(context, column, value, wire, "fractional precision above 6");
      const int64_t seconds = UtcSeconds(t);
      if (seconds < 0 || seconds > 0xFFFFFFFFLL)
        BadValue(context, column, value, wire,
                 "outside the TIMESTAMP range (is the session time_zone UTC?)");
      cell.size = PackTimestamp2(static_cast<uint64_t>(seconds), t.microsecond, column.meta, p);
      cell.data = p;
      return;
    }
    case ColumnType::kTime2: {
      // negative (1), days (4), hour, minute, second [, microseconds (4)]; nothing for 00:00:00.
      const auto* b = reinterpret_cast<const uint8_t*>(value.data());
      bool negative = false;
      uint64_t hour = 0;
      uint32_t minute = 0, second = 0, micros = 0;
      if (value.size() == 8 || value.size() == 12) {
        if (b[0] > 1) BadValue(context, column, value, wire, "not a TIME sign");
        negative = b[0] == 1;
        if (b[5] > 23) BadValue(context, column, value, wire, "not a TIME");
        hour = LittleEndian(value.substr(1, 4)) * 24 + b[5];
        minute = b[6];
        second = b[7];
        if (value.size() == 12) micros = static_cast<uint32_t>(LittleEndian(value.substr(8, 4)));
      } else if (!value.empty()) {
        BadValue(context, column, value, wire, "not a TIME");
      }
      if (hour > 1023 || minute > 59 || second > 59 || micros > 999999)
        BadValue(context, column, value, wire, "not a TIME");
      if (column.meta > 6) BadValue(context, column, value, wire, "fractional precision above 6");
      cell.size =
          PackTime2(negative, static_cast<uint32_t>(hour), minute, second, micros, column.meta, p);
      cell.data = p;
      return;
    }
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
    case ColumnType::kVector: {
      const std::string_view bytes = RowEventBytes(column, value);
      cell.data = reinterpret_cast<const uint8_t*>(bytes.data());
      cell.size = bytes.size();
      return;
    }
    default:
      Fail(ErrorCode::kUnsupported, "{}: a {} column cannot be read from the binary protocol",
           context, binlog::ColumnTypeName(column.type));
  }
}

}  // namespace

std::string BinarySelectExpression(const ColumnDef& column, std::string_view quoted_name) {
  switch (column.type) {
    case ColumnType::kEnum:
    case ColumnType::kSet:
      // Not `c + 0`: MySQL types that DOUBLE, and on every server a 64-member SET's mask goes
      // negative through `+ 0`. CAST AS UNSIGNED is a BIGINT UNSIGNED on both flavors.
      return fmt::format("CAST({} AS UNSIGNED) AS {}", quoted_name, quoted_name);
    default:
      return std::string(quoted_name);
  }
}

void CheckWireColumn(const ColumnDef& column, WireColumn wire, std::string_view context) {
  bool ok = false;
  const uint8_t w = wire.type;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
    case ColumnType::kYear:
    case ColumnType::kEnum:
    case ColumnType::kSet:
      ok = WireIntegerWidth(w) != 0;
      break;
    case ColumnType::kFloat:
      ok = w == kWireFloat;
      break;
    case ColumnType::kDouble:
      ok = w == kWireDouble;
      break;
    case ColumnType::kNewDecimal:
      ok = w == kWireNewDecimal || w == kWireDecimal;
      break;
    case ColumnType::kBit:
      ok = w == kWireBit;
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      ok = w == kWireDate || w == kWireNewDate;
      break;
    case ColumnType::kDateTime2:
      ok = w == kWireDateTime;
      break;
    case ColumnType::kTimestamp2:
      ok = w == kWireTimestamp;
      break;
    case ColumnType::kTime2:
      ok = w == kWireTime;
      break;
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
    case ColumnType::kVector:
      ok = IsWireBytes(w);
      break;
    default:
      Fail(ErrorCode::kUnsupported, "{}: a {} column cannot be read from the binary protocol",
           context, binlog::ColumnTypeName(column.type));
  }
  if (!ok) {
    Fail(ErrorCode::kProtocol,
         "{}: the source sends this {} column as {} in binary rows, which cannot be its value{}",
         context, binlog::ColumnTypeName(column.type), WireName(w),
         column.type == ColumnType::kEnum || column.type == ColumnType::kSet
             ? " (select ENUM and SET columns as CAST(`c` AS UNSIGNED))"
             : "");
  }
}

void EncodeBinaryCell(const ColumnDef& column, WireColumn wire, uint32_t index,
                      std::optional<std::string_view> value, CellBuffer& buffer,
                      std::string_view context, Cell& cell) {
  if (value) CheckWireColumn(column, wire, context);
  EncodeCheckedBinaryCell(column, wire, index, value, buffer, context, cell);
}

void EncodeCheckedBinaryCell(const ColumnDef& column, WireColumn wire, uint32_t index,
                             std::optional<std::string_view> value, CellBuffer& buffer,
                             std::string_view context, Cell& cell) {
  cell.column = &column;
  cell.index = index;
  cell.is_json_diff = false;
  if (!value) {
    cell.is_null = true;
    cell.data = nullptr;
    cell.size = 0;
    return;
  }
  cell.is_null = false;
  EncodeValue(column, wire, *value, buffer, context, cell);
}

BinaryRowEncoder::BinaryRowEncoder(std::span<const ColumnDef> columns, std::string table)
    : columns_(columns),
      table_(std::move(table)),
      buffers_(columns.size()),
      cells_(columns.size()) {
  contexts_.reserve(columns.size());
  for (const ColumnDef& c : columns) contexts_.push_back(table_ + "." + c.name);
}

void BinaryRowEncoder::Bind(std::span<const WireColumn> wire) {
  if (wire.size() != columns_.size()) {
    Fail(ErrorCode::kProtocol, "{}: the source sent {} columns, {} expected", table_, wire.size(),
         columns_.size());
  }
  for (size_t i = 0; i < wire.size(); ++i) CheckWireColumn(columns_[i], wire[i], contexts_[i]);
  wire_.assign(wire.begin(), wire.end());
}

void BinaryRowEncoder::CheckBound() const {
  if (wire_.size() != columns_.size())
    Fail(ErrorCode::kInternal, "binary row encoder used before Bind");
}

std::span<const Cell> BinaryRowEncoder::Encode(
    std::span<const std::optional<std::string_view>> fields) {
  CheckBound();
  if (fields.size() != columns_.size())
    Fail(ErrorCode::kInvalidArgument, "{} fields for {} columns", fields.size(), columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    EncodeCheckedBinaryCell(columns_[i], wire_[i], static_cast<uint32_t>(i), fields[i], buffers_[i],
                            contexts_[i], cells_[i]);
  }
  return cells_;
}

}  // namespace rowbridge::mapping
