#include "mapping/cell_bytes.h"

#include "binlog/column_type.h"
#include "binlog/decimal.h"
#include "common/error.h"

namespace rowbridge::mapping {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, uint32_t m, uint32_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The fraction part of DATETIME2 / TIMESTAMP2 (non-negative values).
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

}  // namespace

void BadSourceValue(std::string_view context, const binlog::ColumnDef& column,
                    std::string_view shown, std::string_view why) {
  Fail(ErrorCode::kProtocol, "{}: the source sent '{}' for a {} column: {}", context,
       shown.substr(0, 80), binlog::ColumnTypeName(column.type), why);
}

void StoreLittleEndian(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void StoreBigEndian(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[n - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
}

size_t PackDecimalText(const binlog::ColumnDef& column, std::string_view text, CellBuffer& buffer,
                       std::string_view context) {
  static constexpr uint8_t kDigitBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  const int precision = column.precision;
  const int scale = column.scale;
  const size_t size = binlog::DecimalBinarySize(precision, scale);
  if (size > buffer.size()) BadSourceValue(context, column, text, "DECIMAL too wide");
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
    BadSourceValue(context, column, text, "does not fit the column's precision and scale");
  for (char c : int_digits)
    if (c < '0' || c > '9') BadSourceValue(context, column, text, "not a decimal number");
  for (char c : frac_digits)
    if (c < '0' || c > '9') BadSourceValue(context, column, text, "not a decimal number");
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
  return size;
}

size_t PackDate(const binlog::TemporalParts& t, uint8_t* p) {
  StoreLittleEndian(p, t.day | t.month << 5 | t.year << 9, 3);
  return 3;
}

size_t PackDateTime2(const binlog::TemporalParts& t, uint32_t fsp, uint8_t* p) {
  const uint64_t ymd = (uint64_t{t.year} * 13 + t.month) << 5 | t.day;
  const uint64_t hms = uint64_t{t.hour} << 12 | t.minute << 6 | t.second;
  StoreBigEndian(p, (ymd << 17 | hms) + 0x8000000000ULL, 5);
  StoreFraction(p + 5, t.microsecond, fsp);
  return binlog::DateTime2Bytes(fsp);
}

int64_t UtcSeconds(const binlog::TemporalParts& t) {
  if (t.year == 0 && t.month == 0 && t.day == 0) return 0;
  return DaysFromCivil(t.year, t.month, t.day) * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
}

size_t PackTimestamp2(uint64_t seconds, uint32_t microsecond, uint32_t fsp, uint8_t* p) {
  StoreBigEndian(p, seconds, 4);
  StoreFraction(p + 4, microsecond, fsp);
  return binlog::Timestamp2Bytes(fsp);
}

size_t PackTime2(bool negative, uint32_t hour, uint32_t minute, uint32_t second,
                 uint32_t microsecond, uint32_t fsp, uint8_t* p) {
  int64_t packed = ((int64_t{hour} << 12 | minute << 6 | second) << 24) + microsecond;
  if (negative) packed = -packed;
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
    default:  // 5, 6
      StoreBigEndian(p, static_cast<uint64_t>(packed + (int64_t{0x800000} << 24)), 6);
      break;
  }
  return binlog::Time2Bytes(fsp);
}

std::string_view RowEventBytes(const binlog::ColumnDef& column, std::string_view value) {
  if (column.type == binlog::ColumnType::kString && column.charset == 63) {
    while (!value.empty() && value.back() == '\0') value.remove_suffix(1);
  }
  return value;
}

}  // namespace rowbridge::mapping
