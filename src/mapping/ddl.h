// CREATE statements for the ClickHouse tables rowbridge creates, and the query that reads a
// replica table's current state.
//
// replica    ENGINE = ReplacingMergeTree(_version, _is_deleted) on servers with the is_deleted
//            parameter (23.2+), else ReplacingMergeTree(_version) with the same `_is_deleted UInt8`
//            column (readers filter it: FinalSelectQuery). ORDER BY the key.
// changelog  ENGINE = MergeTree with `_event_type Enum8('insert' = 1, 'update' = 2, 'delete' = 3)`
//            and `_version UInt64`, ORDER BY (key..., _version).
// Key columns are never Nullable (old servers refuse nullable sorting keys). With a cluster, the
// statements are ON CLUSTER, the data table is Replicated*MergeTree named <table><local_suffix>
// with the ZooKeeper path from `zookeeper_path` ({database} and {table} are replaced by rowbridge
// with the database and the local table's name; {shard} and {replica} are left to the servers'
// macros), and a Distributed table named <table> shards rows by cityHash64(key).
// Every identifier is backtick-quoted.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/table_map.h"
#include "clickhouse/server_features.h"
#include "mapping/conversion_plan.h"
#include "mapping/type_mapping.h"

namespace rowbridge::mapping {

struct DdlOptions {
  TableMode mode = TableMode::kReplica;
  MetaColumnNames meta;
  TypeMappingOptions types;
  std::string partition_by;  // a ClickHouse expression, used verbatim; empty = no PARTITION BY
  std::string cluster;       // empty = one server
  std::string zookeeper_path = "/clickhouse/tables/{shard}/{database}/{table}";
  std::string replica_name = "{replica}";
  std::string local_suffix = "_local";
};

// The ORDER BY columns of a table: `configured` if not empty (the user's explicit choice), else
// the primary key, else the first of `unique_keys` whose columns are all NOT NULL in `columns`.
// Throws Error(kConfig) naming db.table when there is none: a replica table without a key would
// collapse unrelated rows.
std::vector<std::string> ChooseTableKey(std::string_view qualified_table,
                                        std::span<const binlog::ColumnDef> columns,
                                        const std::vector<std::string>& primary_key,
                                        const std::vector<std::vector<std::string>>& unique_keys,
                                        const std::vector<std::string>& configured);

// "CREATE DATABASE IF NOT EXISTS `db` [ON CLUSTER `c`]".
std::string CreateDatabaseStatement(std::string_view database, const DdlOptions& options);

// The CREATE TABLE statement(s) for `columns` (those to replicate, in order, with names) keyed by
// `key` (names among them): one statement, or two with a cluster (the replicated local table,
// then the Distributed one). Throws Error(kConfig) if a key column is not among `columns`, a
// column has the name of a meta column, or `columns` is empty; Error(kUnsupported) for a type
// with no mapping.
std::vector<std::string> CreateTableStatements(std::string_view database, std::string_view table,
                                               std::span<const binlog::ColumnDef> columns,
                                               const std::vector<std::string>& key,
                                               const DdlOptions& options,
                                               const clickhouse::ServerFeatures& features);

// "DROP TABLE IF EXISTS" of a table CreateTableStatements made: one statement, or with a cluster
// the Distributed table's and then the data tables', ON CLUSTER.
std::vector<std::string> DropTableStatements(std::string_view database, std::string_view table,
                                             const DdlOptions& options);
// "TRUNCATE TABLE" of its rows (with a cluster: of the data tables, ON CLUSTER; a Distributed
// table holds none).
std::string TruncateTableStatement(std::string_view database, std::string_view table,
                                   const DdlOptions& options);

// The target columns the CREATE TABLE makes (for building a ConversionPlan without asking the
// server), meta columns included.
std::vector<TargetColumn> CreatedColumns(std::span<const binlog::ColumnDef> columns,
                                         const std::vector<std::string>& key,
                                         const DdlOptions& options,
                                         const clickhouse::ServerFeatures& features);

// "SELECT `a`, `b` FROM `db`.`t` FINAL WHERE `_is_deleted` = 0": the current rows of a replica
// table on every server version (with or without the is_deleted engine parameter). An empty
// `columns` selects *.
std::string FinalSelectQuery(std::string_view database, std::string_view table,
                             const std::vector<std::string>& columns,
                             std::string_view is_deleted_column = "_is_deleted");

}  // namespace rowbridge::mapping
