// A source table as `rowbridge check` sees it: its columns described as the binlog would describe
// them (ColumnDefs, so the pipeline's converters can be chosen for them) and its primary key,
// both read from information_schema.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/table_map.h"
#include "mysql/connection.h"

namespace rowbridge::check {

struct SourceTable {
  std::string database;
  std::string table;
  std::vector<binlog::ColumnDef> columns;  // in table order, names set
  std::vector<uint32_t> primary_key;       // indices into columns, in key order
};

// Reads the table's columns and primary key. Throws Error(kConfig) if the table does not exist,
// Error(kUnsupported) naming the column for a type check cannot describe.
SourceTable ReadSourceTable(mysql::Connection& conn, std::string_view database,
                            std::string_view table);

// `name` quoted for MySQL (`a``b`).
std::string QuoteMysqlName(std::string_view name);
// A string literal for MySQL ('it''s', backslashes doubled).
std::string QuoteMysqlString(std::string_view text);

// The labels of an ENUM/SET COLUMN_TYPE such as "enum('a','it''s')". Throws Error(kCorruption) if
// the text is not a quoted list.
std::vector<std::string> ParseEnumLabels(std::string_view column_type);

}  // namespace rowbridge::check
