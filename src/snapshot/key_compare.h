// Ordering of primary-key values as the source orders them (ORDER BY key), on binlog Cells, so that
// chunk boundaries from SELECT results (text turned into cells, mapping/text_cell.h) and keys of
// row events (cells straight from the binlog) compare with each other.
//
// Exact in-process comparison for every key type whose order does not depend on a collation:
// integers (signed/unsigned), YEAR, BIT, ENUM (by index), SET (by bitmask), DECIMAL (exact value),
// FLOAT/DOUBLE, DATE, DATETIME, TIMESTAMP, TIME (any storage format), and strings with the binary
// character set (bytes; BINARY(n) pad bytes ignored as row events drop them). Text strings order
// by their collation, which only the server knows: those column comparisons go to a
// `TextCollator` (ServerCollator asks the source; tests may plug a byte order).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "binlog/cell.h"

namespace rowbridge::snapshot {

// Compares two non-NULL text values of a column by the column's collation (<0, 0, >0).
using TextCollator =
    std::function<int(const binlog::ColumnDef& column, std::string_view a, std::string_view b)>;

// True if comparing `column` needs a TextCollator (a text string with a non-binary charset).
bool NeedsCollator(const binlog::ColumnDef& column);

// Compares two values of one key column (<0, 0, >0). NULLs sort first (keys are NOT NULL, but a
// unique key's value may not be). Throws Error(kUnsupported) for a type no key can have here
// (JSON, GEOMETRY, BLOB prefix keys are compared as bytes like other binary strings).
int CompareKeyCell(const binlog::Cell& a, const binlog::Cell& b, const TextCollator& collator);

// Lexicographic comparison of key tuples of equal length.
int CompareKeys(std::span<const binlog::Cell> a, std::span<const binlog::Cell> b,
                const TextCollator& collator);

// Whether two key tuples of equal length hold the same bytes (NULL only equals NULL). This is the
// identity of a key in the target, and the one the stream uses to tell that an UPDATE moved a row:
// ClickHouse orders and deduplicates by bytes, so 'abc' and 'ABC', or 'a' and 'a ', are two keys
// there even where the source's collation calls them equal. Needs no collator.
bool SameKeyBytes(std::span<const binlog::Cell> a, std::span<const binlog::Cell> b);

}  // namespace rowbridge::snapshot
