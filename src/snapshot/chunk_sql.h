// The SQL of the copy: what a chunk SELECT looks like, how a key value becomes a literal in it, and
// how key values are kept in the state (hex of their cell bytes).
//
// A chunk is read with keyset pagination, never OFFSET:
//   SELECT <columns> FROM `db`.`t` WHERE <after last key> ORDER BY k1, k2 LIMIT n
// where "after (a, b)" is written k1 >= a AND (k1 > a OR k2 > b) — the same rows as
// (k1, k2) > (a, b), in a form every MySQL and MariaDB version turns into an index range scan.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/cell.h"
#include "mysql/connection.h"

namespace rowbridge::snapshot {

// A text key column's charset and collation (for literals and server-side comparisons).
struct KeyCollation {
  std::string charset;    // "utf8mb4"; "binary" for binary strings; empty for non-strings
  std::string collation;  // "utf8mb4_general_ci"
};

// The collation of every key column (charset/collation empty for non-strings), from
// information_schema.COLLATIONS by the columns' collation ids.
std::vector<KeyCollation> LoadKeyCollations(mysql::Connection& connection,
                                            std::span<const binlog::ColumnDef* const> key_columns);

// A literal that compares with the column as its value does: numbers as numbers, temporal values
// as quoted text (TIMESTAMP in UTC: the session must use time_zone '+00:00'), strings as
// _charset X'hex' (coercible, so the column's collation decides).
void AppendKeyLiteral(const binlog::Cell& cell, const KeyCollation& collation, std::string& out);

// "`k1` >= a AND (`k1` > a OR `k2` > b)" for key columns named `names` and last values `last`.
std::string AfterKeyCondition(std::span<const std::string> quoted_names,
                              std::span<const binlog::Cell> last,
                              std::span<const KeyCollation> collations);

// "`k1` <= a AND (`k1` < a OR `k2` <= b)": the keys up to and including `key` (a chunk's end
// when chunks are read in parallel and their ends are found ahead).
std::string AtOrBeforeKeyCondition(std::span<const std::string> quoted_names,
                                   std::span<const binlog::Cell> key,
                                   std::span<const KeyCollation> collations);

// Hex text of a cell's bytes and back (for the state). NULL is not a key value.
std::string CellHex(const binlog::Cell& cell);
// Decodes `hex` into `storage` and makes `cell` (of `column`, index `index`) point at it.
void CellFromHex(std::string_view hex, const binlog::ColumnDef& column, uint32_t index,
                 std::string& storage, binlog::Cell& cell);

}  // namespace rowbridge::snapshot
