// The ClickHouse side of the pipeline's setup: what target tables exist and with which columns
// (system.columns), creating missing ones (mapping/ddl.h), and the versions already present,
// which make a replay after a crash or restart exactly-once (see Pipeline).
//
// One TargetCatalog per pipeline session; it owns one "admin" connection, separate from the
// writers'. Not thread-safe (the session's setup and its reader use it in turn).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "clickhouse/server_features.h"
#include "mapping/conversion_plan.h"

namespace rowbridge::tables {

// A target table as ClickHouse has it: its name, mode and columns.
struct TargetTable {
  std::string database;
  std::string table;
  std::string label;  // db.table
  mapping::TableMode mode = mapping::TableMode::kReplica;
  std::string version_column;
  std::vector<mapping::TargetColumn> columns;
};

class TargetCatalog {
 public:
  explicit TargetCatalog(clickhouse::ClientOptions options);

  // The admin connection (connected on first use, reconnected after a failure).
  clickhouse::Client& client();
  const clickhouse::ClientOptions& options() const { return options_; }
  const clickhouse::ServerFeatures& features();

  // The writable and non-writable columns of db.table (system.columns, in table order), or
  // nullopt if the table does not exist.
  std::optional<std::vector<mapping::TargetColumn>> ReadColumns(const std::string& database,
                                                                const std::string& table);
  // Runs DDL (CREATE DATABASE / TABLE).
  void Execute(const std::string& sql);
  // Why the connected user can neither create nor alter tables nor insert, from its profile's
  // `readonly` and `allow_ddl` settings (the means of ClickHouse before SQL access control,
  // 20.5); one reason each, empty when they allow everything. GRANTs are not read.
  std::vector<std::string> WriteRestrictions();
  // The expression of a column's plain DEFAULT; empty when it has none (or another kind).
  std::string DefaultExpression(const std::string& database, const std::string& table,
                                const std::string& column);

  // max(version_column) over the rows whose version is at least `from`; 0 when there is none.
  uint64_t MaxVersion(const std::string& database, const std::string& table,
                      const std::string& version_column, uint64_t from = 0);
  // count() of the table.
  uint64_t RowCount(const std::string& database, const std::string& table);
  // How many active parts of the table hold no data of `column` (written before it was added:
  // their values come from the column's DEFAULT at every read).
  uint64_t PartsWithoutColumn(const std::string& database, const std::string& table,
                              const std::string& column);
  // How many mutations of the table have not finished.
  uint64_t PendingMutations(const std::string& database, const std::string& table);
  // The queries of the two above (one UInt64), for running them on other hosts of a cluster.
  static std::string PartsWithoutColumnSql(const std::string& database, const std::string& table,
                                           const std::string& column);
  static std::string PendingMutationsSql(const std::string& database, const std::string& table);
  // Every version >= `from` in the table, ascending, with repeats.
  std::vector<uint64_t> VersionsFrom(const std::string& database, const std::string& table,
                                     const std::string& version_column, uint64_t from);

  // Waits until no INSERT whose query_id starts with `prefix` runs on the server any more (a
  // writer of an earlier session whose connection broke may still be inserting); after
  // `patience` it kills them (KILL QUERY ... SYNC). Only then are VersionsFrom answers final.
  // Queries whose id starts with `except` (when not empty) are not waited for (a copy running
  // alongside the stream under the same job).
  void WaitForInserts(const std::string& prefix, std::chrono::milliseconds patience,
                      const std::string& except = "");

 private:
  // The one UInt64 a query returns (0 when it returns no row).
  uint64_t SelectNumber(const std::string& sql);

  clickhouse::ClientOptions options_;
  std::unique_ptr<clickhouse::Client> client_;
  std::optional<clickhouse::ServerFeatures> features_;
};

}  // namespace rowbridge::tables
