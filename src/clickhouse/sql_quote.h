// Quoting of ClickHouse identifiers and string literals: the one place SQL text for ClickHouse is
// escaped (generated DDL, INSERT column lists, system.columns lookups, the state tables, check's
// SELECTs). MySQL SQL has its own rules: mysql/sql_quote.h.
//
// ClickHouse reads the same escapes in back-quoted identifiers and in single-quoted strings, and
// (unlike MySQL) has no setting that turns them off. Both are written alike:
//   \ and the enclosing quote      preceded by a backslash (\\, \`, \')
//   NUL                            \0
//   other bytes below 0x20, 0x7F   \xNN (so no line break or control byte reaches the statement)
//   everything else                as is: any UTF-8 (4-byte too) and any other byte
// Identifiers are always back-quoted, so any name MySQL allows is safe. A ClickHouse name can hold
// no NUL (the server rejects it), a string value can.
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::clickhouse {

// `name`, escaped as above.
std::string QuoteIdentifier(std::string_view name);
// `db`.`table`
std::string QuoteQualified(std::string_view database, std::string_view table);
// 'text', escaped as above.
std::string QuoteString(std::string_view text);

}  // namespace rowbridge::clickhouse
