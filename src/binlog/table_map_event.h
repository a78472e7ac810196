// TABLE_MAP_EVENT parser: fills a TableMap (table_map.h) from the event body, including every
// optional-metadata field MySQL 8.0–9.x and MariaDB write (binlog_row_metadata=MINIMAL/FULL).
#pragma once

#include "binlog/event.h"
#include "binlog/format_description.h"
#include "binlog/table_map.h"

namespace rowbridge::binlog {

// Throws Error(kCorruption) on malformed bytes and Error(kUnsupported) for a column type whose
// metadata layout is unknown; both name the binlog, offset and db.table.
TableMap ParseTableMap(const Event& event, const FormatDescription& format);

// True for types the SIGNEDNESS metadata has a bit for: the integers, DECIMAL, FLOAT, DOUBLE and
// YEAR. Both flavors give YEAR a bit (always "unsigned": YEAR is an unsigned integer field inside
// both servers; seen on MySQL 9.7, MariaDB 10.11 and 11.8). YEAR has no signedness in SQL, so the
// parser consumes its bit without recording it (signedness_known stays false).
bool IsNumericColumnType(ColumnType real_type);
// True for types the (DEFAULT_)CHARSET metadata covers: CHAR, VARCHAR, TEXT/BLOB and the
// BLOB-derived GEOMETRY and VECTOR; not ENUM/SET.
bool IsCharacterColumnType(ColumnType real_type);

}  // namespace rowbridge::binlog
