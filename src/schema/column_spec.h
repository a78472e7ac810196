// Turns a column definition as DDL writes it (schema::ColumnSpec) into the binlog::ColumnDef a
// TABLE_MAP with full metadata would carry for it: the type code row events use (TIME2,
// DATETIME2, TIMESTAMP2, NEWDECIMAL, VARCHAR, BLOB with its length-prefix size, ENUM/SET with
// their pack length, ...), the meta the decoder needs (fractional precision, byte length of
// CHAR/VARCHAR = characters x bytes per character, BIT width), precision/scale, signedness, the
// collation id and the labels. It produces exactly what pipeline::LoadSourceTableSchema builds
// from information_schema for the same column, so both sources of a schema agree.
//
// Errors: Error(kUnsupported) for a character set or collation rowbridge does not know, a
// VARCHAR without length, or lengths/precisions out of MySQL's ranges, naming table.column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "binlog/table_map.h"
#include "schema/charsets.h"
#include "schema/ddl_statement.h"

namespace rowbridge::schema {

struct ColumnContext {
  ServerFlavor flavor = ServerFlavor::kMysql;
  // The collation a column without CHARACTER SET/COLLATE gets: the table's default.
  uint32_t table_collation = 0;
  // explicit_defaults_for_timestamp=OFF makes a TIMESTAMP without NULL/NOT NULL NOT NULL.
  bool explicit_defaults_for_timestamp = true;
  std::string_view table_name;  // "db.t", for messages
};

// The collation id for a charset/collation pair as DDL writes it (either may be empty), with
// `inherited` used when both are; BINARY selects the charset's _bin collation.
uint32_t ResolveCollation(std::string_view charset, std::string_view collation, bool binary,
                          uint32_t inherited, ServerFlavor flavor, std::string_view where);

// Also sets the column's default (default_known, default_value: CanonicalDefault of the DDL's).
binlog::ColumnDef ResolveColumn(const ColumnSpec& spec, const ColumnContext& context);

// A DEFAULT as DDL (or MariaDB's information_schema) writes it, in the one form the schema history
// keeps, so that the same default reads the same whichever way it was learnt:
//   NULL                                   nullopt (a column without default fills NULL too)
//   TRUE / FALSE                           "1" / "0"
//   numbers, with a sign                   "-5", "1.50", "1e3" (as written, '+' dropped)
//   strings, with introducer, adjacent     "'it''s'" (decoded, quote doubled, no other escape)
//     parts, or a DATE/TIME/TIMESTAMP tag
//   hex and bit literals                   as written: "0x41", "b'101'"
//   CURRENT_TIMESTAMP, NOW(), LOCALTIME,   "CURRENT_TIMESTAMP"
//     LOCALTIMESTAMP, with or without (fsp)
//   (literal)                              the literal's form (MySQL 8 expression syntax)
//   anything else                          the text as written: an expression
std::optional<std::string> CanonicalDefault(std::string_view written);
// The canonical form of a string default whose value (decoded) is `value`: "'it''s'".
std::string StringDefault(std::string_view value);

}  // namespace rowbridge::schema
