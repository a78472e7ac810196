// The schema of one source table at one moment, in the representation the rest of rowbridge
// already uses: binlog::ColumnDef per column, shaped as a TABLE_MAP with full metadata would
// describe it (type code, meta, precision/scale, signedness, collation id, ENUM/SET labels, name,
// primary key flags) -- the same shape pipeline::SourceTableSchema has, so converting is a copy
// of three fields. The DDL-only facts the catalog needs to apply later statements (the table's
// default collation) ride along.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/table_map.h"
#include "schema/ddl_statement.h"

namespace rowbridge::schema {

struct TableSchema {
  TableRef name;
  std::vector<binlog::ColumnDef> columns;  // in table order; is_primary_key set
  std::vector<uint32_t> primary_key;       // indices into columns, key order; empty = none
  uint32_t default_collation = 0;          // for columns added without a charset; 0 = unknown

  // Index of the column named `name` (column names are case-insensitive), or nullopt.
  std::optional<size_t> FindColumn(std::string_view column) const;
  // Every field, every column field.
  bool operator==(const TableSchema& other) const;
};

// binlog::ColumnDef has no operator==; this compares every field.
bool SameColumn(const binlog::ColumnDef& a, const binlog::ColumnDef& b);

// One line per column, canonical and stable (tests and messages compare it):
//   "db.t default_collation=45 primary_key=(id)" then "  id LONG unsigned NOT NULL" ...
std::string DescribeTable(const TableSchema& schema);

// "VARCHAR(meta=128) collation=45", "NEWDECIMAL(10,2) unsigned", "ENUM('a','b')",
// "TIMESTAMP2(fsp=3)" followed by " NOT NULL" / " INVISIBLE" / " DEFAULT 'x'" when they apply.
std::string DescribeColumn(const binlog::ColumnDef& column);

}  // namespace rowbridge::schema
