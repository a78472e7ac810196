#include "clickhouse/type_name.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/error.h"

namespace rowbridge::clickhouse {
namespace {

struct SimpleType {
  std::string_view name;
  TypeCode code;
};

constexpr SimpleType kSimpleTypes[] = {
    {"Int8", TypeCode::kInt8},       {"Int16", TypeCode::kInt16},
    {"Int32", TypeCode::kInt32},     {"Int64", TypeCode::kInt64},
    {"Int128", TypeCode::kInt128},   {"Int256", TypeCode::kInt256},
    {"UInt8", TypeCode::kUInt8},     {"UInt16", TypeCode::kUInt16},
    {"UInt32", TypeCode::kUInt32},   {"UInt64", TypeCode::kUInt64},
    {"UInt128", TypeCode::kUInt128}, {"UInt256", TypeCode::kUInt256},
    {"Float32", TypeCode::kFloat32}, {"Float64", TypeCode::kFloat64},
    {"String", TypeCode::kString},   {"Date", TypeCode::kDate},
    {"Date32", TypeCode::kDate32},   {"UUID", TypeCode::kUUID},
    {"Bool", TypeCode::kBool},
};

uint32_t MaxDecimalPrecision(TypeCode code) {
  switch (code) {
    case TypeCode::kDecimal32:
      return 9;
    case TypeCode::kDecimal64:
      return 18;
    case TypeCode::kDecimal128:
      return 38;
    default:
      return 76;
  }
}

void AppendQuoted(std::string_view s, std::string& out) {
  out.push_back('\'');
  for (char c : s) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
}

bool IsSimple(TypeCode code) {
  for (const auto& t : kSimpleTypes)
    if (t.code == code) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  TypeDesc ParseAll() {
    TypeDesc type = ParseType(0);
    SkipSpace();
    if (pos_ != text_.size()) Invalid("unexpected text after the type");
    return type;
  }

 private:
  static constexpr int kMaxDepth = 32;

  TypeDesc ParseType(int depth) {
    if (depth > kMaxDepth) Invalid("types nested too deeply");
    SkipSpace();
    std::string_view ident = Identifier();
    if (ident.empty()) Invalid("expected a type name");
    for (const auto& t : kSimpleTypes) {
      if (ident == t.name) {
        if (PeekIs('(')) Invalid(fmt::format("{} takes no parameters", ident));
        return MakeType(t.code);
      }
    }
    if (ident == "Nullable" || ident == "LowCardinality" || ident == "Array") {
      Expect('(');
      TypeDesc nested = ParseType(depth + 1);
      Expect(')');
      TypeCode code = ident == "Nullable"         ? TypeCode::kNullable
                      : ident == "LowCardinality" ? TypeCode::kLowCardinality
                                                  : TypeCode::kArray;
      CheckNesting(code, nested);
      return MakeWrapper(code, std::move(nested));
    }
    if (ident == "Decimal") {
      Expect('(');
      uint32_t precision = Number();
      Expect(',');
      uint32_t scale = Number();
      Expect(')');
      return CheckedDecimal(precision, scale);
    }
    if (ident == "Decimal32" || ident == "Decimal64" || ident == "Decimal128" ||
        ident == "Decimal256") {
      Expect('(');
      uint32_t scale = Number();
      Expect(')');
      TypeCode code = ident == "Decimal32"    ? TypeCode::kDecimal32
                      : ident == "Decimal64"  ? TypeCode::kDecimal64
                      : ident == "Decimal128" ? TypeCode::kDecimal128
                                              : TypeCode::kDecimal256;
      return CheckedDecimal(MaxDecimalPrecision(code), scale);
    }
    if (ident == "FixedString") {
      Expect('(');
      uint32_t width = Number();
      Expect(')');
      if (width == 0) Invalid("FixedString needs a positive length");
      return MakeFixedString(width);
    }
    if (ident == "DateTime") {
      std::string timezone;
      if (Accept('(')) {
        timezone = Quoted();
        Expect(')');
      }
      return MakeDateTime(std::move(timezone));
    }
    if (ident == "DateTime64") {
      Expect('(');
      uint32_t precision = Number();
      if (precision > 9) Invalid("DateTime64 precision must be 0..9");
      std::string timezone;
      if (Accept(',')) timezone = Quoted();
      Expect(')');
      return MakeDateTime64(precision, std::move(timezone));
    }
    if (ident == "Enum8" || ident == "Enum16") {
      TypeCode code = ident == "Enum8" ? TypeCode::kEnum8 : TypeCode::kEnum16;
      Expect('(');
      std::vector<std::pair<std::string, int16_t>> items;
      do {
        std::string item_name = Quoted();
        Expect('=');
        int64_t value = SignedNumber();
        int64_t low = code == TypeCode::kEnum8 ? -128 : -32768;
        int64_t high = code == TypeCode::kEnum8 ? 127 : 32767;
        if (value < low || value > high)
          Invalid(fmt::format("{} value {} out of range", ident, value));
        for (const auto& [other_name, other_value] : items) {
          if (other_name == item_name) Invalid(fmt::format("duplicate enum name '{}'", item_name));
          if (other_value == value) Invalid(fmt::format("duplicate enum value {}", value));
        }
        items.emplace_back(std::move(item_name), static_cast<int16_t>(value));
      } while (Accept(','));
      Expect(')');
      return MakeEnum(code, std::move(items));
    }
    Fail(ErrorCode::kUnsupported, "ClickHouse type {} (in '{}') is not supported", ident, text_);
  }

  TypeDesc CheckedDecimal(uint32_t precision, uint32_t scale) {
    if (precision < 1 || precision > 76)
      Invalid(fmt::format("Decimal precision {} must be 1..76", precision));
    if (scale > precision)
      Invalid(fmt::format("Decimal scale {} exceeds precision {}", scale, precision));
    return MakeDecimal(precision, scale);
  }

  void CheckNesting(TypeCode wrapper, const TypeDesc& nested) {
    if (wrapper == TypeCode::kNullable &&
        (nested.code == TypeCode::kNullable || nested.code == TypeCode::kLowCardinality ||
         nested.code == TypeCode::kArray))
      Invalid(fmt::format("Nullable cannot contain {}", nested.name));
    if (wrapper == TypeCode::kLowCardinality) {
      const TypeDesc& inner = nested.code == TypeCode::kNullable ? nested.nested.front() : nested;
      bool ok =
          inner.code == TypeCode::kString || inner.code == TypeCode::kFixedString ||
          inner.code == TypeCode::kDate || inner.code == TypeCode::kDateTime ||
          (IsSimple(inner.code) && inner.code != TypeCode::kUUID && inner.code != TypeCode::kBool);
      if (!ok) Invalid(fmt::format("LowCardinality cannot contain {}", nested.name));
    }
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool PeekIs(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Accept(char c) {
    if (!PeekIs(c)) return false;
    ++pos_;
    return true;
  }
  void Expect(char c) {
    if (!Accept(c)) Invalid(fmt::format("expected '{}'", c));
  }
  std::string_view Identifier() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  uint32_t Number() {
    SkipSpace();
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (ec != std::errc()) Invalid("expected a number");
    pos_ = end - text_.data();
    return v;
  }
  int64_t SignedNumber() {
    SkipSpace();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (ec != std::errc()) Invalid("expected a number");
    pos_ = end - text_.data();
    return v;
  }
  std::string Quoted() {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != '\'') Invalid("expected a quoted string");
    ++pos_;
    std::string s;
    while (true) {
      if (pos_ >= text_.size()) Invalid("unterminated quoted string");
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) Invalid("unterminated quoted string");
        s.push_back(text_[pos_++]);
      } else if (c == '\'') {
        if (pos_ < text_.size() && text_[pos_] == '\'') {
          s.push_back('\'');
          ++pos_;
        } else {
          return s;
        }
      } else {
        s.push_back(c);
      }
    }
  }
  [[noreturn]] void Invalid(const std::string& what) {
    Fail(ErrorCode::kInvalidArgument, "invalid ClickHouse type '{}' at character {}: {}", text_,
         pos_, what);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

TypeDesc ParseTypeName(std::string_view text) {
  return Parser(text).ParseAll();
}

std::string FormatTypeName(const TypeDesc& type) {
  std::string out;
  switch (type.code) {
    case TypeCode::kDecimal32:
    case TypeCode::kDecimal64:
    case TypeCode::kDecimal128:
    case TypeCode::kDecimal256:
      return fmt::format("Decimal({}, {})", type.precision, type.scale);
    case TypeCode::kFixedString:
      return fmt::format("FixedString({})", type.width);
    case TypeCode::kDateTime:
      if (type.timezone.empty()) return "DateTime";
      out = "DateTime(";
      AppendQuoted(type.timezone, out);
      out.push_back(')');
      return out;
    case TypeCode::kDateTime64:
      out = fmt::format("DateTime64({}", type.precision);
      if (!type.timezone.empty()) {
        out.append(", ");
        AppendQuoted(type.timezone, out);
      }
      out.push_back(')');
      return out;
    case TypeCode::kEnum8:
    case TypeCode::kEnum16:
      out = type.code == TypeCode::kEnum8 ? "Enum8(" : "Enum16(";
      for (size_t i = 0; i < type.enum_items.size(); ++i) {
        if (i) out.append(", ");
        AppendQuoted(type.enum_items[i].first, out);
        out.append(fmt::format(" = {}", type.enum_items[i].second));
      }
      out.push_back(')');
      return out;
    case TypeCode::kNullable:
      return "Nullable(" + FormatTypeName(type.nested.at(0)) + ")";
    case TypeCode::kLowCardinality:
      return "LowCardinality(" + FormatTypeName(type.nested.at(0)) + ")";
    case TypeCode::kArray:
      return "Array(" + FormatTypeName(type.nested.at(0)) + ")";
    default:
      for (const auto& t : kSimpleTypes)
        if (t.code == type.code) return std::string(t.name);
  }
  Fail(ErrorCode::kInternal, "FormatTypeName: unknown type code {}", static_cast<int>(type.code));
}

TypeDesc MakeType(TypeCode code) {
  if (!IsSimple(code))
    Fail(ErrorCode::kInternal, "MakeType: type code {} needs parameters", static_cast<int>(code));
  TypeDesc t;
  t.code = code;
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeDecimal(uint32_t precision, uint32_t scale) {
  if (precision < 1 || precision > 76 || scale > precision)
    Fail(ErrorCode::kInvalidArgument, "invalid Decimal({}, {})", precision, scale);
  TypeDesc t;
  t.code = precision <= 9    ? TypeCode::kDecimal32
           : precision <= 18 ? TypeCode::kDecimal64
           : precision <= 38 ? TypeCode::kDecimal128
                             : TypeCode::kDecimal256;
  t.precision = precision;
  t.scale = scale;
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeFixedString(uint32_t width) {
  if (width == 0) Fail(ErrorCode::kInvalidArgument, "FixedString needs a positive length");
  TypeDesc t;
  t.code = TypeCode::kFixedString;
  t.width = width;
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeDateTime(std::string timezone) {
  TypeDesc t;
  t.code = TypeCode::kDateTime;
  t.timezone = std::move(timezone);
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeDateTime64(uint32_t precision, std::string timezone) {
  if (precision > 9) Fail(ErrorCode::kInvalidArgument, "DateTime64 precision {} > 9", precision);
  TypeDesc t;
  t.code = TypeCode::kDateTime64;
  t.precision = precision;
  t.timezone = std::move(timezone);
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeEnum(TypeCode code, std::vector<std::pair<std::string, int16_t>> items) {
  if ((code != TypeCode::kEnum8 && code != TypeCode::kEnum16) || items.empty())
    Fail(ErrorCode::kInvalidArgument, "MakeEnum needs Enum8/Enum16 and at least one item");
  // ClickHouse orders an enum's items by value, also in the type's name.
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  TypeDesc t;
  t.code = code;
  t.enum_items = std::move(items);
  t.name = FormatTypeName(t);
  return t;
}

TypeDesc MakeWrapper(TypeCode code, TypeDesc nested) {
  if (code != TypeCode::kNullable && code != TypeCode::kLowCardinality && code != TypeCode::kArray)
    Fail(ErrorCode::kInternal, "MakeWrapper: type code {} wraps nothing", static_cast<int>(code));
  TypeDesc t;
  t.code = code;
  t.nested.push_back(std::move(nested));
  t.name = FormatTypeName(t);
  return t;
}

bool IsIntegerCode(TypeCode code) {
  switch (code) {
    case TypeCode::kInt8:
    case TypeCode::kInt16:
    case TypeCode::kInt32:
    case TypeCode::kInt64:
    case TypeCode::kInt128:
    case TypeCode::kInt256:
    case TypeCode::kUInt8:
    case TypeCode::kUInt16:
    case TypeCode::kUInt32:
    case TypeCode::kUInt64:
    case TypeCode::kUInt128:
    case TypeCode::kUInt256:
      return true;
    default:
      return false;
  }
}

}  // namespace rowbridge::clickhouse
