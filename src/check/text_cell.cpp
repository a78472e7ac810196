#include "check/text_cell.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "binlog/decimal.h"
#include "common/error.h"

namespace rowbridge::check {

using binlog::ColumnDef;
using binlog::ColumnType;

namespace {

[[noreturn]] void BadText(const ColumnDef& column, std::string_view text, const char* what) {
  Fail(ErrorCode::kCorruption, "source column {}: cannot read {} from the text '{}'", column.name,
       what, text);
}

template <typename T>
T ParseNumber(const ColumnDef& column, std::string_view text, const char* what) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) BadText(column, text, what);
  return value;
}

void StoreBigEndian(uint8_t* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[bytes - 1 - i] = static_cast<uint8_t>(value >> (8 * i));
}
void StoreLittleEndian(uint8_t* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

// Reads exactly `n` digits at `pos`.
bool Digits(std::string_view text, size_t& pos, size_t n, uint32_t& value) {
  if (pos + n > text.size()) return false;
  value = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  pos += n;
  return true;
}

// An optional ".ffffff" (1..6 digits) at `pos`, as microseconds; must end the text.
bool Fraction(std::string_view text, size_t& pos, uint32_t& micro) {
  micro = 0;
  if (pos == text.size()) return true;
  if (text[pos] != '.') return false;
  ++pos;
  const size_t digits = text.size() - pos;
  if (digits == 0 || digits > 6 || !Digits(text, pos, digits, micro)) return false;
  for (size_t i = digits; i < 6; ++i) micro *= 10;
  return true;
}

struct Civil {
  uint32_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micro = 0;
};

Civil ParseDateTimeText(const ColumnDef& column, std::string_view text, bool with_time) {
  Civil c;
  size_t pos = 0;
  bool ok = Digits(text, pos, 4, c.year) && pos < text.size() && text[pos++] == '-' &&
            Digits(text, pos, 2, c.month) && pos < text.size() && text[pos++] == '-' &&
            Digits(text, pos, 2, c.day);
  if (ok && with_time) {
    ok = pos < text.size() && text[pos++] == ' ' && Digits(text, pos, 2, c.hour) &&
         pos < text.size() && text[pos++] == ':' && Digits(text, pos, 2, c.minute) &&
         pos < text.size() && text[pos++] == ':' && Digits(text, pos, 2, c.second) &&
         Fraction(text, pos, c.micro);
  }
  if (!ok || pos != text.size()) BadText(column, text, with_time ? "a DATETIME" : "a DATE");
  return c;
}

// The fractional part of the "2" temporal formats: (fsp + 1) / 2 bytes, big-endian.
size_t StoreFraction(uint8_t* out, uint32_t fsp, int64_t frac_micro) {
  switch (fsp) {
    case 0:
      return 0;
    case 1:
    case 2:
      out[0] = static_cast<uint8_t>(static_cast<int8_t>(frac_micro / 10000));
      return 1;
    case 3:
    case 4:
      StoreBigEndian(out, static_cast<uint16_t>(static_cast<int16_t>(frac_micro / 100)), 2);
      return 2;
    default:
      StoreBigEndian(out, static_cast<uint32_t>(frac_micro) & 0xffffff, 3);
      return 3;
  }
}

size_t EncodeDecimal(const ColumnDef& column, std::string_view text, uint8_t* out) {
  const int precision = column.precision;
  const int scale = column.scale;
  const size_t size = binlog::DecimalBinarySize(precision, scale);
  std::string_view rest = text;
  const bool negative = !rest.empty() && rest[0] == '-';
  if (negative) rest.remove_prefix(1);
  const size_t dot = rest.find('.');
  std::string_view int_text = rest.substr(0, dot);
  std::string_view frac_text =
      dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  while (int_text.size() > 1 && int_text[0] == '0') int_text.remove_prefix(1);
  const size_t int_digits = static_cast<size_t>(precision - scale);
  if (int_text.empty() || frac_text.size() > static_cast<size_t>(scale) ||
      (int_text != "0" && int_text.size() > int_digits) ||
      (dot != std::string_view::npos && frac_text.empty()))
    BadText(column, text, "a DECIMAL");
  for (char c : int_text)
    if (c < '0' || c > '9') BadText(column, text, "a DECIMAL");
  for (char c : frac_text)
    if (c < '0' || c > '9') BadText(column, text, "a DECIMAL");
  // Integer digits left-padded to the column's integer width, fraction right-padded to scale.
  char digits[binlog::kMaxDecimalPrecision + 1];
  size_t n = 0;
  const size_t int_len = int_text == "0" ? 0 : int_text.size();
  for (size_t i = int_len; i < int_digits; ++i) digits[n++] = '0';
  for (size_t i = 0; i < int_len; ++i) digits[n++] = int_text[i];
  for (char c : frac_text) digits[n++] = c;
  for (size_t i = frac_text.size(); i < static_cast<size_t>(scale); ++i) digits[n++] = '0';
  static constexpr size_t kGroupBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  size_t digit = 0, pos = 0;
  auto put = [&](size_t count) {
    uint32_t v = 0;
    for (size_t i = 0; i < count; ++i) v = v * 10 + static_cast<uint32_t>(digits[digit++] - '0');
    StoreBigEndian(out + pos, v, kGroupBytes[count]);
    pos += kGroupBytes[count];
  };
  if (int_digits % 9) put(int_digits % 9);
  for (size_t g = 0; g < int_digits / 9; ++g) put(9);
  for (int g = 0; g < scale / 9; ++g) put(9);
  if (scale % 9) put(static_cast<size_t>(scale % 9));
  if (pos != size)
    Fail(ErrorCode::kInternal, "source column {}: DECIMAL({},{}) encoded to {} bytes, not {}",
         column.name, precision, scale, pos, size);
  bool all_zero = true;
  for (size_t i = 0; i < n; ++i) all_zero = all_zero && digits[i] == '0';
  if (negative && !all_zero)
    for (size_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(~out[i]);
  out[0] ^= 0x80;
  return size;
}

}  // namespace

bool IsCheckableSourceType(const ColumnDef& column) {
  return column.type != ColumnType::kJson && column.type != ColumnType::kVector &&
         column.type != ColumnType::kNull && column.type != ColumnType::kTypedArray &&
         column.type != ColumnType::kInvalid && column.type != ColumnType::kDecimal;
}

std::string SourceSelectExpression(const ColumnDef& column, std::string_view quoted_name) {
  switch (column.type) {
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      return fmt::format("{} + 0e0", quoted_name);
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      return fmt::format("UNIX_TIMESTAMP({})", quoted_name);
    case ColumnType::kBit:
    case ColumnType::kEnum:
    case ColumnType::kSet:
      // Not `c + 0`: a DOUBLE on MySQL, and negative for a 64-member SET on every server.
      return fmt::format("CAST({} AS UNSIGNED)", quoted_name);
    default:
      return std::string(quoted_name);
  }
}

binlog::Cell TextCellEncoder::Encode(const ColumnDef& column, uint32_t index,
                                     std::optional<std::string_view> field) {
  binlog::Cell cell;
  cell.column = &column;
  cell.index = index;
  if (!field) {
    cell.is_null = true;
    return cell;
  }
  const std::string_view text = *field;
  uint8_t* out = buf_;
  size_t size = 0;
  switch (column.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong: {
      size = column.type == ColumnType::kTiny    ? 1
             : column.type == ColumnType::kShort ? 2
             : column.type == ColumnType::kInt24 ? 3
             : column.type == ColumnType::kLong  ? 4
                                                 : 8;
      const uint64_t v =
          !text.empty() && text[0] == '-'
              ? static_cast<uint64_t>(ParseNumber<int64_t>(column, text, "an integer"))
              : ParseNumber<uint64_t>(column, text, "an integer");
      StoreLittleEndian(out, v, size);
      break;
    }
    case ColumnType::kFloat: {
      // `col + 0e0` is the float widened to double, printed in full; narrowing is exact.
      const float v = static_cast<float>(ParseNumber<double>(column, text, "a FLOAT"));
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      StoreLittleEndian(out, bits, 4);
      size = 4;
      break;
    }
    case ColumnType::kDouble: {
      const double v = ParseNumber<double>(column, text, "a DOUBLE");
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      StoreLittleEndian(out, bits, 8);
      size = 8;
      break;
    }
    case ColumnType::kNewDecimal:
      size = EncodeDecimal(column, text, out);
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate: {
      const Civil c = ParseDateTimeText(column, text, false);
      StoreLittleEndian(out, c.day | c.month << 5 | c.year << 9, 3);
      size = 3;
      break;
    }
    case ColumnType::kDateTime2: {
      const Civil c = ParseDateTimeText(column, text, true);
      const uint64_t ymd = (uint64_t{c.year} * 13 + c.month) << 5 | c.day;
      const uint64_t hms = uint64_t{c.hour} << 12 | c.minute << 6 | c.second;
      StoreBigEndian(out, ((ymd << 17) | hms) + 0x8000000000ULL, 5);
      const uint32_t fsp = column.meta;
      size = 5 + StoreFraction(out + 5, fsp, c.micro);
      break;
    }
    case ColumnType::kTime2: {
      size_t pos = 0;
      const bool negative = !text.empty() && text[0] == '-';
      if (negative) pos = 1;
      const size_t colon = text.find(':', pos);
      uint32_t hour = 0, minute = 0, second = 0, micro = 0;
      bool ok = colon != std::string_view::npos && colon > pos && colon - pos <= 4 &&
                Digits(text, pos, colon - pos, hour) && text[pos++] == ':' &&
                Digits(text, pos, 2, minute) && pos < text.size() && text[pos++] == ':' &&
                Digits(text, pos, 2, second) && Fraction(text, pos, micro);
      if (!ok) BadText(column, text, "a TIME");
      int64_t packed =
          static_cast<int64_t>((uint64_t{hour} << 12 | minute << 6 | second) << 24) + micro;
      if (negative) packed = -packed;
      const uint32_t fsp = column.meta;
      if (fsp >= 5) {
        StoreBigEndian(out, static_cast<uint64_t>(packed + 0x800000000000LL), 6);
        size = 6;
      } else {
        const int64_t int_part = packed >> 24;  // floor, as the server computes it
        const int64_t frac = packed % (int64_t{1} << 24);
        StoreBigEndian(out, static_cast<uint64_t>(int_part + 0x800000), 3);
        size = 3 + StoreFraction(out + 3, fsp, frac);
      }
      break;
    }
    case ColumnType::kTimestamp2: {
      const size_t dot = text.find('.');
      const uint64_t seconds =
          ParseNumber<uint64_t>(column, text.substr(0, dot), "a TIMESTAMP (UNIX_TIMESTAMP)");
      uint32_t micro = 0;
      size_t pos = dot == std::string_view::npos ? text.size() : dot;
      if (!Fraction(text, pos, micro)) BadText(column, text, "a TIMESTAMP (UNIX_TIMESTAMP)");
      StoreBigEndian(out, seconds, 4);
      const uint32_t fsp = column.meta;
      size = 4 + StoreFraction(out + 4, fsp, micro);
      break;
    }
    case ColumnType::kDateTime:
    case ColumnType::kTime:
    case ColumnType::kTimestamp:
      // Source schemas are read as the "2" formats every supported server writes.
      Fail(ErrorCode::kInternal, "source column {}: old temporal storage format {}", column.name,
           binlog::ColumnTypeName(column.type));
    case ColumnType::kYear: {
      const uint32_t year = ParseNumber<uint32_t>(column, text, "a YEAR");
      out[0] = static_cast<uint8_t>(year == 0 ? 0 : year - 1900);
      size = 1;
      break;
    }
    case ColumnType::kBit: {
      const uint64_t v = ParseNumber<uint64_t>(column, text, "a BIT value");
      size = (column.meta + 7) / 8;
      StoreBigEndian(out, v, size);
      break;
    }
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      const uint64_t v = ParseNumber<uint64_t>(column, text, "an ENUM/SET number");
      size = column.meta;
      if (size == 0 || size > 8)
        Fail(ErrorCode::kInternal, "source column {}: pack length {}", column.name, column.meta);
      StoreLittleEndian(out, v, size);
      break;
    }
    default:
      if (!IsCheckableSourceType(column))
        Fail(ErrorCode::kUnsupported, "source column {}: check cannot compare type {}", column.name,
             binlog::ColumnTypeName(column.type));
      // Strings, BLOBs, GEOMETRY: the row image holds the bytes themselves.
      cell.data = reinterpret_cast<const uint8_t*>(text.data());
      cell.size = text.size();
      return cell;
  }
  cell.data = out;
  cell.size = size;
  return cell;
}

}  // namespace rowbridge::check
