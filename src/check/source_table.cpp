#include "check/source_table.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "common/error.h"

namespace rowbridge::check {

using binlog::ColumnDef;
using binlog::ColumnType;

namespace {

uint64_t ToNumber(std::string_view text) {
  uint64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Fills type, wire_type and meta of `c` from information_schema's DATA_TYPE; false if unknown.
bool DescribeType(std::string_view data_type, uint64_t octets, uint64_t numeric_precision,
                  uint64_t numeric_scale, uint64_t datetime_precision, size_t labels,
                  ColumnDef& c) {
  auto set = [&](ColumnType type, uint32_t meta) {
    c.type = type;
    c.wire_type = type;
    c.meta = meta;
  };
  if (data_type == "tinyint")
    set(ColumnType::kTiny, 0);
  else if (data_type == "smallint")
    set(ColumnType::kShort, 0);
  else if (data_type == "mediumint")
    set(ColumnType::kInt24, 0);
  else if (data_type == "int" || data_type == "integer")
    set(ColumnType::kLong, 0);
  else if (data_type == "bigint")
    set(ColumnType::kLongLong, 0);
  else if (data_type == "float")
    set(ColumnType::kFloat, 4);
  else if (data_type == "double" || data_type == "real")
    set(ColumnType::kDouble, 8);
  else if (data_type == "decimal" || data_type == "numeric") {
    set(ColumnType::kNewDecimal, 0);
    c.precision = static_cast<uint8_t>(numeric_precision);
    c.scale = static_cast<uint8_t>(numeric_scale);
  } else if (data_type == "date")
    set(ColumnType::kDate, 0);
  else if (data_type == "time")
    set(ColumnType::kTime2, static_cast<uint32_t>(datetime_precision));
  else if (data_type == "datetime")
    set(ColumnType::kDateTime2, static_cast<uint32_t>(datetime_precision));
  else if (data_type == "timestamp")
    set(ColumnType::kTimestamp2, static_cast<uint32_t>(datetime_precision));
  else if (data_type == "year")
    set(ColumnType::kYear, 0);
  else if (data_type == "bit")
    set(ColumnType::kBit, static_cast<uint32_t>(numeric_precision));
  else if (data_type == "enum") {
    set(ColumnType::kEnum, labels > 255 ? 2 : 1);
    c.wire_type = ColumnType::kString;
  } else if (data_type == "set") {
    const uint32_t bytes = static_cast<uint32_t>((labels + 7) / 8);
    set(ColumnType::kSet, bytes > 4 ? 8 : bytes);
    c.wire_type = ColumnType::kString;
  } else if (data_type == "char" || data_type == "binary")
    set(ColumnType::kString, static_cast<uint32_t>(octets));
  else if (data_type == "varchar" || data_type == "varbinary")
    set(ColumnType::kVarchar, static_cast<uint32_t>(octets));
  else if (data_type == "tinytext" || data_type == "tinyblob")
    set(ColumnType::kBlob, 1);
  else if (data_type == "text" || data_type == "blob")
    set(ColumnType::kBlob, 2);
  else if (data_type == "mediumtext" || data_type == "mediumblob")
    set(ColumnType::kBlob, 3);
  else if (data_type == "longtext" || data_type == "longblob")
    set(ColumnType::kBlob, 4);
  else if (data_type == "json")
    set(ColumnType::kJson, 4);
  else if (data_type == "geometry" || data_type == "point" || data_type == "linestring" ||
           data_type == "polygon" || data_type == "multipoint" || data_type == "multilinestring" ||
           data_type == "multipolygon" || data_type == "geometrycollection" ||
           data_type == "geomcollection")
    set(ColumnType::kGeometry, 4);
  else
    return false;
  return true;
}

}  // namespace

std::string QuoteMysqlName(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteMysqlString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    if (c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::vector<std::string> ParseEnumLabels(std::string_view column_type) {
  const size_t open = column_type.find('(');
  if (open == std::string_view::npos || column_type.empty() || column_type.back() != ')')
    Fail(ErrorCode::kCorruption, "cannot read the labels of {}", column_type);
  std::vector<std::string> labels;
  size_t pos = open + 1;
  const size_t end = column_type.size() - 1;
  while (pos < end) {
    if (column_type[pos] != '\'')
      Fail(ErrorCode::kCorruption, "cannot read the labels of {}", column_type);
    std::string label;
    ++pos;
    for (;;) {
      if (pos >= end) Fail(ErrorCode::kCorruption, "unterminated label in {}", column_type);
      if (column_type[pos] == '\'') {
        if (pos + 1 < end && column_type[pos + 1] == '\'') {
          label += '\'';
          pos += 2;
          continue;
        }
        ++pos;
        break;
      }
      label += column_type[pos++];
    }
    labels.push_back(std::move(label));
    if (pos < end && column_type[pos] == ',') ++pos;
  }
  return labels;
}

SourceTable ReadSourceTable(mysql::Connection& conn, std::string_view database,
                            std::string_view table) {
  SourceTable out;
  out.database = std::string(database);
  out.table = std::string(table);
  const std::string where = fmt::format("TABLE_SCHEMA = {} AND TABLE_NAME = {}",
                                        QuoteMysqlString(database), QuoteMysqlString(table));
  const auto rows = conn.QueryRows(
      fmt::format("SELECT c.COLUMN_NAME, c.DATA_TYPE, c.COLUMN_TYPE, c.IS_NULLABLE, "
                  "IFNULL(c.CHARACTER_OCTET_LENGTH, 0), IFNULL(c.NUMERIC_PRECISION, 0), "
                  "IFNULL(c.NUMERIC_SCALE, 0), IFNULL(c.DATETIME_PRECISION, 0), IFNULL(co.ID, 0), "
                  "IFNULL(c.CHARACTER_SET_NAME, '') "
                  "FROM information_schema.COLUMNS c LEFT JOIN information_schema.COLLATIONS co "
                  "ON co.COLLATION_NAME = c.COLLATION_NAME WHERE c.{} ORDER BY c.ORDINAL_POSITION",
                  fmt::format("TABLE_SCHEMA = {} AND c.TABLE_NAME = {}", QuoteMysqlString(database),
                              QuoteMysqlString(table))));
  if (rows.empty())
    Fail(ErrorCode::kConfig, "source table {}.{} does not exist on {}", database, table,
         conn.peer());
  for (const auto& row : rows) {
    auto field = [&](size_t i) { return row[i] ? std::string_view(*row[i]) : std::string_view(); };
    ColumnDef c;
    c.name = std::string(field(0));
    std::string data_type(field(1));
    for (char& ch : data_type) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string column_type(field(2));
    size_t labels = 0;
    if (data_type == "enum" || data_type == "set") {
      auto parsed = ParseEnumLabels(column_type);
      labels = parsed.size();
      (data_type == "enum" ? c.enum_values : c.set_values) = std::move(parsed);
    }
    if (!DescribeType(data_type, ToNumber(field(4)), ToNumber(field(5)), ToNumber(field(6)),
                      ToNumber(field(7)), labels, c))
      Fail(ErrorCode::kUnsupported, "source column {}.{}.{}: type {} is not supported by check",
           database, table, c.name, column_type);
    c.nullable = field(3) == "YES";
    c.signedness_known = true;
    c.is_unsigned = column_type.find("unsigned") != std::string::npos;
    const bool binary = field(9).empty() || field(9) == "binary";
    c.charset = binary ? 63 : static_cast<uint32_t>(ToNumber(field(8)));
    out.columns.push_back(std::move(c));
  }
  const auto key = conn.QueryRows(
      fmt::format("SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE {} AND "
                  "CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
                  where));
  for (const auto& row : key) {
    for (uint32_t i = 0; i < out.columns.size(); ++i) {
      if (row[0] && out.columns[i].name == *row[0]) {
        out.columns[i].is_primary_key = true;
        out.primary_key.push_back(i);
      }
    }
  }
  return out;
}

}  // namespace rowbridge::check
