// Quoting of names and string literals for the few SQL statements the pipeline builds itself
// (information_schema lookups on the source, system.columns / DDL / state on ClickHouse). Values
// of replicated rows never pass through SQL text.
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::mysql {

// `name` with backticks doubled inside (valid for both MySQL and ClickHouse).
std::string QuoteIdentifier(std::string_view name);
// `db`.`table`
std::string QuoteQualified(std::string_view database, std::string_view table);
// 'text' with backslash and quote escaped (valid for both MySQL, in its default sql_mode, and
// ClickHouse).
std::string QuoteString(std::string_view text);

}  // namespace rowbridge::mysql
