// What the source says about its tables, for binlogs that do not carry column names
// (binlog_row_metadata=MINIMAL/NO_LOG, the default before MySQL 8.0 / MariaDB 10.5):
// information_schema gives each column's name, type, signedness, charset, ENUM/SET labels and the
// primary key. Read with a separate short-lived connection when a table is first needed.
//
// The columns come back as binlog::ColumnDefs shaped like a TABLE_MAP would describe them (the
// physical type code and metadata a row event uses), so a plan can be built and checked before
// the table's first TABLE_MAP arrives. Once a TABLE_MAP arrives, SchemaDifference() tells whether
// it describes the same columns; EnrichFromSchema() then copies names, signedness, charset and
// labels into the TABLE_MAP's own ColumnDefs, which stay the authority for decoding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/table_map.h"
#include "mysql/connection.h"

namespace rowbridge::tables {

struct SourceTableName {
  std::string database;
  std::string table;
  bool operator==(const SourceTableName&) const = default;
  auto operator<=>(const SourceTableName&) const = default;
  std::string ToString() const { return database + "." + table; }
};

struct SourceTableSchema {
  SourceTableName name;
  std::vector<binlog::ColumnDef> columns;  // in table order, is_primary_key set
  std::vector<uint32_t> primary_key;       // column indices in key order; empty = none
  // information_schema's COLUMN_TYPE of each column, lower case ("int(10) unsigned", "inet6"):
  // tells apart types a ColumnDef describes alike (INET6 and BINARY(16) are both 16 bytes).
  std::vector<std::string> column_types;
};

// Base tables of every database except the server's own (mysql, information_schema,
// performance_schema, sys), sorted.
std::vector<SourceTableName> ListSourceTables(mysql::Connection& connection);

// The table's columns, or nullopt if the table does not exist. Throws Error(kUnsupported) for a
// column type the binlog cannot carry.
std::optional<SourceTableSchema> LoadSourceTableSchema(mysql::Connection& connection,
                                                       std::string_view database,
                                                       std::string_view table);

// The id of the table's default collation (what a column added without a charset gets), 0 if the
// table is not there.
uint32_t LoadTableCollation(mysql::Connection& connection, const SourceTableName& name);

// Parses an information_schema COLUMN_TYPE's ENUM/SET label list: "enum('a','b''c')" ->
// {"a", "b'c"}. Throws Error(kInvalidArgument) for malformed text.
std::vector<std::string> ParseLabelList(std::string_view column_type);

// information_schema.COLUMNS' COLUMN_DEFAULT (nullopt: SQL NULL) and EXTRA of `column`, in the
// schema history's form (schema::CanonicalDefault). MariaDB (10.2.7 on) writes the default as SQL
// text ('abc', 5, NULL, current_timestamp(), uuid()); MySQL writes a literal's raw value (abc, 5)
// and SQL NULL for none, and marks expression defaults (and CURRENT_TIMESTAMP) with EXTRA
// DEFAULT_GENERATED.
std::optional<std::string> DefaultFromInformationSchema(
    const std::optional<std::string>& column_default, std::string_view extra,
    const binlog::ColumnDef& column, bool mariadb);

// Why the TABLE_MAP's columns are not the known ones ("3 columns in the binlog, 4 known",
// "column 2 (price) is DOUBLE in the binlog, NEWDECIMAL known", "column 1 is named b in the
// binlog, a known"), or nullopt if they agree. Types are compared by family (DATE/NEWDATE,
// TIME/TIME2, ... are the same), names and labels only when the TABLE_MAP carries them.
std::optional<std::string> SchemaDifference(const std::vector<binlog::ColumnDef>& known,
                                            const std::vector<binlog::ColumnDef>& table_map);

// Copies what information_schema knows and the TABLE_MAP may lack (name, signedness, charset,
// ENUM/SET labels, primary key flags, the default) from `known` into `columns`. Both must describe
// the same columns (SchemaDifference() == nullopt).
void EnrichFromSchema(const std::vector<binlog::ColumnDef>& known,
                      std::vector<binlog::ColumnDef>& columns);

}  // namespace rowbridge::tables
