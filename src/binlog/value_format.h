// Text forms of one cell: as mysqlbinlog prints it in verbose row output, and as a JSON value for
// `rowbridge dump-binlog --format=json`.
#pragma once

#include <string>

#include "binlog/cell.h"

namespace rowbridge::binlog {

// Appends the text that follows "@N=" in `mariadb-binlog --base64-output=decode-rows -v`
// (MariaDB 10.11; where MySQL 8's mysqlbinlog differs, the MariaDB form wins):
//   NULL                      NULL
//   TINY/SHORT/INT24/LONG/LONGLONG   signed value, plus " (unsigned)" when negative: "-1 (255)",
//                             whatever the signedness metadata says (MariaDB ignores it)
//   FLOAT                     printf "%-20g" (left-aligned, padded with spaces to 20 columns)
//   DOUBLE                    printf "%-.20g"
//   NEWDECIMAL                exact decimal text ("-0.50")
//   BIT(n)                    b'0101' with n digits
//   SET                       the stored bytes as a bit string, b'...' with 8 digits per byte,
//                             bytes in storage (little-endian) order
//   ENUM                      the index number
//   YEAR                      1900 + stored byte (so the zero year prints 1900)
//   DATE                      'YYYY:MM:DD' (colons: both tools print it so)
//   DATETIME, DATETIME(f)     'YYYY-MM-DD HH:MM:SS[.f]' (MySQL prints old DATETIME unquoted)
//   TIME, TIME(f)             '[-]HH:MM:SS[.f]' (MySQL ignores the sign of old TIME)
//   TIMESTAMP, TIMESTAMP(f)   seconds since the epoch, with fsp fraction digits: 1332070245.1234
//   CHAR/VARCHAR/BLOB/TEXT/GEOMETRY/VECTOR  single-quoted bytes, those below 0x20 as \xNN, all
//                             others verbatim (no escaping of ' or \)
//   JSON (MySQL only)         MySQL 8's form: the JSON text single-quoted with MySQL's escapes,
//                             partial-update diffs as nested JSON_REPLACE/JSON_INSERT/... calls
// Throws Error(kCorruption) if the bytes do not fit the column type, kUnsupported for types that
// never appear in row events of supported servers (old DECIMAL, BOOL, INVALID, TYPED_ARRAY).
void AppendMysqlbinlogValue(const Cell& cell, std::string& out);

// Appends one valid JSON value:
//   NULL → null; integers → numbers (unsigned when the column is unsigned); FLOAT/DOUBLE →
//   shortest round-trip numbers (non-finite → null); DECIMAL → exact string "-0.50";
//   BIT → number; YEAR → number; DATE → "YYYY-MM-DD"; DATETIME → "YYYY-MM-DDTHH:MM:SS[.f]";
//   TIMESTAMP → UTC "YYYY-MM-DDTHH:MM:SS[.f]Z" (zero timestamp → "0000-00-00T00:00:00Z");
//   TIME → "[-]HH:MM:SS[.f]"; ENUM → label when ColumnDef.enum_values is known, else index number;
//   SET → array of labels when set_values is known, else bitmask number; JSON columns → the
//   document embedded as JSON (a diff cell → {"json_diff":[{"op":..,"path":..,"value":..}]});
//   VECTOR → array of numbers; GEOMETRY and binary strings (charset 63) → base64 string;
//   other strings (text, or charset unknown) → JSON string: valid UTF-8 passes through, every byte
//   that is not part of valid UTF-8 becomes \u00XX (its latin1 reading), so the output is always
//   valid JSON.
void AppendJsonValue(const Cell& cell, std::string& out);

}  // namespace rowbridge::binlog
