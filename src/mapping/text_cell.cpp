#include "mapping/text_cell.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "binlog/column_type.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "common/error.h"
#include "mapping/cell_bytes.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnDef;
using binlog::ColumnType;
using Buffer = std::array<uint8_t, kTextCellBufferSize>;

[[noreturn]] void BadText(std::string_view context, const ColumnDef& column, std::string_view text,
                          std::string_view why) {
  BadSourceValue(context, column, text, why);
}

template <typename T>
bool ParseNumber(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

// Reads `width` digits (exactly) at `pos`.
bool Digits(std::string_view s, size_t& pos, size_t width, uint32_t& out) {
  if (pos + width > s.size()) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  pos += width;
  out = v;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// ".ffffff" (1..6 digits) at the end of the text, as microseconds; nothing at all is 0.
bool Fraction(std::string_view s, size_t& pos, uint32_t& micros) {
  micros = 0;
  if (pos == s.size()) return true;
  if (s[pos] != '.') return false;
  ++pos;
  size_t digits = 0;
  while (pos < s.size() && digits < 6) {
    const char c = s[pos];
    if (c < '0' || c > '9') return false;
    micros = micros * 10 + static_cast<uint32_t>(c - '0');
    ++pos;
    ++digits;
  }
  if (digits == 0 || pos != s.size()) return false;
  for (; digits < 6; ++digits) micros *= 10;
  return true;
}

bool ParseDate(std::string_view s, size_t& pos, binlog::TemporalParts& p) {
  return Digits(s, pos, 4, p.year) && Expect(s, pos, '-') && Digits(s, pos, 2, p.month) &&
         Expect(s, pos, '-') && Digits(s, pos, 2, p.day) && p.month <= 12 && p.day <= 31;
}

bool ParseDateTime(std::string_view s, binlog::TemporalParts& p) {
  size_t pos = 0;
  return ParseDate(s, pos, p) && Expect(s, pos, ' ') && Digits(s, pos, 2, p.hour) &&
         Expect(s, pos, ':') && Digits(s, pos, 2, p.minute) && Expect(s, pos, ':') &&
         Digits(s, pos, 2, p.second) && Fraction(s, pos, p.microsecond) && p.hour < 24 &&
         p.minute < 60 && p.second < 60;
}

void EncodeInteger(const ColumnDef& column, std::string_view text, Buffer& buffer,
                   std::string_view context, Cell& cell) {
  const size_t width = binlog::IntegerWidth(column.type);
  uint64_t bits = 0;
  if (column.is_unsigned) {
    uint64_t v = 0;
    if (!ParseNumber(text, v)) BadText(context, column, text, "not an unsigned integer");
    if (width < 8 && v >> (8 * width) != 0) BadText(context, column, text, "too large");
    bits = v;
  } else {
    int64_t v = 0;
    if (!ParseNumber(text, v)) BadText(context, column, text, "not an integer");
    if (width < 8) {
      const int64_t limit = int64_t{1} << (8 * width - 1);
      if (v < -limit || v >= limit) BadText(context, column, text, "out of the type's range");
    }
    bits = static_cast<uint64_t>(v);
  }
  StoreLittleEndian(buffer.data(), bits, width);
  cell.data = buffer.data();
  cell.size = width;
}

void EncodeDecimal(const ColumnDef& column, std::string_view text, Buffer& buffer,
                   std::string_view context, Cell& cell) {
  cell.size = PackDecimalText(column, text, buffer, context);
  cell.data = buffer.data();
}

void EncodeTime2(const ColumnDef& column, std::string_view text, Buffer& buffer,
                 std::string_view context, Cell& cell) {
  const uint32_t fsp = column.meta;
  size_t pos = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++pos;
  size_t colon = text.find(':', pos);
  uint32_t hour = 0, minute = 0, second = 0, micros = 0;
  if (colon == std::string_view::npos || colon == pos || colon - pos > 4 ||
      !Digits(text, pos, colon - pos, hour) || !Expect(text, pos, ':') ||
      !Digits(text, pos, 2, minute) || !Expect(text, pos, ':') || !Digits(text, pos, 2, second) ||
      !Fraction(text, pos, micros) || minute > 59 || second > 59 || hour > 1023)
    BadText(context, column, text, "not a TIME");
  if (fsp > 6) BadText(context, column, text, "fractional precision above 6");
  cell.data = buffer.data();
  cell.size = PackTime2(negative, hour, minute, second, micros, fsp, buffer.data());
}

void EncodeFixed(const ColumnDef& column, std::string_view text, Buffer& buffer,
                 std::string_view context, Cell& cell) {
  uint8_t* p = buffer.data();
  cell.data = p;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      EncodeInteger(column, text, buffer, context, cell);
      return;
    case ColumnType::kYear: {
      uint32_t year = 0;
      if (!ParseNumber(text, year) || (year != 0 && (year < 1901 || year > 2155)))
        BadText(context, column, text, "not a YEAR");
      p[0] = static_cast<uint8_t>(year == 0 ? 0 : year - 1900);
      cell.size = 1;
      return;
    }
    case ColumnType::kFloat: {
      double d = 0;
      if (!ParseNumber(text, d)) BadText(context, column, text, "not a number");
      const float f = static_cast<float>(d);
      if (static_cast<double>(f) != d)
        BadText(context, column, text, "not a FLOAT value (select FLOAT columns as `c` + 0e0)");
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      StoreLittleEndian(p, bits, 4);
      cell.size = 4;
      return;
    }
    case ColumnType::kDouble: {
      double d = 0;
      if (!ParseNumber(text, d)) BadText(context, column, text, "not a number");
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      StoreLittleEndian(p, bits, 8);
      cell.size = 8;
      return;
    }
    case ColumnType::kNewDecimal:
      EncodeDecimal(column, text, buffer, context, cell);
      return;
    case ColumnType::kBit: {
      uint64_t v = 0;
      if (!ParseNumber(text, v))
        BadText(context, column, text, "not a BIT number (select CAST(`c` AS UNSIGNED))");
      const size_t bytes = (column.meta + 7) / 8;
      if (bytes == 0 || bytes > 8 || (column.meta < 64 && v >> column.meta != 0))
        BadText(context, column, text, "too large for the BIT width");
      StoreBigEndian(p, v, bytes);
      cell.size = bytes;
      return;
    }
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      uint64_t v = 0;
      if (!ParseNumber(text, v))
        BadText(context, column, text, "not an index or bitmask (select CAST(`c` AS UNSIGNED))");
      const size_t bytes = column.meta;
      if (bytes == 0 || bytes > 8 || (bytes < 8 && v >> (8 * bytes) != 0))
        BadText(context, column, text, "too large for the column");
      StoreLittleEndian(p, v, bytes);
      cell.size = bytes;
      return;
    }
    case ColumnType::kDate:
    case ColumnType::kNewDate: {
      binlog::TemporalParts t;
      size_t pos = 0;
      if (!ParseDate(text, pos, t) || pos != text.size())
        BadText(context, column, text, "not a DATE");
      cell.size = PackDate(t, p);
      return;
    }
    case ColumnType::kDateTime2: {
      binlog::TemporalParts t;
      if (!ParseDateTime(text, t)) BadText(context, column, text, "not a DATETIME");
      cell.size = PackDateTime2(t, column.meta, p);
      return;
    }
    case ColumnType::kTimestamp2: {
      binlog::TemporalParts t;
      if (!ParseDateTime(text, t)) BadText(context, column, text, "not a TIMESTAMP");
      const int64_t seconds = UtcSeconds(t);
      if (seconds < 0 || seconds > 0xFFFFFFFFLL)
        BadText(context, column, text,
                "outside the TIMESTAMP range (is the session time_zone UTC?)");
      cell.size = PackTimestamp2(static_cast<uint64_t>(seconds), t.microsecond, column.meta, p);
      return;
    }
    case ColumnType::kTime2:
      EncodeTime2(column, text, buffer, context, cell);
      return;
    default:
      Fail(ErrorCode::kUnsupported, "{}: a {} column cannot be read from the text protocol",
           context, binlog::ColumnTypeName(column.type));
  }
}

}  // namespace

std::string TextSelectExpression(const ColumnDef& column, std::string_view quoted_name) {
  switch (column.type) {
    case ColumnType::kBit:
    case ColumnType::kEnum:
    case ColumnType::kSet:
      // Not `c + 0`: a DOUBLE on MySQL, and negative for a 64-member SET on every server.
      return fmt::format("CAST({} AS UNSIGNED) AS {}", quoted_name, quoted_name);
    case ColumnType::kFloat:
    // DOUBLE(M,D) is sent as text rounded to D decimals, not as the double it stores (which the
    // binlog carries); `+ 0e0` makes the server print the stored value in full.
    case ColumnType::kDouble:
      return fmt::format("({} + 0e0) AS {}", quoted_name, quoted_name);
    default:
      return std::string(quoted_name);
  }
}

binlog::ColumnDef SelectedColumn(const binlog::ColumnDef& column) {
  binlog::ColumnDef out = column;
  if (out.type == ColumnType::kJson) {
    out.type = out.wire_type = ColumnType::kBlob;
    out.meta = 4;
    if (out.charset == 63 || out.charset == 0) out.charset = 45;  // utf8mb4_general_ci
  }
  return out;
}

void EncodeTextCell(const ColumnDef& column, uint32_t index, std::optional<std::string_view> text,
                    Buffer& buffer, std::string_view context, Cell& cell) {
  cell.column = &column;
  cell.index = index;
  cell.is_json_diff = false;
  if (!text) {
    cell.is_null = true;
    cell.data = nullptr;
    cell.size = 0;
    return;
  }
  cell.is_null = false;
  switch (column.type) {
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
      const std::string_view bytes = RowEventBytes(column, *text);
      cell.data = reinterpret_cast<const uint8_t*>(bytes.data());
      cell.size = bytes.size();
      return;
    }
    default:
      EncodeFixed(column, *text, buffer, context, cell);
  }
}

TextRowEncoder::TextRowEncoder(std::span<const ColumnDef> columns, std::string table)
    : columns_(columns), buffers_(columns.size()), cells_(columns.size()) {
  contexts_.reserve(columns.size());
  for (const ColumnDef& c : columns) contexts_.push_back(table + "." + c.name);
}

std::span<const Cell> TextRowEncoder::Encode(
    std::span<const std::optional<std::string_view>> fields) {
  if (fields.size() != columns_.size())
    Fail(ErrorCode::kInvalidArgument, "{} fields for {} columns", fields.size(), columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    EncodeTextCell(columns_[i], static_cast<uint32_t>(i), fields[i], buffers_[i], contexts_[i],
                   cells_[i]);
  }
  return cells_;
}

}  // namespace rowbridge::mapping
