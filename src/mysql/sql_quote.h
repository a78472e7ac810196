// Quoting of MySQL/MariaDB identifiers and string literals: the one place SQL text for the source
// is escaped (information_schema lookups, the copy's and check's SELECTs, lock names, the
// replication stream's session variables). Values of replicated rows never pass through SQL text.
// ClickHouse SQL has its own rules: clickhouse/sql_quote.h.
//
// Identifiers: enclosed in backticks, a backtick inside doubled (a`b -> `a``b`). Nothing else is
// special inside backticks, whatever the sql_mode (ANSI_QUOTES only adds "..." as a second form).
// Neither server allows NUL in a name, and MySQL none ending in a space; such names are passed
// through, and the server rejects them.
//
// String literals: enclosed in single quotes, with backslash escapes for \ ' NUL LF CR and
// 0x1A (\\ \' \0 \n \r \Z), the set mysql_real_escape_string() escapes; every other byte,
// including 4-byte UTF-8 and any non-UTF-8 byte, stands for itself. Escaped so, a literal holds
// exactly the bytes given and no NUL, CR or LF can end up in the statement's text.
//
// Backslash escapes are only escapes while the session's sql_mode lacks NO_BACKSLASH_ESCAPES; with
// it, '\'' would end the literal early and '\\' be two backslashes. Doubling quotes instead is
// right only WITH that mode, and a hex literal (X'..') is a binary string, which changes
// comparisons against character columns (collations) and so cannot stand in for a string. So
// the literal is written for the default mode, and mysql::Connection guarantees that mode: when
// the server reports NO_BACKSLASH_ESCAPES for a new session (the status flag of its OK packet), the
// connection removes it from that session's sql_mode before anything else runs on it.
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::mysql {

// `name`, backticks inside doubled.
std::string QuoteIdentifier(std::string_view name);
// `db`.`table`
std::string QuoteQualified(std::string_view database, std::string_view table);
// 'text' with \ ' NUL LF CR 0x1A backslash-escaped (see above).
std::string QuoteString(std::string_view text);
// _binary'bytes', escaped alike: a binary string, for bytes that are not text of the connection's
// character set (a BLOB's value); the server then never reads them as characters.
std::string QuoteBinaryString(std::string_view bytes);

}  // namespace rowbridge::mysql
