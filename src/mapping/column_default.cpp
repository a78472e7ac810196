#include "mapping/column_default.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>
#include <vector>

#include "binlog/table_map_event.h"
#include "clickhouse/sql_quote.h"

namespace rowbridge::mapping {

using binlog::ColumnDef;
using binlog::ColumnType;
using clickhouse::TypeCode;
using clickhouse::TypeDesc;

namespace {

// A canonical default (schema::CanonicalDefault) taken apart.
struct DefaultLiteral {
  enum class Kind : uint8_t { kString, kNumber, kBits, kNow, kExpression };
  Kind kind = Kind::kExpression;
  std::string value;  // kString: decoded; kNumber: as written; kBits: the literal
};

DefaultLiteral ReadDefault(const std::string& text) {
  DefaultLiteral d;
  d.value = text;
  if (text == "CURRENT_TIMESTAMP") {
    d.kind = DefaultLiteral::Kind::kNow;
  } else if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
    d.kind = DefaultLiteral::Kind::kString;
    d.value.clear();
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      d.value += text[i];
      if (text[i] == '\'') ++i;  // the doubled quote
    }
  } else if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                               (text[0] == '-' && text.size() > 1) || text[0] == '.')) {
    const bool bits = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'b');
    d.kind = bits ? DefaultLiteral::Kind::kBits : DefaultLiteral::Kind::kNumber;
  } else if (text.size() > 2 && text[1] == '\'' &&
             std::string_view("xXbB").find(text[0]) != std::string_view::npos) {
    d.kind = DefaultLiteral::Kind::kBits;
  }
  return d;
}

// The unsigned value of a hex or bit literal (0x41, X'41', 0b101, b'101'), if it fits 64 bits.
std::optional<uint64_t> BitsValue(const std::string& literal) {
  std::string_view digits = literal;
  int base = 16;
  if (digits.size() > 2 && digits[0] == '0') {
    base = digits[1] == 'b' ? 2 : 16;
    digits.remove_prefix(2);
  } else {
    base = (digits[0] == 'b' || digits[0] == 'B') ? 2 : 16;
    digits = digits.substr(2, digits.size() - 3);
  }
  if (digits.empty()) return 0;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 128; });
}

bool IsInteger(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

bool IsNumber(std::string_view s) {
  double ignored = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), ignored);
  return ec == std::errc() && end == s.data() + s.size();
}

bool IsDecimalCode(TypeCode code) {
  return code == TypeCode::kDecimal32 || code == TypeCode::kDecimal64 ||
         code == TypeCode::kDecimal128 || code == TypeCode::kDecimal256;
}

// Whether the integer `text` is in the range of integer type `code` (the 128/256-bit types take
// anything a 64-bit literal can say).
bool IntegerFits(std::string_view text, TypeCode code) {
  struct Range {
    TypeCode code;
    int64_t min;
    uint64_t max;
  };
  static constexpr Range kRanges[] = {
      {TypeCode::kInt8, -128, 127},
      {TypeCode::kInt16, -32768, 32767},
      {TypeCode::kInt32, std::numeric_limits<int32_t>::min(), 2147483647},
      {TypeCode::kInt64, std::numeric_limits<int64_t>::min(), 9223372036854775807ULL},
      {TypeCode::kUInt8, 0, 255},
      {TypeCode::kUInt16, 0, 65535},
      {TypeCode::kUInt32, 0, 4294967295ULL},
      {TypeCode::kUInt64, 0, std::numeric_limits<uint64_t>::max()},
  };
  int64_t min = std::numeric_limits<int64_t>::min();
  uint64_t max = std::numeric_limits<uint64_t>::max();
  for (const Range& r : kRanges) {
    if (r.code == code) {
      min = r.min;
      max = r.max;
    }
  }
  if (!text.empty() && text[0] == '-') {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() && v >= min;
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v <= max;
}

// "YYYY-MM-DD" -> {y, m, d} when it is exactly that form and a real (non-zero) date.
std::optional<std::array<int, 3>> ReadDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  std::array<int, 3> parts{};
  const std::string_view fields[] = {s.substr(0, 4), s.substr(5, 2), s.substr(8, 2)};
  for (size_t i = 0; i < 3; ++i) {
    auto [end, ec] =
        std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), parts[i]);
    if (ec != std::errc() || end != fields[i].data() + fields[i].size()) return std::nullopt;
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int year = parts[0];
  const int month = parts[1];
  const int day = parts[2];
  if (year == 0 || month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) {
    return std::nullopt;
  }
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && day == 29 && !leap) return std::nullopt;
  return parts;
}

// "HH:MM:SS" optionally followed by ".digits"; `fraction` gets the digits.
bool ReadClock(std::string_view s, std::string_view& fraction) {
  if (s.size() < 8 || s[2] != ':' || s[5] != ':') return false;
  const int hour = (s[0] - '0') * 10 + (s[1] - '0');
  const int minute = (s[3] - '0') * 10 + (s[4] - '0');
  const int second = (s[6] - '0') * 10 + (s[7] - '0');
  for (size_t i : {0, 1, 3, 4, 6, 7}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  fraction = s.substr(8);
  if (fraction.empty()) return true;
  if (fraction[0] != '.') return false;
  fraction.remove_prefix(1);
  return !fraction.empty() && IsInteger(fraction);
}

class DefaultConverter {
 public:
  DefaultConverter(const ColumnDef& column, const TypeDesc& target)
      : column_(column), target_(Unwrapped(target)) {}

  TargetDefault Run() {
    if (!column_.default_value) return {};
    const DefaultLiteral d = ReadDefault(*column_.default_value);
    switch (d.kind) {
      case DefaultLiteral::Kind::kExpression:
        return Problem(
            "it is an expression, which the source evaluates for each row it fills; only "
            "constants are carried");
      case DefaultLiteral::Kind::kNow:
        return Problem(
            "ClickHouse would evaluate now() each time it reads a row written before the column "
            "existed, where the source filled those rows once");
      default:
        break;
    }
    if (binlog::IsNumericColumnType(column_.type)) return Number(d);
    switch (column_.type) {
      case ColumnType::kBit:
        return Bits(d);
      case ColumnType::kString:
      case ColumnType::kVarchar:
      case ColumnType::kVarString:
        return Text(d);
      case ColumnType::kEnum:
        return Enum(d);
      case ColumnType::kSet:
        return Set(d);
      case ColumnType::kDate:
      case ColumnType::kNewDate:
        return Date(d);
      case ColumnType::kDateTime:
      case ColumnType::kDateTime2:
        return DateTime(d);
      case ColumnType::kTimestamp:
      case ColumnType::kTimestamp2:
        return Problem(
            "a TIMESTAMP literal is read in the time zone of the session that set it, which the "
            "binlog does not say");
      default:
        return Problem(fmt::format("defaults of {} columns are not carried",
                                   binlog::ColumnTypeName(column_.type)));
    }
  }

 private:
  static const TypeDesc& Unwrapped(const TypeDesc& type) {
    if ((type.code == TypeCode::kNullable || type.code == TypeCode::kLowCardinality) &&
        !type.nested.empty()) {
      return Unwrapped(type.nested[0]);
    }
    return type;
  }

  static TargetDefault Expression(std::string expression) { return {std::move(expression), {}}; }
  static TargetDefault Problem(std::string why) { return {std::nullopt, std::move(why)}; }
  TargetDefault WrongTarget() const {
    return Problem(fmt::format("the target column's type {} does not take it", target_.name));
  }
  TargetDefault WrongValue(std::string_view expected) const {
    return Problem(fmt::format("{} is not {}", *column_.default_value, expected));
  }

  TargetDefault Number(const DefaultLiteral& d) const {
    // MySQL reads a string default of a numeric column as the number it spells.
    const std::string& text = d.value;
    if (d.kind == DefaultLiteral::Kind::kBits || !IsNumber(text)) {
      return WrongValue("a plain number");
    }
    if (clickhouse::IsIntegerCode(target_.code)) {
      if (!IsInteger(text)) return WrongValue("an integer");
      if (!IntegerFits(text, target_.code)) {
        return Problem(fmt::format("{} is outside the range of {}", text, target_.name));
      }
      return Expression(text);
    }
    // Decimal from its text: exact, where a float literal would round.
    if (IsDecimalCode(target_.code)) return Expression(clickhouse::QuoteString(text));
    if (target_.code == TypeCode::kFloat32 || target_.code == TypeCode::kFloat64) {
      return Expression(text);
    }
    return WrongTarget();
  }

  TargetDefault Bits(const DefaultLiteral& d) const {
    std::optional<uint64_t> value;
    if (d.kind == DefaultLiteral::Kind::kBits) value = BitsValue(d.value);
    if (d.kind == DefaultLiteral::Kind::kNumber && IsInteger(d.value) && d.value[0] != '-') {
      uint64_t v = 0;
      auto [end, ec] = std::from_chars(d.value.data(), d.value.data() + d.value.size(), v);
      if (ec == std::errc() && end == d.value.data() + d.value.size()) value = v;
    }
    if (!value) return WrongValue("a bit value");
    const std::string text = std::to_string(*value);
    if (!clickhouse::IsIntegerCode(target_.code)) return WrongTarget();
    if (!IntegerFits(text, target_.code)) {
      return Problem(fmt::format("{} is outside the range of {}", text, target_.name));
    }
    return Expression(text);
  }

  // The value as MySQL's text of the column, for a String target.
  TargetDefault StringOf(std::string_view text) const {
    if (!IsAscii(text)) {
      return Problem("its text is not ASCII, and the statement's bytes need not be the column's");
    }
    if (target_.code == TypeCode::kString) return Expression(clickhouse::QuoteString(text));
    if (target_.code == TypeCode::kFixedString && text.size() <= target_.width) {
      return Expression(clickhouse::QuoteString(text));
    }
    return WrongTarget();
  }

  TargetDefault Text(const DefaultLiteral& d) const {
    if (d.kind == DefaultLiteral::Kind::kBits) return WrongValue("a string");
    return StringOf(d.value);
  }

  // The declared label `text` names (labels compare case-insensitively, as the usual _ci
  // collations do), or nullptr.
  static const std::string* FindLabel(const std::vector<std::string>& labels,
                                      std::string_view text) {
    for (const std::string& label : labels) {
      if (label == text) return &label;
    }
    for (const std::string& label : labels) {
      if (label.size() == text.size() &&
          std::equal(label.begin(), label.end(), text.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          })) {
        return &label;
      }
    }
    return nullptr;
  }

  TargetDefault Enum(const DefaultLiteral& d) const {
    const std::string* label = nullptr;
    if (d.kind == DefaultLiteral::Kind::kString) {
      label = FindLabel(column_.enum_values, d.value);
    } else if (d.kind == DefaultLiteral::Kind::kNumber && IsInteger(d.value)) {
      // DEFAULT 2: the second label.
      const long index = std::strtol(d.value.c_str(), nullptr, 10);
      if (index >= 1 && static_cast<size_t>(index) <= column_.enum_values.size()) {
        label = &column_.enum_values[static_cast<size_t>(index - 1)];
      }
    }
    if (label == nullptr) return WrongValue("one of the column's labels");
    if (target_.code == TypeCode::kEnum8 || target_.code == TypeCode::kEnum16) {
      const bool known = std::any_of(target_.enum_items.begin(), target_.enum_items.end(),
                                     [&](const auto& item) { return item.first == *label; });
      if (!known) return WrongTarget();
      return Expression(clickhouse::QuoteString(*label));
    }
    return StringOf(*label);
  }

  TargetDefault Set(const DefaultLiteral& d) const {
    if (d.kind != DefaultLiteral::Kind::kString) return WrongValue("a list of labels");
    std::vector<bool> chosen(column_.set_values.size(), false);
    size_t start = 0;
    while (!d.value.empty() && start <= d.value.size()) {
      size_t comma = d.value.find(',', start);
      if (comma == std::string::npos) comma = d.value.size();
      const std::string* label =
          FindLabel(column_.set_values, std::string_view(d.value).substr(start, comma - start));
      if (label == nullptr) return WrongValue("a list of the column's labels");
      chosen[static_cast<size_t>(label - column_.set_values.data())] = true;
      start = comma + 1;
    }
    // MySQL's text of a SET value: its members in declaration order.
    std::string text;
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (!chosen[i]) continue;
      if (!text.empty()) text += ',';
      text += column_.set_values[i];
    }
    return StringOf(text);
  }

  TargetDefault Date(const DefaultLiteral& d) const {
    const auto date = d.kind == DefaultLiteral::Kind::kString ? ReadDate(d.value) : std::nullopt;
    if (!date) return WrongValue("a date written YYYY-MM-DD (zero dates are not carried)");
    const int year = (*date)[0];
    if (target_.code == TypeCode::kDate) {
      // Date counts days from 1970-01-01 in 16 bits: up to 2149-06-06.
      if (year < 1970 || year > 2148) return OutOfRange();
    } else if (target_.code == TypeCode::kDate32) {
      if (year < 1900 || year > 2299) return OutOfRange();
    } else if (target_.code == TypeCode::kString) {
      return StringOf(d.value);
    } else {
      return WrongTarget();
    }
    return Expression(clickhouse::QuoteString(d.value));
  }

  TargetDefault DateTime(const DefaultLiteral& d) const {
    std::string_view fraction;
    const bool valid = d.kind == DefaultLiteral::Kind::kString && d.value.size() >= 19 &&
                       d.value[10] == ' ' && ReadDate(std::string_view(d.value).substr(0, 10)) &&
                       ReadClock(std::string_view(d.value).substr(11), fraction);
    if (!valid) {
      return WrongValue(
          "a date and time written YYYY-MM-DD HH:MM:SS (zero dates are not "
          "carried)");
    }
    const int year = std::stoi(d.value.substr(0, 4));
    const bool whole_seconds =
        std::all_of(fraction.begin(), fraction.end(), [](char c) { return c == '0'; });
    if (target_.code == TypeCode::kString) return StringOf(d.value);
    if (target_.code != TypeCode::kDateTime && target_.code != TypeCode::kDateTime64) {
      return WrongTarget();
    }
    // The mapping writes the wall time read in the zone the DateTime type names; ClickHouse reads
    // the default's text in the same zone. A DateTime without zone is read in the server's.
    if (target_.timezone.empty()) {
      return Problem(fmt::format("the target column's type {} names no time zone to read it in",
                                 target_.name));
    }
    if (target_.code == TypeCode::kDateTime) {
      // Seconds from 1970 in 32 bits, whatever the zone: 1970-01-02 to 2105 are safe.
      if (year < 1970 || year > 2105 || d.value.compare(0, 10, "1970-01-01") == 0) {
        return OutOfRange();
      }
      if (!whole_seconds) return WrongValue("whole seconds, which DateTime holds");
    } else if (year < 1900 || year > 2299 || fraction.size() > target_.precision) {
      return OutOfRange();
    }
    return Expression(clickhouse::QuoteString(d.value));
  }

  TargetDefault OutOfRange() const {
    return Problem(
        fmt::format("{} is outside the range of {}", *column_.default_value, target_.name));
  }

  const ColumnDef& column_;
  const TypeDesc& target_;
};

}  // namespace

TargetDefault ClickHouseDefault(const ColumnDef& column, const TypeDesc& target) {
  return DefaultConverter(column, target).Run();
}

}  // namespace rowbridge::mapping
