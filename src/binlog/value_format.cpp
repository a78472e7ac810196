#include "binlog/value_format.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "binlog/base64.h"
#include "binlog/decimal.h"
#include "binlog/json_binary.h"
#include "binlog/json_string.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "common/error.h"

namespace rowbridge::binlog {
namespace {

constexpr uint32_t kBinaryCharset = 63;

std::string_view ColumnName(const Cell& cell) {
  return cell.column->name.empty() ? std::string_view("?") : std::string_view(cell.column->name);
}

[[noreturn]] void Unsupported(const Cell& cell) {
  Fail(ErrorCode::kUnsupported, "column @{} ({}): type {} cannot be decoded from a row event",
       cell.index + 1, ColumnName(cell), ColumnTypeName(cell.column->type));
}

// ---- mysqlbinlog text -------------------------------------------------------------------

// mariadb-binlog's my_b_write_quoted: bytes below 0x20 as \xNN, every other byte verbatim
// (quotes and backslashes included). MySQL 8 differs (\n, \', \\); the MariaDB form wins here.
void AppendMariadbQuoted(const uint8_t* p, size_t n, std::string& out) {
  out.push_back('\'');
  for (size_t i = 0; i < n; ++i) {
    if (p[i] < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", p[i]);
    } else {
      out.push_back(static_cast<char>(p[i]));
    }
  }
  out.push_back('\'');
}

// b'0101': the last `bits` bits of the bytes read as one big-endian bit string.
void AppendBitString(const uint8_t* p, size_t bits, std::string& out) {
  const size_t total = (bits + 7) / 8 * 8;
  out.append("b'");
  for (size_t bit = total - bits; bit < total; ++bit) {
    out.push_back(((p[bit / 8] >> (7 - bit % 8)) & 1) != 0 ? '1' : '0');
  }
  out.push_back('\'');
}

void AppendSignedAndUnsigned(int64_t signed_value, uint64_t unsigned_value, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{}", signed_value);
  if (signed_value < 0) fmt::format_to(std::back_inserter(out), " ({})", unsigned_value);
}

void AppendPrintf(std::string& out, const char* format, double value) {
  char buf[400];
  const int n = std::snprintf(buf, sizeof buf, format, value);
  out.append(buf, static_cast<size_t>(n));
}

// DATE as mysqlbinlog prints it: 'YYYY:MM:DD' with colons (a quirk both tools share).
void AppendMysqlbinlogDate(const TemporalParts& p, std::string& out) {
  fmt::format_to(std::back_inserter(out), "'{:04}:{:02}:{:02}'", p.year, p.month, p.day);
}

// ---- JSON text --------------------------------------------------------------------------

template <typename Float>
void AppendShortestNumber(Float value, std::string& out) {
  if (!std::isfinite(value)) {
    out.append("null");
    return;
  }
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendIsoDateTime(const TemporalParts& p, uint32_t fsp, std::string& out) {
  const size_t start = out.size();
  AppendDateTimeText(p, fsp, out);
  out[out.find(' ', start)] = 'T';
}

void AppendJsonDiffAsJson(const Cell& cell, std::string& out) {
  out.append("{\"json_diff\":[");
  JsonDiffReader reader(cell.data, cell.size);
  JsonDiff diff;
  bool first = true;
  std::string text;
  while (reader.Next(diff)) {
    if (!first) out.push_back(',');
    first = false;
    const char* op = diff.operation == JsonDiffOperation::kReplace  ? "replace"
                     : diff.operation == JsonDiffOperation::kInsert ? "insert"
                                                                    : "remove";
    fmt::format_to(std::back_inserter(out), "{{\"op\":\"{}\",\"path\":", op);
    AppendJsonString(diff.path, out);
    if (diff.operation != JsonDiffOperation::kRemove) {
      out.append(",\"value\":");
      text.clear();
      AppendJsonBinaryText(diff.value, diff.value_size, text);
      AppendUtf8Sanitized(text, out);
    }
    out.push_back('}');
  }
  out.append("]}");
}

}  // namespace

void AppendMysqlbinlogValue(const Cell& cell, std::string& out) {
  if (cell.is_null) {
    out.append("NULL");
    return;
  }
  const ColumnDef& column = *cell.column;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      AppendSignedAndUnsigned(CellSignedInteger(cell), CellUnsignedInteger(cell), out);
      return;
    case ColumnType::kFloat:
      AppendPrintf(out, "%-20g", static_cast<double>(CellFloat(cell)));
      return;
    case ColumnType::kDouble:
      AppendPrintf(out, "%-.20g", CellDouble(cell));
      return;
    case ColumnType::kNewDecimal:
      AppendDecimalText(cell.data, cell.size, column.precision, column.scale, out);
      return;
    case ColumnType::kBit: {
      const uint32_t bits = column.meta;
      if (bits < 1 || bits > 64) {
        Fail(ErrorCode::kCorruption, "column @{} ({}): BIT width {} is outside 1..64",
             cell.index + 1, ColumnName(cell), bits);
      }
      value_detail::NeedBytes(cell, (bits + 7) / 8, "BIT");
      AppendBitString(cell.data, bits, out);
      return;
    }
    case ColumnType::kTimestamp:
      // Both tools print the 32-bit value with %d.
      fmt::format_to(std::back_inserter(out), "{}",
                     static_cast<int32_t>(DecodeTimestamp(cell.data, cell.size).seconds));
      return;
    case ColumnType::kTimestamp2: {
      const TimestampValue ts = DecodeTimestamp2(cell.data, cell.size, column.meta);
      fmt::format_to(std::back_inserter(out), "{}", ts.seconds);
      if (column.meta > 0) {
        TemporalParts fraction;
        fraction.microsecond = ts.microsecond;
        std::string tail;
        AppendTimeText(fraction, column.meta, tail);  // "00:00:00.fff"
        out.append(tail, 8);
      }
      return;
    }
    case ColumnType::kDateTime:
      out.push_back('\'');
      AppendDateTimeText(DecodeDateTime(cell.data, cell.size), 0, out);
      out.push_back('\'');
      return;
    case ColumnType::kDateTime2:
      out.push_back('\'');
      AppendDateTimeText(DecodeDateTime2(cell.data, cell.size, column.meta), column.meta, out);
      out.push_back('\'');
      return;
    case ColumnType::kTime:
      out.push_back('\'');
      AppendTimeText(DecodeTime(cell.data, cell.size), 0, out);
      out.push_back('\'');
      return;
    case ColumnType::kTime2:
      out.push_back('\'');
      AppendTimeText(DecodeTime2(cell.data, cell.size, column.meta), column.meta, out);
      out.push_back('\'');
      return;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      AppendMysqlbinlogDate(DecodeDate(cell.data, cell.size), out);
      return;
    case ColumnType::kYear:
      // 1900 + stored byte, the zero year included ("1900"), as both tools print it.
      fmt::format_to(std::back_inserter(out), "{}", 1900 + CellUInt8(cell));
      return;
    case ColumnType::kEnum:
      fmt::format_to(std::back_inserter(out), "{}", CellEnumIndex(cell));
      return;
    case ColumnType::kSet:
      CellSetBits(cell);  // validates the width
      AppendBitString(cell.data, cell.size * 8, out);
      return;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kGeometry:
    case ColumnType::kVector:
      AppendMariadbQuoted(cell.data, cell.size, out);
      return;
    case ColumnType::kJson:
      if (cell.is_json_diff) {
        AppendJsonDiffText(cell.data, cell.size, cell.index + 1, out);
      } else {
        AppendJsonBinaryForMysqlbinlog(cell.data, cell.size, out);
      }
      return;
    case ColumnType::kNull:
      out.append("NULL");
      return;
    case ColumnType::kDecimal:
    case ColumnType::kTypedArray:
    case ColumnType::kInvalid:
    case ColumnType::kBool:
      Unsupported(cell);
  }
  Unsupported(cell);
}

void AppendJsonValue(const Cell& cell, std::string& out) {
  if (cell.is_null) {
    out.append("null");
    return;
  }
  const ColumnDef& column = *cell.column;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      if (column.is_unsigned) {
        fmt::format_to(std::back_inserter(out), "{}", CellUnsignedInteger(cell));
      } else {
        fmt::format_to(std::back_inserter(out), "{}", CellSignedInteger(cell));
      }
      return;
    case ColumnType::kFloat:
      AppendShortestNumber(CellFloat(cell), out);
      return;
    case ColumnType::kDouble:
      AppendShortestNumber(CellDouble(cell), out);
      return;
    case ColumnType::kNewDecimal:
      out.push_back('"');
      AppendDecimalText(cell.data, cell.size, column.precision, column.scale, out);
      out.push_back('"');
      return;
    case ColumnType::kBit:
      fmt::format_to(std::back_inserter(out), "{}", CellBit(cell));
      return;
    case ColumnType::kYear:
      fmt::format_to(std::back_inserter(out), "{}", CellYear(cell));
      return;
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2: {
      const uint32_t fsp = column.type == ColumnType::kTimestamp ? 0 : column.meta;
      const TimestampValue ts = column.type == ColumnType::kTimestamp
                                    ? DecodeTimestamp(cell.data, cell.size)
                                    : DecodeTimestamp2(cell.data, cell.size, fsp);
      out.push_back('"');
      AppendIsoDateTime(TimestampToUtcParts(ts), fsp, out);
      out.append("Z\"");
      return;
    }
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2: {
      const uint32_t fsp = column.type == ColumnType::kDateTime ? 0 : column.meta;
      const TemporalParts parts = column.type == ColumnType::kDateTime
                                      ? DecodeDateTime(cell.data, cell.size)
                                      : DecodeDateTime2(cell.data, cell.size, fsp);
      out.push_back('"');
      AppendIsoDateTime(parts, fsp, out);
      out.push_back('"');
      return;
    }
    case ColumnType::kTime:
    case ColumnType::kTime2: {
      const uint32_t fsp = column.type == ColumnType::kTime ? 0 : column.meta;
      const TemporalParts parts = column.type == ColumnType::kTime
                                      ? DecodeTime(cell.data, cell.size)
                                      : DecodeTime2(cell.data, cell.size, fsp);
      out.push_back('"');
      AppendTimeText(parts, fsp, out);
      out.push_back('"');
      return;
    }
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      out.push_back('"');
      AppendDateText(DecodeDate(cell.data, cell.size), out);
      out.push_back('"');
      return;
    case ColumnType::kEnum: {
      const uint16_t index = CellEnumIndex(cell);
      const auto& labels = column.enum_values;
      if (!labels.empty() && index <= labels.size()) {
        AppendJsonString(index == 0 ? std::string_view() : std::string_view(labels[index - 1]),
                         out);
      } else {
        fmt::format_to(std::back_inserter(out), "{}", index);
      }
      return;
    }
    case ColumnType::kSet: {
      const uint64_t bits = CellSetBits(cell);
      const auto& labels = column.set_values;
      const bool fits = labels.size() >= 64 || (bits >> labels.size()) == 0;
      if (labels.empty() || !fits) {
        fmt::format_to(std::back_inserter(out), "{}", bits);
        return;
      }
      out.push_back('[');
      bool first = true;
      for (size_t i = 0; i < labels.size() && i < 64; ++i) {
        if (((bits >> i) & 1) == 0) continue;
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(labels[i], out);
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
      if (column.charset == kBinaryCharset) {
        out.push_back('"');
        AppendBase64(cell.data, cell.size, out);
        out.push_back('"');
      } else {
        AppendJsonString(std::string_view(reinterpret_cast<const char*>(cell.data), cell.size),
                         out);
      }
      return;
    case ColumnType::kGeometry:
      out.push_back('"');
      AppendBase64(cell.data, cell.size, out);
      out.push_back('"');
      return;
    case ColumnType::kVector: {
      const size_t n = CellVectorLength(cell);
      out.push_back('[');
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) out.push_back(',');
        uint32_t bits = 0;
        for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(cell.data[4 * i + b]) << (8 * b);
        AppendShortestNumber(std::bit_cast<float>(bits), out);
      }
      out.push_back(']');
      return;
    }
    case ColumnType::kJson:
      if (cell.is_json_diff) {
        AppendJsonDiffAsJson(cell, out);
      } else {
        std::string text;
        AppendJsonBinaryText(cell.data, cell.size, text);
        AppendUtf8Sanitized(text, out);
      }
      return;
    case ColumnType::kNull:
      out.append("null");
      return;
    case ColumnType::kDecimal:
    case ColumnType::kTypedArray:
    case ColumnType::kInvalid:
    case ColumnType::kBool:
      Unsupported(cell);
  }
  Unsupported(cell);
}

}  // namespace rowbridge::binlog
