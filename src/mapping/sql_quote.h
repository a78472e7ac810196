// Quoting for the ClickHouse SQL rowbridge generates (DDL, INSERT column lists, SELECT ... FINAL).
// Identifiers are always backtick-quoted, so any table or column name MySQL allows is safe.
#pragma once

#include <string>
#include <string_view>

namespace rowbridge::mapping {

// `name` with \ and ` escaped by a backslash, NUL as \0, control bytes as \xNN.
std::string QuoteIdentifier(std::string_view name);
// `db`.`table`
std::string QuoteTableName(std::string_view database, std::string_view table);
// 'text' with \ and ' escaped by a backslash, NUL as \0, control bytes as \xNN.
std::string QuoteString(std::string_view text);

}  // namespace rowbridge::mapping
