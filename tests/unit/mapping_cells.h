// Test helpers for the mapping tests: MySQL column definitions from short type strings and binlog
// cell bytes from readable values, so a converter case is one line of text.
//
// Type strings: TINYINT|SMALLINT|MEDIUMINT|INT|BIGINT [UNSIGNED], FLOAT, DOUBLE, DECIMAL(p,s),
// BIT(n), YEAR, DATE, TIME[(f)], DATETIME[(f)], TIMESTAMP[(f)], OLDTIME, OLDDATETIME,
// OLDTIMESTAMP, CHAR(n), BINARY(n), VARCHAR(n), VARBINARY(n), TEXT, BLOB, JSON, GEOMETRY,
// VECTOR(n), ENUM('a','b'), SET('a','b'); a trailing " NOT NULL" clears `nullable`.
//
// Values: "NULL"; "hex:0a0b" (raw bytes for any type); integers; floats; decimal text; BIT and
// SET and ENUM as numbers; YEAR as the year (0 = zero year); DATE "YYYY-MM-DD";
// DATETIME "YYYY-MM-DD HH:MM:SS[.ffffff]"; TIMESTAMP as that text read in UTC, or "0" for the
// zero timestamp; TIME "[-]HH:MM:SS[.ffffff]" (hours up to 838); VECTOR "1.5,2"; anything else
// (strings) verbatim.
#pragma once

#include <string>
#include <string_view>

#include "binlog/cell.h"
#include "binlog/table_map.h"

namespace rowbridge::testing {

binlog::ColumnDef ParseMysqlType(std::string_view spec, std::string name = "c");

// The cell bytes of `value` for `column` (throws std::invalid_argument on a bad value).
std::string EncodeCellValue(const binlog::ColumnDef& column, std::string_view value);

// A cell over `storage` (which must outlive it); "NULL" gives a NULL cell.
binlog::Cell MakeCell(const binlog::ColumnDef& column, std::string_view value, std::string& storage,
                      uint32_t index = 0);

}  // namespace rowbridge::testing
