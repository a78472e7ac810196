#include "schema/table_schema.h"

#include <fmt/format.h>

#include "binlog/column_type.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

using binlog::ColumnDef;
using binlog::ColumnType;

std::optional<size_t> TableSchema::FindColumn(std::string_view column) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (EqualsIgnoreCase(columns[i].name, column)) return i;
  }
  return std::nullopt;
}

bool SameColumn(const ColumnDef& a, const ColumnDef& b) {
  return a.type == b.type && a.wire_type == b.wire_type && a.meta == b.meta &&
         a.precision == b.precision && a.scale == b.scale && a.nullable == b.nullable &&
         a.signedness_known == b.signedness_known && a.is_unsigned == b.is_unsigned &&
         a.charset == b.charset && a.name == b.name && a.enum_values == b.enum_values &&
         a.set_values == b.set_values && a.geometry_type == b.geometry_type &&
         a.is_primary_key == b.is_primary_key && a.primary_key_prefix == b.primary_key_prefix &&
         a.visible == b.visible && a.vector_dimensions == b.vector_dimensions &&
         a.default_known == b.default_known && a.default_value == b.default_value;
}

bool TableSchema::operator==(const TableSchema& other) const {
  if (!(name == other.name) || primary_key != other.primary_key ||
      default_collation != other.default_collation || columns.size() != other.columns.size()) {
    return false;
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!SameColumn(columns[i], other.columns[i])) return false;
  }
  return true;
}

namespace {

std::string Labels(const std::vector<std::string>& labels) {
  std::string out;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ',';
    out += '\'';
    for (char c : labels[i]) {
      if (c == '\'') out += '\'';
      out += c;
    }
    out += '\'';
  }
  return out;
}

bool IsText(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kString:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kEnum:
    case ColumnType::kSet:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string DescribeColumn(const ColumnDef& c) {
  std::string s(binlog::ColumnTypeName(c.type));
  switch (c.type) {
    case ColumnType::kNewDecimal:
      s += fmt::format("({},{})", c.precision, c.scale);
      break;
    case ColumnType::kTimestamp2:
    case ColumnType::kDateTime2:
    case ColumnType::kTime2:
      s += fmt::format("(fsp={})", c.meta);
      break;
    case ColumnType::kEnum:
      s += "(" + Labels(c.enum_values) + ")";
      break;
    case ColumnType::kSet:
      s += "(" + Labels(c.set_values) + ")";
      break;
    case ColumnType::kVector:
      s += fmt::format("(dimensions={})", c.vector_dimensions);
      break;
    default:
      if (c.meta != 0) s += fmt::format("(meta={})", c.meta);
      break;
  }
  if (c.is_unsigned) s += " unsigned";
  if (IsText(c)) s += fmt::format(" collation={}", c.charset);
  if (!c.nullable) s += " NOT NULL";
  if (!c.visible) s += " INVISIBLE";
  if (c.default_value) s += " DEFAULT " + *c.default_value;
  return s;
}

std::string DescribeTable(const TableSchema& schema) {
  std::string key;
  for (size_t i = 0; i < schema.primary_key.size(); ++i) {
    if (i) key += ",";
    const uint32_t index = schema.primary_key[i];
    key += index < schema.columns.size() ? schema.columns[index].name : "?";
  }
  std::string s = fmt::format("{}.{} default_collation={} primary_key=({})\n", schema.name.database,
                              schema.name.table, schema.default_collation, key);
  for (const ColumnDef& c : schema.columns) {
    s += fmt::format("  {} {}\n", c.name, DescribeColumn(c));
  }
  return s;
}

}  // namespace rowbridge::schema
