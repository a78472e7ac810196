// Text forms of one cell: as mysqlbinlog prints it in verbose row output, and as a JSON value for
// `rowbridge dump-binlog --format=json`.
#pragma once

#include <string>

#include "binlog/cell.h"

namespace rowbridge::binlog {

// Appends the text that follows "@N=" in `mariadb-binlog --base64-output=decode-rows -v`
// (MariaDB 10.11; identical to MySQL 8's mysqlbinlog except where noted in the .cpp, and then the
// MariaDB form wins):
//   NULL                      NULL
//   TINY/SHORT/INT24/LONG/LONGLONG   signed value, plus " (unsigned)" when negative: "-1 (255)"
//   FLOAT                     printf "%-20g" (left-aligned, padded to 20 columns)
//   DOUBLE                    printf "%-.20g"
//   NEWDECIMAL                exact decimal text
//   BIT(n)                    b'0101' with n digits
//   YEAR                      the year number (0 for zero year)
//   DATE, DATETIME(2)         'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS[.f]' quoted
//   TIME(2)                   'HH:MM:SS[.f]' quoted
//   TIMESTAMP(2)              seconds since the epoch, with ".f" digits for fsp > 0
//   CHAR/VARCHAR/BLOB/TEXT/GEOMETRY  quoted, bytes < 0x20, ' and \ as \xNN
//   ENUM, SET                 the stored number (index / bitmask)
//   JSON                      MySQL's JSON text, quoted like a string; diffs as JSON_* calls
// Throws Error(kCorruption) if the bytes do not fit the column type, kUnsupported for types that
// never appear in row events of supported servers (old DECIMAL).
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
