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

// True for types whose signedness the SIGNEDNESS metadata lists. MariaDB lists YEAR too (its
// YEAR is an integer field class there); MySQL does not.
bool IsNumericColumnType(ColumnType real_type, bool mariadb);
// True for types the (DEFAULT_)CHARSET metadata covers: CHAR, VARCHAR, TEXT/BLOB and the
// BLOB-derived GEOMETRY and VECTOR; not ENUM/SET.
bool IsCharacterColumnType(ColumnType real_type);

}  // namespace rowbridge::binlog
