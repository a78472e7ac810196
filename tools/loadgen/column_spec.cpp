#include "column_spec.h"

#include <algorithm>

#include "common/error.h"

namespace rowbridge::loadgen {
namespace {

// Splits ENUM('a','b''c') / SET(...) member lists, undoing SQL quote doubling.
std::vector<std::string> ParseLabels(const std::string& column_type) {
  std::vector<std::string> labels;
  size_t i = column_type.find('(');
  if (i == std::string::npos) return labels;
  std::string current;
  bool in_quote = false;
  for (++i; i < column_type.size(); ++i) {
    char c = column_type[i];
    if (in_quote) {
      if (c == '\'' && i + 1 < column_type.size() && column_type[i + 1] == '\'') {
        current += '\'';
        ++i;
      } else if (c == '\'') {
        in_quote = false;
        labels.push_back(current);
        current.clear();
      } else {
        current += c;
      }
    } else if (c == '\'') {
      in_quote = true;
    }
  }
  return labels;
}

}  // namespace

ColumnSpec MakeColumnSpec(const std::string& name, const std::string& data_type,
                          const std::string& column_type, bool nullable, const std::string& extra,
                          const std::string& column_key, uint64_t char_max_length,
                          uint32_t numeric_precision, uint32_t numeric_scale,
                          uint32_t datetime_precision, const std::string& charset) {
  ColumnSpec spec;
  spec.name = name;
  spec.nullable = nullable;
  spec.auto_increment = extra.find("auto_increment") != std::string::npos;
  spec.primary_key = column_key == "PRI";
  spec.fsp = datetime_precision;
  spec.max_char_bytes = charset == "utf8mb4" ? 4 : charset.rfind("utf8", 0) == 0 ? 3 : 1;
  bool is_unsigned = column_type.find("unsigned") != std::string::npos;
  auto integer = [&](int bits) {
    spec.kind = is_unsigned ? ValueKind::kUnsignedInt : ValueKind::kSignedInt;
    if (is_unsigned) {
      spec.max_value = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    } else {
      spec.min_value = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      spec.max_value = bits == 64 ? INT64_MAX : (uint64_t{1} << (bits - 1)) - 1;
    }
  };
  const std::string& t = data_type;
  if (t == "tinyint") {
    integer(8);
  } else if (t == "smallint") {
    integer(16);
  } else if (t == "mediumint") {
    integer(24);
  } else if (t == "int" || t == "integer") {
    integer(32);
  } else if (t == "bigint") {
    integer(64);
  } else if (t == "float" || t == "double" || t == "real") {
    spec.kind = ValueKind::kFloat;
    spec.precision = numeric_precision;
    spec.scale = numeric_scale;
  } else if (t == "decimal" || t == "numeric") {
    spec.kind = ValueKind::kDecimal;
    spec.precision = numeric_precision;
    spec.scale = numeric_scale;
  } else if (t == "char" || t == "varchar" || t == "tinytext" || t == "text" || t == "mediumtext" ||
             t == "longtext") {
    spec.kind = ValueKind::kString;
    spec.max_length = static_cast<uint32_t>(std::min<uint64_t>(char_max_length, 1u << 30));
  } else if (t == "binary" || t == "varbinary" || t == "tinyblob" || t == "blob" ||
             t == "mediumblob" || t == "longblob") {
    spec.kind = ValueKind::kBinary;
    spec.max_length = static_cast<uint32_t>(std::min<uint64_t>(char_max_length, 1u << 30));
  } else if (t == "enum" || t == "set") {
    spec.kind = t == "enum" ? ValueKind::kEnum : ValueKind::kSet;
    spec.labels = ParseLabels(column_type);
    if (spec.labels.empty())
      Fail(ErrorCode::kUnsupported, "loadgen: column {} of type {} has no members", name,
           column_type);
  } else if (t == "bit") {
    spec.kind = ValueKind::kBit;
    spec.precision = numeric_precision;
  } else if (t == "year") {
    spec.kind = ValueKind::kYear;
  } else if (t == "date") {
    spec.kind = ValueKind::kDate;
  } else if (t == "time") {
    spec.kind = ValueKind::kTime;
  } else if (t == "datetime" || t == "timestamp") {
    spec.kind = ValueKind::kDateTime;
    spec.timestamp = t == "timestamp";
  } else if (t == "json") {
    spec.kind = ValueKind::kJson;
  } else if (t == "geometry" || t == "point" || t == "linestring" || t == "polygon") {
    spec.kind = ValueKind::kGeometry;
  } else {
    Fail(ErrorCode::kUnsupported, "loadgen: cannot generate values for column {} of type {}", name,
         column_type);
  }
  return spec;
}

}  // namespace rowbridge::loadgen
