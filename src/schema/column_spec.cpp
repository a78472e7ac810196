#include "schema/column_spec.h"

#include <cctype>
#include <vector>

#include "common/error.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

using binlog::ColumnDef;
using binlog::ColumnType;

uint32_t ResolveCollation(std::string_view charset, std::string_view collation, bool binary,
                          uint32_t inherited, ServerFlavor flavor, std::string_view where) {
  uint32_t id = inherited;
  if (!collation.empty()) {
    std::optional<CollationInfo> info = CollationByName(collation, flavor);
    if (!info) Fail(ErrorCode::kUnsupported, "{}: unknown collation {}", where, collation);
    id = info->id;
  } else if (!charset.empty() && charset != "default") {
    std::optional<CollationInfo> info = DefaultCollationOf(charset, flavor);
    if (!info) Fail(ErrorCode::kUnsupported, "{}: unknown character set {}", where, charset);
    id = info->id;
  }
  if (binary && collation.empty()) id = BinCollationOf(id);
  return id;
}

namespace {

class Resolver {
 public:
  Resolver(const ColumnSpec& spec, const ColumnContext& context)
      : spec_(spec), type_(spec.type), context_(context) {}

  ColumnDef Run() {
    c_.name = spec_.name;
    c_.signedness_known = true;
    c_.is_unsigned = type_.is_unsigned;
    c_.charset = kBinaryCollation;
    c_.visible = !spec_.invisible;
    c_.default_known = true;
    if (spec_.default_value) c_.default_value = CanonicalDefault(*spec_.default_value);
    bool not_null_by_default = spec_.primary_key;
    const std::string& n = type_.name;
    if (n == "tinyint" || n == "int1" || n == "bool" || n == "boolean") {
      Set(ColumnType::kTiny);
    } else if (n == "smallint" || n == "int2") {
      Set(ColumnType::kShort);
    } else if (n == "mediumint" || n == "middleint" || n == "int3") {
      Set(ColumnType::kInt24);
    } else if (n == "int" || n == "integer" || n == "int4") {
      Set(ColumnType::kLong);
    } else if (n == "bigint" || n == "int8") {
      Set(ColumnType::kLongLong);
    } else if (n == "serial") {
      Set(ColumnType::kLongLong);
      c_.is_unsigned = true;
      not_null_by_default = true;
    } else if (n == "float" || n == "float4") {
      if (type_.length && !type_.scale && *type_.length > 24) {
        if (*type_.length > 53) Bad("FLOAT precision above 53");
        Set(ColumnType::kDouble, 8);
      } else {
        Set(ColumnType::kFloat, 4);
      }
    } else if (n == "double" || n == "real" || n == "float8") {
      Set(ColumnType::kDouble, 8);
    } else if (n == "decimal" || n == "dec" || n == "numeric" || n == "fixed") {
      Set(ColumnType::kNewDecimal);
      const uint32_t precision = type_.length.value_or(10);
      const uint32_t scale = type_.scale.value_or(0);
      if (precision == 0 || precision > 65 || scale > 38 || scale > precision) {
        Bad("DECIMAL precision/scale out of range");
      }
      c_.precision = static_cast<uint8_t>(precision);
      c_.scale = static_cast<uint8_t>(scale);
    } else if (n == "bit") {
      const uint32_t bits = type_.length.value_or(1);
      if (bits == 0 || bits > 64) Bad("BIT width out of range");
      Set(ColumnType::kBit, bits);
    } else if (n == "date") {
      Set(ColumnType::kDate);
    } else if (n == "time" || n == "datetime" || n == "timestamp") {
      const uint32_t fsp = type_.length.value_or(0);
      if (fsp > 6) Bad("fractional seconds precision above 6");
      Set(n == "time"       ? ColumnType::kTime2
          : n == "datetime" ? ColumnType::kDateTime2
                            : ColumnType::kTimestamp2,
          fsp);
      if (n == "timestamp" && !context_.explicit_defaults_for_timestamp) {
        not_null_by_default = true;
      }
    } else if (n == "year") {
      Set(ColumnType::kYear);
    } else if (n == "char" || n == "character" || n == "nchar") {
      const uint32_t collation = Text(n == "nchar" ? "utf8mb3" : "");
      Set(ColumnType::kString, Bytes(type_.length.value_or(1), collation));
    } else if (n == "binary") {
      Set(ColumnType::kString, type_.length.value_or(1));
    } else if (n == "varchar" || n == "varcharacter" || n == "nvarchar") {
      if (!type_.length) Bad("VARCHAR without a length");
      const uint32_t collation = Text(n == "nvarchar" ? "utf8mb3" : "");
      Set(ColumnType::kVarchar, Bytes(*type_.length, collation));
    } else if (n == "varbinary") {
      if (!type_.length) Bad("VARBINARY without a length");
      Set(ColumnType::kVarchar, *type_.length);
    } else if (n == "tinytext" || n == "text" || n == "mediumtext" || n == "longtext") {
      const uint32_t collation = Text("");
      uint32_t prefix = n == "tinytext" ? 1 : n == "text" ? 2 : n == "mediumtext" ? 3 : 4;
      if (n == "text" && type_.length) prefix = BlobPrefixFor(Bytes(*type_.length, collation));
      Set(ColumnType::kBlob, prefix);
    } else if (n == "tinyblob" || n == "blob" || n == "mediumblob" || n == "longblob") {
      uint32_t prefix = n == "tinyblob" ? 1 : n == "blob" ? 2 : n == "mediumblob" ? 3 : 4;
      if (n == "blob" && type_.length) prefix = BlobPrefixFor(*type_.length);
      Set(ColumnType::kBlob, prefix);
    } else if (n == "json") {
      if (context_.flavor == ServerFlavor::kMariadb) {
        // MariaDB's JSON is LONGTEXT COLLATE utf8mb4_bin with a CHECK.
        Set(ColumnType::kBlob, 4);
        c_.charset = 46;
      } else {
        Set(ColumnType::kJson, 4);
      }
    } else if (n == "enum") {
      c_.charset = Text("");
      Set(ColumnType::kEnum, type_.labels.size() > 255 ? 2 : 1);
      c_.wire_type = ColumnType::kString;
      c_.enum_values = type_.labels;
    } else if (n == "set") {
      c_.charset = Text("");
      const size_t bytes = (type_.labels.size() + 7) / 8;
      if (type_.labels.size() > 64) Bad("SET with more than 64 members");
      Set(ColumnType::kSet, static_cast<uint32_t>(bytes > 4 ? 8 : bytes == 0 ? 1 : bytes));
      c_.wire_type = ColumnType::kString;
      c_.set_values = type_.labels;
    } else if (n == "geometry" || n == "point" || n == "linestring" || n == "polygon" ||
               n == "multipoint" || n == "multilinestring" || n == "multipolygon" ||
               n == "geometrycollection" || n == "geomcollection") {
      Set(ColumnType::kGeometry, 4);
    } else if (n == "inet6" || n == "uuid") {
      Set(ColumnType::kString, 16);
    } else if (n == "inet4") {
      Set(ColumnType::kString, 4);
    } else if (n == "vector") {
      if (!type_.length) Bad("VECTOR without dimensions");
      Set(ColumnType::kVector, 4);
      c_.vector_dimensions = *type_.length;
    } else {
      Bad("unknown type " + n);
    }
    c_.nullable = spec_.nullable.value_or(!not_null_by_default);
    if (spec_.primary_key) c_.nullable = false;
    return c_;
  }

 private:
  [[noreturn]] void Bad(const std::string& what) const {
    Fail(ErrorCode::kUnsupported, "column {}.{}: {}", context_.table_name, spec_.name, what);
  }

  void Set(ColumnType type, uint32_t meta = 0) {
    c_.type = type;
    c_.wire_type = type;
    c_.meta = meta;
  }

  // The column's collation id; sets c_.charset.
  uint32_t Text(std::string_view implied_charset) {
    const std::string where = std::string(context_.table_name) + "." + spec_.name;
    const std::string_view charset = type_.charset.empty() ? implied_charset : type_.charset;
    c_.charset = ResolveCollation(charset, type_.collation, type_.binary, context_.table_collation,
                                  context_.flavor, where);
    return c_.charset;
  }

  uint32_t Bytes(uint32_t characters, uint32_t collation) const {
    const uint64_t bytes = uint64_t{characters} * CollationById(collation).max_bytes_per_char;
    if (bytes > 0xffffffffu) Bad("length out of range");
    return static_cast<uint32_t>(bytes);
  }

  static uint32_t BlobPrefixFor(uint32_t bytes) {
    if (bytes < (1u << 8)) return 1;
    if (bytes < (1u << 16)) return 2;
    if (bytes < (1u << 24)) return 3;
    return 4;
  }

  const ColumnSpec& spec_;
  const TypeSpec& type_;
  const ColumnContext& context_;
  ColumnDef c_;
};

}  // namespace

ColumnDef ResolveColumn(const ColumnSpec& spec, const ColumnContext& context) {
  return Resolver(spec, context).Run();
}

namespace {

bool IsNowFunction(const Token& t) {
  return t.IsWord("CURRENT_TIMESTAMP") || t.IsWord("NOW") || t.IsWord("LOCALTIME") ||
         t.IsWord("LOCALTIMESTAMP");
}

bool IsHexOrBitLiteral(std::string_view number) {
  if (number.size() < 2) return false;
  const char first = static_cast<char>(std::tolower(static_cast<unsigned char>(number[0])));
  const char second = static_cast<char>(std::tolower(static_cast<unsigned char>(number[1])));
  return second == '\'' || (first == '0' && (second == 'x' || second == 'b'));
}

// The canonical form of tokens [begin, end) if they are one literal; nullopt otherwise.
std::optional<std::string> CanonicalLiteral(const std::vector<Token>& tokens, size_t begin,
                                            size_t end) {
  if (begin >= end) return std::nullopt;
  const Token& first = tokens[begin];
  if (end - begin == 1 && first.kind == TokenKind::kWord) {
    if (first.IsWord("TRUE")) return "1";
    if (first.IsWord("FALSE")) return "0";
    if (IsNowFunction(first)) return "CURRENT_TIMESTAMP";
    return std::nullopt;
  }
  if (IsNowFunction(first) && end - begin >= 3 && tokens[begin + 1].IsSymbol("(") &&
      tokens[end - 1].IsSymbol(")") && end - begin <= 4) {
    return "CURRENT_TIMESTAMP";
  }
  size_t i = begin;
  std::string sign;
  if (tokens[i].IsSymbol("-") || tokens[i].IsSymbol("+")) {
    if (tokens[i].IsSymbol("-")) sign = "-";
    ++i;
  }
  if (i + 1 == end && tokens[i].kind == TokenKind::kNumber) {
    if (IsHexOrBitLiteral(tokens[i].text))
      return sign.empty() ? std::optional(tokens[i].text) : std::nullopt;
    return sign + tokens[i].text;
  }
  if (!sign.empty()) return std::nullopt;
  // _utf8mb4'x', DATE '2020-01-01': the tag says how to read the string, the value is the same.
  if (tokens[i].kind == TokenKind::kWord &&
      (tokens[i].text.starts_with("_") || tokens[i].IsWord("DATE") || tokens[i].IsWord("TIME") ||
       tokens[i].IsWord("TIMESTAMP"))) {
    ++i;
  }
  if (i >= end) return std::nullopt;
  std::string value;
  for (; i < end; ++i) {
    if (tokens[i].kind != TokenKind::kString) return std::nullopt;
    value += tokens[i].text;
  }
  return StringDefault(value);
}

}  // namespace

std::string StringDefault(std::string_view value) {
  std::string out = "'";
  for (char ch : value) {
    if (ch == '\'') out += '\'';
    out += ch;
  }
  return out + "'";
}

std::optional<std::string> CanonicalDefault(std::string_view written) {
  std::vector<Token> tokens;
  try {
    tokens = LexSql(written);
  } catch (const Error&) {
    return std::string(written);  // not lexable: kept as an expression, never a literal
  }
  size_t end = tokens.size() - 1;  // the kEnd token
  if (end == 1 && tokens[0].IsWord("NULL")) return std::nullopt;
  if (std::optional<std::string> literal = CanonicalLiteral(tokens, 0, end)) return literal;
  if (end >= 3 && tokens[0].IsSymbol("(") && tokens[end - 1].IsSymbol(")")) {
    if (end == 3 && tokens[1].IsWord("NULL")) return std::nullopt;
    if (std::optional<std::string> literal = CanonicalLiteral(tokens, 1, end - 1)) return literal;
  }
  const size_t first = written.find_first_not_of(" \t\r\n");
  const size_t last = written.find_last_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string();
  return std::string(written.substr(first, last - first + 1));
}

}  // namespace rowbridge::schema
