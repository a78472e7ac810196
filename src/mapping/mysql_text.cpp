#include "mapping/mysql_text.h"

#include <charconv>

#include "binlog/decimal.h"
#include "binlog/json_binary.h"
#include "binlog/value_decoder.h"
#include "clickhouse/columns/civil_time.h"
#include "common/error.h"

namespace rowbridge::mapping {

using binlog::Cell;
using binlog::ColumnDef;
using binlog::ColumnType;
using binlog::TemporalParts;
using binlog::TimestampValue;

void TextBuffer::Digits(uint64_t v, int width) {
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = n; i < width; ++i) Push('0');
  while (n > 0) Push(tmp[--n]);
}

void FormatInteger(clickhouse::Int128 v, TextBuffer& out) {
  clickhouse::UInt128 magnitude =
      v < 0 ? -static_cast<clickhouse::UInt128>(v) : static_cast<clickhouse::UInt128>(v);
  if (v < 0) out.Push('-');
  char tmp[40];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  while (n > 0) out.Push(tmp[--n]);
}

void FormatFloat(float v, TextBuffer& out) {
  char tmp[32];
  auto result = std::to_chars(tmp, tmp + sizeof(tmp), v);
  out.Append(std::string_view(tmp, static_cast<size_t>(result.ptr - tmp)));
}

void FormatDouble(double v, TextBuffer& out) {
  char tmp[32];
  auto result = std::to_chars(tmp, tmp + sizeof(tmp), v);
  out.Append(std::string_view(tmp, static_cast<size_t>(result.ptr - tmp)));
}

namespace {

// Digits(v, 2) for the usual clock and calendar fields, without the general digit loop.
inline void TwoDigits(uint64_t v, TextBuffer& out) {
  if (v >= 100) [[unlikely]] {
    out.Digits(v, 2);
    return;
  }
  out.Push(static_cast<char>('0' + v / 10));
  out.Push(static_cast<char>('0' + v % 10));
}

}  // namespace

void FormatDate(const TemporalParts& p, TextBuffer& out) {
  out.Digits(p.year, 4);
  out.Push('-');
  TwoDigits(p.month, out);
  out.Push('-');
  TwoDigits(p.day, out);
}

namespace {

void FormatClock(uint64_t hours, const TemporalParts& p, uint32_t fsp, TextBuffer& out) {
  TwoDigits(hours, out);
  out.Push(':');
  TwoDigits(p.minute, out);
  out.Push(':');
  TwoDigits(p.second, out);
  if (fsp > 0) {
    out.Push('.');
    uint64_t fraction = p.microsecond;
    for (uint32_t i = fsp; i < 6; ++i) fraction /= 10;
    out.Digits(fraction, static_cast<int>(fsp));
  }
}

}  // namespace

void FormatDateTime(const TemporalParts& p, uint32_t fsp, TextBuffer& out) {
  FormatDate(p, out);
  out.Push(' ');
  FormatClock(p.hour, p, fsp, out);
}

void FormatTime(const TemporalParts& p, uint32_t fsp, TextBuffer& out) {
  if (p.negative) out.Push('-');
  FormatClock(p.hour, p, fsp, out);
}

TemporalParts TimestampParts(const TimestampValue& ts, const TimeZone& zone) {
  if (ts.seconds == 0 && ts.microsecond == 0) return {};
  TimestampValue local{zone.UtcToLocal(ts.seconds), ts.microsecond};
  TemporalParts parts = binlog::TimestampToUtcParts(local);
  if (local.seconds == 0 && local.microsecond == 0) {
    parts = {};  // a local 1970-01-01 00:00:00 is a real instant, not the zero timestamp
    parts.year = 1970;
    parts.month = 1;
    parts.day = 1;
  }
  return parts;
}

uint32_t TemporalFsp(const ColumnDef& column) {
  switch (column.type) {
    case ColumnType::kTime2:
    case ColumnType::kDateTime2:
    case ColumnType::kTimestamp2:
      return column.meta;
    default:
      return 0;
  }
}

namespace {
[[noreturn]] void NotTemporal(const Cell& cell, const char* wanted) {
  Fail(ErrorCode::kInvalidArgument, "column {} is {}, not {}", cell.index,
       binlog::ColumnTypeName(cell.column->type), wanted);
}
void NeedValue(const Cell& cell) {
  if (cell.is_null || cell.data == nullptr)
    Fail(ErrorCode::kInvalidArgument, "column {} is NULL where a value was expected", cell.index);
}
}  // namespace

TemporalParts CellDateParts(const Cell& cell) {
  NeedValue(cell);
  if (cell.column->type != ColumnType::kDate && cell.column->type != ColumnType::kNewDate)
    NotTemporal(cell, "DATE");
  return binlog::DecodeDate(cell.data, cell.size);
}

TemporalParts CellDateTimeParts(const Cell& cell) {
  NeedValue(cell);
  if (cell.column->type == ColumnType::kDateTime2)
    return binlog::DecodeDateTime2(cell.data, cell.size, cell.column->meta);
  if (cell.column->type == ColumnType::kDateTime)
    return binlog::DecodeDateTime(cell.data, cell.size);
  NotTemporal(cell, "DATETIME");
}

TemporalParts CellTimeParts(const Cell& cell) {
  NeedValue(cell);
  if (cell.column->type == ColumnType::kTime2)
    return binlog::DecodeTime2(cell.data, cell.size, cell.column->meta);
  if (cell.column->type == ColumnType::kTime) return binlog::DecodeTime(cell.data, cell.size);
  NotTemporal(cell, "TIME");
}

TimestampValue CellTimestamp(const Cell& cell) {
  NeedValue(cell);
  if (cell.column->type == ColumnType::kTimestamp2)
    return binlog::DecodeTimestamp2(cell.data, cell.size, cell.column->meta);
  if (cell.column->type == ColumnType::kTimestamp)
    return binlog::DecodeTimestamp(cell.data, cell.size);
  NotTemporal(cell, "TIMESTAMP");
}

namespace {

void AppendSetLabels(const Cell& cell, std::string& out) {
  const ColumnDef& c = *cell.column;
  uint64_t bits = binlog::CellSetBits(cell);
  if (c.set_values.empty()) {
    TextBuffer b;
    b.Digits(bits, 1);
    out.append(b.view());
    return;
  }
  bool first = true;
  for (size_t i = 0; i < c.set_values.size() && i < 64; ++i) {
    if ((bits >> i) & 1) {
      if (!first) out.push_back(',');
      out.append(c.set_values[i]);
      first = false;
    }
  }
}

void AppendEnumLabel(const Cell& cell, std::string& out) {
  const ColumnDef& c = *cell.column;
  uint16_t index = binlog::CellEnumIndex(cell);
  if (c.enum_values.empty()) {
    TextBuffer b;
    b.Digits(index, 1);
    out.append(b.view());
    return;
  }
  if (index == 0) return;  // MySQL's error value ''
  if (index > c.enum_values.size())
    Fail(ErrorCode::kCorruption, "ENUM column {} holds index {} but declares {} values", cell.index,
         index, c.enum_values.size());
  out.append(c.enum_values[index - 1]);
}

}  // namespace

void AppendMysqlText(const Cell& cell, const TimeZone& zone, std::string& out) {
  if (cell.is_null) {
    out.append("NULL");
    return;
  }
  const ColumnDef& c = *cell.column;
  TextBuffer b;
  switch (c.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      if (c.is_unsigned)
        FormatInteger(binlog::CellUnsignedInteger(cell), b);
      else
        FormatInteger(binlog::CellSignedInteger(cell), b);
      break;
    case ColumnType::kYear:
      b.Digits(binlog::CellYear(cell), 4);
      break;
    case ColumnType::kBit:
      b.Digits(binlog::CellBit(cell), 1);
      break;
    case ColumnType::kFloat:
      FormatFloat(binlog::CellFloat(cell), b);
      break;
    case ColumnType::kDouble:
      FormatDouble(binlog::CellDouble(cell), b);
      break;
    case ColumnType::kNewDecimal:
      binlog::AppendDecimalText(cell.data, cell.size, c.precision, c.scale, out);
      return;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      FormatDate(CellDateParts(cell), b);
      break;
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
      FormatDateTime(CellDateTimeParts(cell), TemporalFsp(c), b);
      break;
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      FormatDateTime(TimestampParts(CellTimestamp(cell), zone), TemporalFsp(c), b);
      break;
    case ColumnType::kTime:
    case ColumnType::kTime2:
      FormatTime(CellTimeParts(cell), TemporalFsp(c), b);
      break;
    case ColumnType::kEnum:
      AppendEnumLabel(cell, out);
      return;
    case ColumnType::kSet:
      AppendSetLabels(cell, out);
      return;
    case ColumnType::kJson:
      if (cell.is_json_diff)
        Fail(ErrorCode::kUnsupported,
             "JSON column {} holds a partial-update diff, not a document (the source runs with "
             "binlog_row_value_options=PARTIAL_JSON)",
             cell.index);
      binlog::AppendJsonBinaryText(cell.data, cell.size, out);
      return;
    case ColumnType::kGeometry:
      if (cell.size < 4)
        Fail(ErrorCode::kCorruption, "GEOMETRY column {} value has {} bytes, less than its SRID",
             cell.index, cell.size);
      out.append(binlog::CellBytes(cell).substr(4));
      return;
    case ColumnType::kVector: {
      size_t n = binlog::CellVectorLength(cell);
      out.push_back('[');
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, cell.data + 4 * i, 4);
        TextBuffer e;
        FormatFloat(f, e);
        if (i > 0) out.push_back(',');
        out.append(e.view());
      }
      out.push_back(']');
      return;
    }
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
      out.append(binlog::CellBytes(cell));
      return;
    default:
      Fail(ErrorCode::kUnsupported, "column {} has type {}, which has no MySQL text form here",
           cell.index, binlog::ColumnTypeName(c.type));
  }
  out.append(b.view());
}

std::string MysqlTypeName(const ColumnDef& c) {
  const bool binary = c.charset == 63;
  std::string name;
  auto with_sign = [&](const char* base) {
    name = base;
    if (c.is_unsigned) name += " UNSIGNED";
  };
  auto fsp_suffix = [&](const char* base) {
    name = base;
    if (TemporalFsp(c) > 0) name += fmt::format("({})", TemporalFsp(c));
  };
  auto labels = [&](const char* base, const std::vector<std::string>& values) {
    name = base;
    if (values.empty()) return;
    name += '(';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) name += ',';
      name += '\'';
      for (char ch : values[i]) {
        if (ch == '\'') name += '\'';
        name += ch;
      }
      name += '\'';
    }
    name += ')';
  };
  switch (c.type) {
    case ColumnType::kTiny:
      with_sign("TINYINT");
      break;
    case ColumnType::kShort:
      with_sign("SMALLINT");
      break;
    case ColumnType::kInt24:
      with_sign("MEDIUMINT");
      break;
    case ColumnType::kLong:
      with_sign("INT");
      break;
    case ColumnType::kLongLong:
      with_sign("BIGINT");
      break;
    case ColumnType::kFloat:
      name = "FLOAT";
      break;
    case ColumnType::kDouble:
      name = "DOUBLE";
      break;
    case ColumnType::kNewDecimal:
      name = fmt::format("DECIMAL({},{})", c.precision, c.scale);
      break;
    case ColumnType::kBit:
      name = fmt::format("BIT({})", c.meta);
      break;
    case ColumnType::kYear:
      name = "YEAR";
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      name = "DATE";
      break;
    case ColumnType::kTime:
    case ColumnType::kTime2:
      fsp_suffix("TIME");
      break;
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
      fsp_suffix("DATETIME");
      break;
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      fsp_suffix("TIMESTAMP");
      break;
    case ColumnType::kEnum:
      labels("ENUM", c.enum_values);
      break;
    case ColumnType::kSet:
      labels("SET", c.set_values);
      break;
    case ColumnType::kString:
      name = fmt::format("{}({} bytes)", binary ? "BINARY" : "CHAR", c.meta);
      break;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      name = fmt::format("{}({} bytes)", binary ? "VARBINARY" : "VARCHAR", c.meta);
      break;
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob: {
      static constexpr const char* kSizes[] = {"", "TINY", "", "MEDIUM", "LONG"};
      const char* size = c.meta <= 4 ? kSizes[c.meta] : "";
      name = fmt::format("{}{}", size, binary || c.charset == 0 ? "BLOB" : "TEXT");
      break;
    }
    case ColumnType::kJson:
      name = "JSON";
      break;
    case ColumnType::kGeometry:
      name = "GEOMETRY";
      break;
    case ColumnType::kVector:
      name = c.vector_dimensions ? fmt::format("VECTOR({})", c.vector_dimensions) : "VECTOR";
      break;
    default:
      name = std::string(binlog::ColumnTypeName(c.type));
      break;
  }
  return name;
}

}  // namespace rowbridge::mapping
