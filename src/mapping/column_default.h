// The ClickHouse DEFAULT of a target column for its source column's DEFAULT. It matters for the
// rows a target holds from before the column existed there: ClickHouse computes their value from
// the DEFAULT whenever it reads them (until a merge or mutation writes it), where the source
// filled its existing rows once, with the default's value, when the column was added. Every row
// written afterwards carries its own value.
//
// So only constants are carried, converted the way the mapping converts values of that column
// (ENUM to its label, SET to its labels in declaration order, BIT to its number, DATETIME read in
// the zone the target's DateTime carries, DECIMAL exactly), and only when the value is one the
// target type holds: a default ClickHouse cannot express comes back as a problem (why), never as
// a silently different default. Not carried, with the reason:
//   expressions           MySQL evaluates them per filled row (uuid(), rand(), (a + 1))
//   CURRENT_TIMESTAMP     ClickHouse would evaluate now() at every read, not once
//   TIMESTAMP literals    written in the DDL session's time zone, which the binlog does not give
//   TIME                  MySQL reads many forms ('1:2', '10'); only its own text is the value
//   zero or partial dates, values outside the target type's range, non-ASCII text in a column
//   whose character set is not UTF-8 (the DDL's text is not the column's bytes)
#pragma once

#include <optional>
#include <string>

#include "binlog/table_map.h"
#include "clickhouse/type_name.h"

namespace rowbridge::mapping {

struct TargetDefault {
  // The expression for "DEFAULT <expression>"; nullopt: the column has no DEFAULT (the source's
  // has none, or it is NULL, which a Nullable column reads anyway).
  std::optional<std::string> expression;
  // Non-empty: the source's default cannot be expressed (expression is nullopt then); why.
  std::string problem;
};

// `column.default_value` (schema::CanonicalDefault's form) for a target column of type `target`.
TargetDefault ClickHouseDefault(const binlog::ColumnDef& column,
                                const clickhouse::TypeDesc& target);

}  // namespace rowbridge::mapping
