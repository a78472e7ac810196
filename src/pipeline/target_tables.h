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

namespace rowbridge::pipeline {

struct TargetGroup;

// A target table as the session knows it.
struct TargetTable {
  std::string database;
  std::string table;
  std::string label;  // db.table
  mapping::TableMode mode = mapping::TableMode::kReplica;
  std::string version_column;
  std::vector<mapping::TargetColumn> columns;

  // Versions at or above the resume checkpoint's next_version that the table already holds, in
  // ascending order with repeats (a replica update that changed the key writes two rows of one
  // version: the old key's tombstone first, then the new row). Consumed front to back as the
  // reader replays.
  std::vector<uint64_t> present_versions;
  size_t present_next = 0;

  // The batch groups writing into this table, keyed by their INSERT column list.
  std::map<std::string, TargetGroup*> groups;

  // How many rows of the change of `version` the table already holds. A change's rows can be split
  // over two batches (the batch filled up between a key move's tombstone and its new row); batches
  // of one table are inserted in order, so the rows present are always the change's first ones.
  // Versions must be asked in ascending order.
  size_t PresentRows(uint64_t version) {
    if (present_next >= present_versions.size()) return 0;
    while (present_next < present_versions.size() && present_versions[present_next] < version) {
      ++present_next;
    }
    size_t count = 0;
    while (present_next + count < present_versions.size() &&
           present_versions[present_next + count] == version) {
      ++count;
    }
    if (present_next >= present_versions.size()) {
      present_versions.clear();
      present_versions.shrink_to_fit();
      present_next = 0;
    }
    return count;
  }
};

class TargetCatalog {
 public:
  explicit TargetCatalog(clickhouse::ClientOptions options);

  // The admin connection (connected on first use, reconnected after a failure).
  clickhouse::Client& client();
  const clickhouse::ServerFeatures& features();

  // The writable and non-writable columns of db.table (system.columns, in table order), or
  // nullopt if the table does not exist.
  std::optional<std::vector<mapping::TargetColumn>> ReadColumns(const std::string& database,
                                                                const std::string& table);
  // Runs DDL (CREATE DATABASE / TABLE).
  void Execute(const std::string& sql);
  // The expression of a column's plain DEFAULT; empty when it has none (or another kind).
  std::string DefaultExpression(const std::string& database, const std::string& table,
                                const std::string& column);

  // max(version_column), 0 for an empty table.
  uint64_t MaxVersion(const std::string& database, const std::string& table,
                      const std::string& version_column);
  // Every version >= `from` in the table, ascending, with repeats.
  std::vector<uint64_t> VersionsFrom(const std::string& database, const std::string& table,
                                     const std::string& version_column, uint64_t from);

  // Waits until no INSERT whose query_id starts with `prefix` runs on the server any more (a
  // writer of an earlier session whose connection broke may still be inserting); after
  // `patience` it kills them (KILL QUERY ... SYNC). Only then are VersionsFrom answers final.
  void WaitForInserts(const std::string& prefix, std::chrono::milliseconds patience);

 private:
  clickhouse::ClientOptions options_;
  std::unique_ptr<clickhouse::Client> client_;
  std::optional<clickhouse::ServerFeatures> features_;
};

}  // namespace rowbridge::pipeline
