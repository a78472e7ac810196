#include "mapping/ddl.h"

#include <algorithm>

#include "clickhouse/sql_quote.h"
#include "common/error.h"

namespace rowbridge::mapping {

namespace {

using clickhouse::TypeCode;

bool Has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string OnCluster(const DdlOptions& options) {
  return options.cluster.empty() ? ""
                                 : " ON CLUSTER " + clickhouse::QuoteIdentifier(options.cluster);
}

std::string KeyList(const std::vector<std::string>& key, const std::string* extra) {
  std::string list = "(";
  for (size_t i = 0; i < key.size(); ++i) {
    if (i > 0) list += ", ";
    list += clickhouse::QuoteIdentifier(key[i]);
  }
  if (extra != nullptr) {
    if (!key.empty()) list += ", ";
    list += clickhouse::QuoteIdentifier(*extra);
  }
  return list + ")";
}

clickhouse::TypeDesc EventTypeType() {
  return clickhouse::MakeEnum(TypeCode::kEnum8, {{"insert", 1}, {"update", 2}, {"delete", 3}});
}

}  // namespace

std::vector<std::string> ChooseTableKey(std::string_view qualified_table,
                                        std::span<const binlog::ColumnDef> columns,
                                        const std::vector<std::string>& primary_key,
                                        const std::vector<std::vector<std::string>>& unique_keys,
                                        const std::vector<std::string>& configured) {
  if (!configured.empty()) return configured;
  if (!primary_key.empty()) return primary_key;
  for (const auto& candidate : unique_keys) {
    bool usable = !candidate.empty();
    for (const auto& name : candidate) {
      auto it = std::find_if(columns.begin(), columns.end(),
                             [&](const binlog::ColumnDef& c) { return c.name == name; });
      if (it == columns.end() || it->nullable) usable = false;
    }
    if (usable) return candidate;
  }
  Fail(ErrorCode::kConfig,
       "table {} has no primary key and no unique key over NOT NULL columns; configure a key "
       "for it (the columns that identify a row) or exclude the table",
       qualified_table);
}

std::string CreateDatabaseStatement(std::string_view database, const DdlOptions& options) {
  return "CREATE DATABASE IF NOT EXISTS " + clickhouse::QuoteIdentifier(database) +
         OnCluster(options);
}

std::vector<TargetColumn> CreatedColumns(std::span<const binlog::ColumnDef> columns,
                                         const std::vector<std::string>& key,
                                         const DdlOptions& options,
                                         const clickhouse::ServerFeatures& features) {
  std::vector<TargetColumn> created;
  const bool replica = options.mode == TableMode::kReplica;
  const std::vector<std::string> meta_names =
      replica ? std::vector<std::string>{options.meta.version, options.meta.is_deleted}
              : std::vector<std::string>{options.meta.event_type, options.meta.version};
  for (const auto& column : columns) {
    if (Has(meta_names, column.name))
      Fail(ErrorCode::kConfig,
           "column {} has the name of a meta column; rename the meta column in the configuration",
           column.name);
    created.push_back(
        {column.name, DefaultClickHouseType(column, options.types, features, Has(key, column.name)),
         ""});
  }
  if (replica) {
    created.push_back({options.meta.version, clickhouse::MakeType(TypeCode::kUInt64), ""});
    created.push_back({options.meta.is_deleted, clickhouse::MakeType(TypeCode::kUInt8), ""});
  } else {
    created.push_back({options.meta.event_type, EventTypeType(), ""});
    created.push_back({options.meta.version, clickhouse::MakeType(TypeCode::kUInt64), ""});
  }
  return created;
}

std::vector<std::string> CreateTableStatements(std::string_view database, std::string_view table,
                                               std::span<const binlog::ColumnDef> columns,
                                               const std::vector<std::string>& key,
                                               const DdlOptions& options,
                                               const clickhouse::ServerFeatures& features) {
  const std::string qualified = std::string(database) + "." + std::string(table);
  if (columns.empty()) Fail(ErrorCode::kConfig, "table {} has no columns to replicate", qualified);
  for (const auto& k : key) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const binlog::ColumnDef& c) { return c.name == k; });
    if (it == columns.end())
      Fail(ErrorCode::kConfig, "table {}: key column {} is not among the replicated columns",
           qualified, k);
  }
  const bool replica = options.mode == TableMode::kReplica;
  if (replica && key.empty())
    Fail(ErrorCode::kConfig, "table {}: a replica table needs a key", qualified);

  const std::vector<TargetColumn> created = CreatedColumns(columns, key, options, features);
  const bool clustered = !options.cluster.empty();
  const std::string data_table =
      clustered ? std::string(table) + options.local_suffix : std::string(table);

  std::string sql = "CREATE TABLE IF NOT EXISTS " +
                    clickhouse::QuoteQualified(database, data_table) + OnCluster(options) + "\n(\n";
  for (size_t i = 0; i < created.size(); ++i) {
    sql += "    " + clickhouse::QuoteIdentifier(created[i].name) + " " + created[i].type.name;
    sql += i + 1 < created.size() ? ",\n" : "\n";
  }
  sql += ")\nENGINE = ";

  std::vector<std::string> engine_args;
  if (clustered) {
    std::string path = ReplaceAll(options.zookeeper_path, "{database}", database);
    path = ReplaceAll(std::move(path), "{table}", data_table);
    engine_args.push_back(clickhouse::QuoteString(path));
    engine_args.push_back(clickhouse::QuoteString(options.replica_name));
  }
  if (replica) {
    engine_args.push_back(clickhouse::QuoteIdentifier(options.meta.version));
    if (features.HasReplacingIsDeleted())
      engine_args.push_back(clickhouse::QuoteIdentifier(options.meta.is_deleted));
  }
  sql += clustered ? "Replicated" : "";
  sql += replica ? "ReplacingMergeTree" : "MergeTree";
  sql += "(";
  for (size_t i = 0; i < engine_args.size(); ++i) sql += (i > 0 ? ", " : "") + engine_args[i];
  sql += ")";
  if (!options.partition_by.empty()) sql += "\nPARTITION BY " + options.partition_by;
  sql += "\nORDER BY " + KeyList(key, replica ? nullptr : &options.meta.version);

  std::vector<std::string> statements{std::move(sql)};
  if (clustered) {
    std::string sharding = "cityHash64" + KeyList(key, nullptr);
    if (key.empty()) sharding = "rand()";
    statements.push_back("CREATE TABLE IF NOT EXISTS " +
                         clickhouse::QuoteQualified(database, table) + OnCluster(options) + " AS " +
                         clickhouse::QuoteQualified(database, data_table) +
                         "\nENGINE = Distributed(" + clickhouse::QuoteString(options.cluster) +
                         ", " + clickhouse::QuoteString(database) + ", " +
                         clickhouse::QuoteString(data_table) + ", " + sharding + ")");
  }
  return statements;
}

std::vector<std::string> DropTableStatements(std::string_view database, std::string_view table,
                                             const DdlOptions& options) {
  std::vector<std::string> statements{
      "DROP TABLE IF EXISTS " + clickhouse::QuoteQualified(database, table) + OnCluster(options)};
  if (!options.cluster.empty()) {
    statements.push_back(
        "DROP TABLE IF EXISTS " +
        clickhouse::QuoteQualified(database, std::string(table) + options.local_suffix) +
        OnCluster(options));
  }
  return statements;
}

std::string TruncateTableStatement(std::string_view database, std::string_view table,
                                   const DdlOptions& options) {
  const std::string data =
      options.cluster.empty() ? std::string(table) : std::string(table) + options.local_suffix;
  return "TRUNCATE TABLE " + clickhouse::QuoteQualified(database, data) + OnCluster(options);
}

std::string FinalSelectQuery(std::string_view database, std::string_view table,
                             const std::vector<std::string>& columns,
                             std::string_view is_deleted_column) {
  std::string list;
  for (size_t i = 0; i < columns.size(); ++i)
    list += (i > 0 ? ", " : "") + clickhouse::QuoteIdentifier(columns[i]);
  if (list.empty()) list = "*";
  return "SELECT " + list + " FROM " + clickhouse::QuoteQualified(database, table) +
         " FINAL WHERE " + clickhouse::QuoteIdentifier(is_deleted_column) + " = 0";
}

}  // namespace rowbridge::mapping
