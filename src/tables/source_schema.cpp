#include "tables/source_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "binlog/table_map_event.h"
#include "common/error.h"
#include "mysql/sql_quote.h"
#include "schema/charsets.h"
#include "schema/column_spec.h"

namespace rowbridge::tables {

using binlog::ColumnDef;
using binlog::ColumnType;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

uint64_t ToNumber(const std::optional<std::string>& text, uint64_t fallback = 0) {
  if (!text || text->empty()) return fallback;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc()) return fallback;
  return v;
}

// Which binlog types are the same column as far as row images go.
int TypeFamily(ColumnType type) {
  switch (type) {
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      return 1000;
    case ColumnType::kTime:
    case ColumnType::kTime2:
      return 1001;
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
      return 1002;
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      return 1003;
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
      return 1004;
    case ColumnType::kBlob:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
      return 1005;
    default:
      return static_cast<int>(type);
  }
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string LabelsText(const std::vector<std::string>& labels) {
  std::string s;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) s += ",";
    s += "'" + labels[i] + "'";
  }
  return s;
}

ColumnDef ColumnFromInformationSchema(std::string_view table_name, std::string name,
                                      std::string_view data_type_text, std::string_view column_type,
                                      bool nullable, uint64_t octet_length,
                                      uint64_t numeric_precision, uint64_t numeric_scale,
                                      uint64_t datetime_precision,
                                      std::optional<uint64_t> collation_id) {
  ColumnDef c;
  c.name = std::move(name);
  c.nullable = nullable;
  c.signedness_known = true;
  const std::string data_type = Lower(data_type_text);
  const std::string full_type = Lower(column_type);
  c.is_unsigned = full_type.find("unsigned") != std::string::npos;
  c.charset = collation_id ? static_cast<uint32_t>(*collation_id) : 63;
  auto set = [&](ColumnType t, uint32_t meta = 0) {
    c.type = t;
    c.wire_type = t;
    c.meta = meta;
  };
  if (data_type == "tinyint" || data_type == "bool" || data_type == "boolean") {
    set(ColumnType::kTiny);
  } else if (data_type == "smallint") {
    set(ColumnType::kShort);
  } else if (data_type == "mediumint") {
    set(ColumnType::kInt24);
  } else if (data_type == "int" || data_type == "integer") {
    set(ColumnType::kLong);
  } else if (data_type == "bigint") {
    set(ColumnType::kLongLong);
  } else if (data_type == "float") {
    set(ColumnType::kFloat, 4);
  } else if (data_type == "double" || data_type == "real" || data_type == "double precision") {
    set(ColumnType::kDouble, 8);
  } else if (data_type == "decimal" || data_type == "numeric" || data_type == "fixed") {
    set(ColumnType::kNewDecimal);
    c.precision = static_cast<uint8_t>(numeric_precision);
    c.scale = static_cast<uint8_t>(numeric_scale);
  } else if (data_type == "date") {
    set(ColumnType::kDate);
  } else if (data_type == "time") {
    set(ColumnType::kTime2, static_cast<uint32_t>(datetime_precision));
  } else if (data_type == "datetime") {
    set(ColumnType::kDateTime2, static_cast<uint32_t>(datetime_precision));
  } else if (data_type == "timestamp") {
    set(ColumnType::kTimestamp2, static_cast<uint32_t>(datetime_precision));
  } else if (data_type == "year") {
    set(ColumnType::kYear);
  } else if (data_type == "char" || data_type == "binary") {
    set(ColumnType::kString, static_cast<uint32_t>(octet_length));
    if (data_type == "binary") c.charset = 63;
  } else if (data_type == "varchar" || data_type == "varbinary") {
    set(ColumnType::kVarchar, static_cast<uint32_t>(octet_length));
    if (data_type == "varbinary") c.charset = 63;
  } else if (data_type == "tinytext" || data_type == "tinyblob") {
    set(ColumnType::kBlob, 1);
  } else if (data_type == "text" || data_type == "blob") {
    set(ColumnType::kBlob, 2);
  } else if (data_type == "mediumtext" || data_type == "mediumblob") {
    set(ColumnType::kBlob, 3);
  } else if (data_type == "longtext" || data_type == "longblob") {
    set(ColumnType::kBlob, 4);
  } else if (data_type == "json") {
    set(ColumnType::kJson, 4);
  } else if (data_type == "enum") {
    set(ColumnType::kEnum);
    c.wire_type = ColumnType::kString;
    c.enum_values = ParseLabelList(column_type);
    c.meta = c.enum_values.size() > 255 ? 2 : 1;
  } else if (data_type == "set") {
    set(ColumnType::kSet);
    c.wire_type = ColumnType::kString;
    c.set_values = ParseLabelList(column_type);
    const size_t bytes = (c.set_values.size() + 7) / 8;
    c.meta = static_cast<uint32_t>(bytes > 4 ? 8 : bytes == 0 ? 1 : bytes);
  } else if (data_type == "bit") {
    set(ColumnType::kBit, static_cast<uint32_t>(numeric_precision));
  } else if (data_type == "geometry" || data_type == "point" || data_type == "linestring" ||
             data_type == "polygon" || data_type == "multipoint" ||
             data_type == "multilinestring" || data_type == "multipolygon" ||
             data_type == "geometrycollection" || data_type == "geomcollection") {
    set(ColumnType::kGeometry, 4);
    c.charset = 63;
  } else if (data_type == "inet6" || data_type == "uuid") {
    set(ColumnType::kString, 16);
    c.charset = 63;
  } else if (data_type == "inet4") {
    set(ColumnType::kString, 4);
    c.charset = 63;
  } else if (data_type == "vector") {
    set(ColumnType::kVector, 4);
  } else {
    Fail(ErrorCode::kUnsupported,
         "source column {}.{} has type {}, which rowbridge cannot replicate", table_name, c.name,
         column_type);
  }
  return c;
}

}  // namespace

std::vector<std::string> ParseLabelList(std::string_view column_type) {
  const size_t open = column_type.find('(');
  const size_t close = column_type.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    Fail(ErrorCode::kInvalidArgument, "cannot read the labels of column type \"{}\"", column_type);
  }
  std::vector<std::string> labels;
  std::string_view s = column_type.substr(open + 1, close - open - 1);
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '\'') {
      Fail(ErrorCode::kInvalidArgument, "cannot read the labels of column type \"{}\"",
           column_type);
    }
    ++i;
    std::string label;
    for (;;) {
      if (i >= s.size()) {
        Fail(ErrorCode::kInvalidArgument, "unterminated label in column type \"{}\"", column_type);
      }
      if (s[i] == '\'') {
        if (i + 1 < s.size() && s[i + 1] == '\'') {
          label.push_back('\'');
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      if (s[i] == '\\' && i + 1 < s.size()) {
        label.push_back(s[i + 1]);
        i += 2;
        continue;
      }
      label.push_back(s[i++]);
    }
    labels.push_back(std::move(label));
    if (i < s.size()) {
      if (s[i] != ',') {
        Fail(ErrorCode::kInvalidArgument, "cannot read the labels of column type \"{}\"",
             column_type);
      }
      ++i;
    }
  }
  return labels;
}

std::vector<SourceTableName> ListSourceTables(mysql::Connection& connection) {
  std::vector<SourceTableName> out;
  auto rows = connection.QueryRows(
      "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE "
      "TABLE' AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', "
      "'sys') ORDER BY TABLE_SCHEMA, TABLE_NAME");
  for (auto& row : rows) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    out.push_back({*row[0], *row[1]});
  }
  return out;
}

std::optional<SourceTableSchema> LoadSourceTableSchema(mysql::Connection& connection,
                                                       std::string_view database,
                                                       std::string_view table) {
  const std::string where = fmt::format("TABLE_SCHEMA = {} AND TABLE_NAME = {}",
                                        mysql::QuoteString(database), mysql::QuoteString(table));
  auto rows = connection.QueryRows(fmt::format(
      "SELECT c.COLUMN_NAME, c.DATA_TYPE, c.COLUMN_TYPE, c.IS_NULLABLE, "
      "c.CHARACTER_OCTET_LENGTH, c.NUMERIC_PRECISION, c.NUMERIC_SCALE, c.DATETIME_PRECISION, "
      "co.ID, c.COLLATION_NAME, c.COLUMN_DEFAULT, c.EXTRA FROM information_schema.COLUMNS c "
      "LEFT JOIN information_schema.COLLATIONS co ON "
      "co.COLLATION_NAME = c.COLLATION_NAME WHERE c.{} ORDER BY c.ORDINAL_POSITION",
      fmt::format("TABLE_SCHEMA = {} AND c.TABLE_NAME = {}", mysql::QuoteString(database),
                  mysql::QuoteString(table))));
  if (rows.empty()) return std::nullopt;
  SourceTableSchema schema;
  schema.name = {std::string(database), std::string(table)};
  const std::string qualified = schema.name.ToString();
  for (auto& row : rows) {
    if (row.size() < 12 || !row[0] || !row[1] || !row[2]) {
      Fail(ErrorCode::kProtocol, "information_schema.COLUMNS of {} returned an incomplete row",
           qualified);
    }
    std::optional<uint64_t> collation;
    if (row[8]) {
      collation = ToNumber(row[8]);
    } else if (row[9]) {
      // MariaDB 10.10+ lists its uca1400 collations in COLLATIONS without their character set
      // ("uca1400_ai_ci") while COLUMNS names them in full ("utf8mb4_uca1400_ai_ci"): the join
      // finds no id, and a text column would be taken for a binary one.
      const auto known =
          schema::CollationByName(*row[9], connection.is_mariadb() ? schema::ServerFlavor::kMariadb
                                                                   : schema::ServerFlavor::kMysql);
      if (!known) {
        Fail(ErrorCode::kProtocol, "{}.{}: the source names an unknown collation {}", qualified,
             *row[0], *row[9]);
      }
      collation = known->id;
    }
    schema.column_types.push_back(Lower(*row[2]));
    schema.columns.push_back(ColumnFromInformationSchema(
        qualified, *row[0], *row[1], *row[2], row[3] && *row[3] == "YES", ToNumber(row[4]),
        ToNumber(row[5]), ToNumber(row[6]), ToNumber(row[7]), collation));
    ColumnDef& added = schema.columns.back();
    added.default_known = true;
    added.default_value = DefaultFromInformationSchema(row[10], row[11] ? *row[11] : "", added,
                                                       connection.is_mariadb());
  }
  auto keys = connection.QueryRows(fmt::format(
      "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE {} AND INDEX_NAME = 'PRIMARY' "
      "ORDER BY SEQ_IN_INDEX",
      where));
  for (auto& key : keys) {
    if (key.empty() || !key[0]) continue;
    for (uint32_t i = 0; i < schema.columns.size(); ++i) {
      if (EqualsNoCase(schema.columns[i].name, *key[0])) {
        schema.columns[i].is_primary_key = true;
        schema.primary_key.push_back(i);
        break;
      }
    }
  }
  return schema;
}

std::optional<std::string> DefaultFromInformationSchema(
    const std::optional<std::string>& column_default, std::string_view extra,
    const ColumnDef& column, bool mariadb) {
  if (!column_default) return std::nullopt;
  if (mariadb) return schema::CanonicalDefault(*column_default);
  if (Lower(extra).find("default_generated") != std::string::npos) {
    return schema::CanonicalDefault("(" + *column_default + ")");
  }
  // A number as written, or a BIT default as b'101'; every other type's value is text.
  if (binlog::IsNumericColumnType(column.type) || column.type == ColumnType::kBit) {
    return schema::CanonicalDefault(*column_default);
  }
  return schema::StringDefault(*column_default);
}

std::optional<std::string> SchemaDifference(const std::vector<ColumnDef>& known,
                                            const std::vector<ColumnDef>& table_map) {
  if (known.size() != table_map.size()) {
    return fmt::format("the binlog has {} columns, {} are known", table_map.size(), known.size());
  }
  for (size_t i = 0; i < known.size(); ++i) {
    const ColumnDef& k = known[i];
    const ColumnDef& b = table_map[i];
    const std::string label = fmt::format("column {} ({})", i + 1, k.name);
    if (!b.name.empty() && !EqualsNoCase(b.name, k.name)) {
      return fmt::format("{} is named {} in the binlog", label, b.name);
    }
    if (TypeFamily(k.type) != TypeFamily(b.type)) {
      return fmt::format("{} is {} in the binlog, {} known", label, binlog::ColumnTypeName(b.type),
                         binlog::ColumnTypeName(k.type));
    }
    if (b.signedness_known && k.signedness_known && b.is_unsigned != k.is_unsigned) {
      return fmt::format("{} is {} in the binlog", label, b.is_unsigned ? "UNSIGNED" : "SIGNED");
    }
    if (!b.enum_values.empty() && b.enum_values != k.enum_values) {
      return fmt::format("{} has ENUM labels {} in the binlog, {} known", label,
                         LabelsText(b.enum_values), LabelsText(k.enum_values));
    }
    if (!b.set_values.empty() && b.set_values != k.set_values) {
      return fmt::format("{} has SET labels {} in the binlog, {} known", label,
                         LabelsText(b.set_values), LabelsText(k.set_values));
    }
    if (k.type == ColumnType::kNewDecimal && b.type == ColumnType::kNewDecimal &&
        (k.precision != b.precision || k.scale != b.scale)) {
      return fmt::format("{} is DECIMAL({},{}) in the binlog, DECIMAL({},{}) known", label,
                         b.precision, b.scale, k.precision, k.scale);
    }
    if (k.type == ColumnType::kBit && b.type == ColumnType::kBit && k.meta != b.meta) {
      return fmt::format("{} is BIT({}) in the binlog, BIT({}) known", label, b.meta, k.meta);
    }
  }
  return std::nullopt;
}

void EnrichFromSchema(const std::vector<ColumnDef>& known, std::vector<ColumnDef>& columns) {
  const size_t n = std::min(known.size(), columns.size());
  for (size_t i = 0; i < n; ++i) {
    const ColumnDef& k = known[i];
    ColumnDef& c = columns[i];
    if (c.name.empty()) c.name = k.name;
    if (!c.signedness_known) {
      c.signedness_known = true;
      c.is_unsigned = k.is_unsigned;
    }
    if (c.charset == 0) c.charset = k.charset;
    if (c.enum_values.empty()) c.enum_values = k.enum_values;
    if (c.set_values.empty()) c.set_values = k.set_values;
    c.is_primary_key = k.is_primary_key;
    if (!c.default_known) {
      c.default_known = k.default_known;
      c.default_value = k.default_value;
    }
  }
}

uint32_t LoadTableCollation(mysql::Connection& connection, const SourceTableName& name) {
  uint32_t id = 0;
  for (auto& row : connection.QueryRows(fmt::format(
           "SELECT co.ID FROM information_schema.TABLES t JOIN information_schema.COLLATIONS co "
           "ON co.COLLATION_NAME = t.TABLE_COLLATION WHERE t.TABLE_SCHEMA = {} AND "
           "t.TABLE_NAME = {}",
           mysql::QuoteString(name.database), mysql::QuoteString(name.table)))) {
    if (!row.empty() && row[0])
      id = static_cast<uint32_t>(std::strtoul(row[0]->c_str(), nullptr, 10));
  }
  return id;
}

}  // namespace rowbridge::tables
