// What a replicated table IS, whoever replicates it (the stream, the copy, validate, check): a
// source table, the rule that matched it, its columns at the position it was resolved at, and the
// ClickHouse table its rows go into. What a replicator does with it at run time (batches,
// counters, a stopped flag, the TABLE_MAP it decodes with) is the replicator's own state, kept
// beside this record (pipeline::StreamedTable extends it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "binlog/table_map.h"
#include "config/config.h"
#include "mapping/conversion_plan.h"
#include "tables/source_schema.h"
#include "tables/target_tables.h"

namespace rowbridge::tables {

struct ReplicatedTable {
  SourceTableName name;
  int rule_index = -1;
  const config::TableRule* rule = nullptr;
  // Its columns: from the schema history at a position, or from information_schema now. Unknown
  // (nullopt) for a table the source no longer has.
  std::optional<SourceTableSchema> known;
  // Owned by the TableResolver; several source tables may write into one target.
  TargetTable* target = nullptr;
};

// The ClickHouse table mode of a rule's mode.
mapping::TableMode PlanMode(config::TableMode mode);
// The rule's metadata column names, as the mapping names them.
mapping::MetaColumnNames MetaNames(const config::MetaColumns& meta);
// The column that tells a removal row of the rule's target (TargetTable::removal_column).
const std::string& RemovalColumn(const config::TableRule& rule);

// ASCII case-insensitive comparison: MySQL column names are.
bool SameColumnName(std::string_view a, std::string_view b);

// Whether the rule replicates `column` (include_columns / exclude_columns).
bool IsReplicatedColumn(const binlog::ColumnDef& column, const config::TableRule& rule);

// The columns of `table` the rule replicates, in source order.
std::vector<binlog::ColumnDef> ReplicatedColumns(const ReplicatedTable& table);

// The key an UPDATE that changes it moves a row by, and a created target is ordered by: the
// rule's `key`, else the source's primary key, else the primary key `map` names (a TABLE_MAP
// with full metadata), else none.
std::vector<std::string> KeyNames(const ReplicatedTable& table,
                                  const binlog::TableMap* map = nullptr);

}  // namespace rowbridge::tables
