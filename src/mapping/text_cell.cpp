#include "mapping/text_cell.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "binlog/column_type.h"
#include "binlog/decimal.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "common/error.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnDef;
using binlog::ColumnType;
using Buffer = std::array<uint8_t, kTextCellBufferSize>;

[[noreturn]] void BadText(std::string_view context, const ColumnDef& column, std::string_view text,
                          std::string_view why) {
  Fail(ErrorCode::kProtocol, "{}: the source sent '{}' for a {} column: {}", context,
       text.substr(0, 80), binlog::ColumnTypeName(column.type), why);
}

void StoreLittleEndian(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void StoreBigEndian(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[n - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
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

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, uint32_t m, uint32_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The fraction part of DATETIME2 / TIMESTAMP2 / TIME2 (non-negative values).
void StoreFraction(uint8_t* p, uint32_t micros, uint32_t fsp) {
  switch (fsp) {
    case 1:
    case 2:
      p[0] = static_cast<uint8_t>(micros / 10000);
      break;
    case 3:
    case 4:
      StoreBigEndian(p, micros / 100, 2);
      break;
    case 5:
    case 6:
      StoreBigEndian(p, micros, 3);
      break;
    default:
      break;
  }
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
  static constexpr uint8_t kDigitBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  const int precision = column.precision;
  const int scale = column.scale;
  const size_t size = binlog::DecimalBinarySize(precision, scale);
  if (size > buffer.size()) BadText(context, column, text, "DECIMAL too wide");
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view int_digits = s.substr(0, dot);
  std::string_view frac_digits =
      dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  while (int_digits.size() > 1 && int_digits[0] == '0') int_digits.remove_prefix(1);
  if (int_digits == "0") int_digits = {};
  const int intg = precision - scale;
  if (int_digits.size() > static_cast<size_t>(intg) ||
      frac_digits.size() > static_cast<size_t>(scale) || (s.empty()))
    BadText(context, column, text, "does not fit the column's precision and scale");
  for (char c : int_digits)
    if (c < '0' || c > '9') BadText(context, column, text, "not a decimal number");
  for (char c : frac_digits)
    if (c < '0' || c > '9') BadText(context, column, text, "not a decimal number");
  // Digit i of the integer part counted from the left of an intg-digit field (0 = padding).
  auto int_digit = [&](int i) -> uint32_t {
    const int pad = intg - static_cast<int>(int_digits.size());
    return i < pad ? 0 : static_cast<uint32_t>(int_digits[static_cast<size_t>(i - pad)] - '0');
  };
  auto frac_digit = [&](int i) -> uint32_t {
    return static_cast<size_t>(i) < frac_digits.size()
               ? static_cast<uint32_t>(frac_digits[static_cast<size_t>(i)] - '0')
               : 0;
  };
  uint8_t* p = buffer.data();
  auto put_group = [&](uint32_t value, int digits) {
    const size_t bytes = digits == 9 ? 4 : kDigitBytes[digits];
    StoreBigEndian(p, value, bytes);
    p += bytes;
  };
  const int intg0 = intg / 9, intg0x = intg % 9;
  const int frac0 = scale / 9, frac0x = scale % 9;
  int at = 0;
  if (intg0x > 0) {
    uint32_t v = 0;
    for (int i = 0; i < intg0x; ++i) v = v * 10 + int_digit(at++);
    put_group(v, intg0x);
  }
  for (int g = 0; g < intg0; ++g) {
    uint32_t v = 0;
    for (int i = 0; i < 9; ++i) v = v * 10 + int_digit(at++);
    put_group(v, 9);
  }
  at = 0;
  for (int g = 0; g < frac0; ++g) {
    uint32_t v = 0;
    for (int i = 0; i < 9; ++i) v = v * 10 + frac_digit(at++);
    put_group(v, 9);
  }
  if (frac0x > 0) {
    uint32_t v = 0;
    for (int i = 0; i < frac0x; ++i) v = v * 10 + frac_digit(at++);
    put_group(v, frac0x);
  }
  // -0 is stored as 0, as the server does.
  bool zero = true;
  for (uint8_t* q = buffer.data(); q != p; ++q) zero = zero && *q == 0;
  if (negative && !zero)
    for (uint8_t* q = buffer.data(); q != p; ++q) *q = static_cast<uint8_t>(~*q);
  buffer[0] ^= 0x80;
  cell.data = buffer.data();
  cell.size = size;
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
  int64_t packed = ((int64_t{hour} << 12 | minute << 6 | second) << 24) + micros;
  if (negative) packed = -packed;
  uint8_t* p = buffer.data();
  switch (fsp) {
    case 0:
      StoreBigEndian(p, static_cast<uint64_t>((packed >> 24) + 0x800000), 3);
      break;
    case 1:
    case 2:
      StoreBigEndian(p, static_cast<uint64_t>((packed >> 24) + 0x800000), 3);
      p[3] = static_cast<uint8_t>(static_cast<int8_t>((packed % (int64_t{1} << 24)) / 10000));
      break;
    case 3:
    case 4:
      StoreBigEndian(p, static_cast<uint64_t>((packed >> 24) + 0x800000), 3);
      StoreBigEndian(
          p + 3, static_cast<uint16_t>(static_cast<int16_t>((packed % (int64_t{1} << 24)) / 100)),
          2);
      break;
    case 5:
    case 6:
      StoreBigEndian(p, static_cast<uint64_t>(packed + (int64_t{0x800000} << 24)), 6);
      break;
    default:
      BadText(context, column, text, "fractional precision above 6");
  }
  cell.data = p;
  cell.size = binlog::Time2Bytes(fsp);
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
        BadText(context, column, text, "not a BIT number (select `c` + 0)");
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
        BadText(context, column, text, "not an index or bitmask (select `c` + 0)");
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
      StoreLittleEndian(p, t.day | t.month << 5 | t.year << 9, 3);
      cell.size = 3;
      return;
    }
    case ColumnType::kDateTime2: {
      binlog::TemporalParts t;
      if (!ParseDateTime(text, t)) BadText(context, column, text, "not a DATETIME");
      const uint64_t ymd = (uint64_t{t.year} * 13 + t.month) << 5 | t.day;
      const uint64_t hms = uint64_t{t.hour} << 12 | t.minute << 6 | t.second;
      StoreBigEndian(p, (ymd << 17 | hms) + 0x8000000000ULL, 5);
      StoreFraction(p + 5, t.microsecond, column.meta);
      cell.size = binlog::DateTime2Bytes(column.meta);
      return;
    }
    case ColumnType::kTimestamp2: {
      binlog::TemporalParts t;
      if (!ParseDateTime(text, t)) BadText(context, column, text, "not a TIMESTAMP");
      int64_t seconds = 0;
      if (t.year != 0 || t.month != 0 || t.day != 0) {
        seconds = DaysFromCivil(t.year, t.month, t.day) * 86400 + t.hour * 3600 + t.minute * 60 +
                  t.second;
      }
      if (seconds < 0 || seconds > 0xFFFFFFFFLL)
        BadText(context, column, text,
                "outside the TIMESTAMP range (is the session time_zone UTC?)");
      StoreBigEndian(p, static_cast<uint64_t>(seconds), 4);
      StoreFraction(p + 4, t.microsecond, column.meta);
      cell.size = binlog::Timestamp2Bytes(column.meta);
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
      return fmt::format("({} + 0) AS {}", quoted_name, quoted_name);
    case ColumnType::kFloat:
    // DOUBLE(M,D) is sent as text rounded to D decimals, not as the double it stores (which the
    // binlog carries); `+ 0e0` makes the server print the stored value in full.
    case ColumnType::kDouble:
      return fmt::format("({} + 0e0) AS {}", quoted_name, quoted_name);
    default:
      return std::string(quoted_name);
  }
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
      std::string_view bytes = *text;
      // Row events carry BINARY(n) without its 0x00 padding (the server strips the pad bytes).
      if (column.type == ColumnType::kString && column.charset == 63) {
        while (!bytes.empty() && bytes.back() == '\0') bytes.remove_suffix(1);
      }
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
