// The ClickHouse side of the pipeline's setup: what target tables exist and with which columns
// (system.columns), creating missing ones (mapping/ddl.h), and the versions already present,
// which make a replay after a crash or restart exactly-once (see Pipeline).
//
// One TargetCatalog per pipeline session; it owns one "admin" connection, separate from the
// writers'. Not thread-safe (the session's setup and its reader use it in turn).
//
// With a cluster (target.cluster) the answers that make a replay exactly-once do not come from
// target.host alone: WaitForInserts asks every node of the cluster, and VersionsFrom reads every
// replica's data table (see there). A node that refuses connections is taken as down (it runs no
// query and commits no part); one that cannot be asked otherwise (timeout, unreachable) fails the
// call with an error naming it, as it may still be writing (tables/cluster_hosts.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "clickhouse/server_features.h"
#include "mapping/conversion_plan.h"
#include "tables/cluster_hosts.h"

namespace rowbridge::tables {

// A target table as ClickHouse has it: its name, mode and columns.
struct TargetTable {
  std::string database;
  std::string table;
  std::string label;  // db.table
  mapping::TableMode mode = mapping::TableMode::kReplica;
  std::string version_column;
  // What tells a removal row from the others: the is_deleted column (replica) or the event_type
  // column (changelog; 'delete').
  std::string removal_column;
  std::vector<mapping::TargetColumn> columns;
};

// A row of a target table written after a checkpoint, as a replay needs to know it: its version
// and whether it removes its key (a replica tombstone, a changelog 'delete').
struct PresentRow {
  uint64_t version = 0;
  bool removal = false;
  auto operator<=>(const PresentRow&) const = default;
};

class TargetCatalog {
 public:
  // `cluster`: target.cluster, empty for one server.
  explicit TargetCatalog(clickhouse::ClientOptions options, std::string cluster = {});

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
  // How much mutation work of the table is left: the active parts an unfinished mutation has still
  // to change (its partition, blocks before its number, a data version below it) plus the entries
  // of the table's replication queue (a queued fetch, merge or mutation can bring such a part).
  // 0 means every mutation queued so far has reached every part. Not system.mutations' is_done
  // alone: 18.16 can leave a replica's mutation at parts_to_do = 1 for good after a merge's commit
  // raced an ALTER of the columns ("Part ... (state Outdated) already exists"), with its queue
  // empty and every part mutated.
  uint64_t PendingMutations(const std::string& database, const std::string& table);
  // The queries of the two above (one UInt64), for running them on other hosts of a cluster.
  static std::string PartsWithoutColumnSql(const std::string& database, const std::string& table,
                                           const std::string& column);
  static std::string PendingMutationsSql(const std::string& database, const std::string& table);
  // Every row of `target` whose version is in [from, to], ascending, with repeats (a removal is
  // told by target.removal_column; without that column no row is one). On a cluster, read from
  // the data table of every replica rather than through the Distributed table, which reads one
  // replica per shard, maybe one that has not fetched the part another replica took (replication
  // lags, fetches stopped): per shard a row counts as often as the replica holding it most often
  // has it, and the shards' counts add up. A replica that is down is left out while another
  // replica of its shard answers and has no part left to fetch (which could be one only the down
  // replica has); otherwise the call fails (kNetwork, transient) naming the replicas.
  std::vector<PresentRow> VersionsFrom(const TargetTable& target, uint64_t from,
                                       uint64_t to = UINT64_MAX);

  // Waits until no INSERT whose query_id starts with `prefix` runs on the server any more (a
  // writer of an earlier session whose connection broke may still be inserting); after
  // `patience` it kills them (KILL QUERY ... SYNC). Only then are VersionsFrom answers final.
  // Queries whose id starts with `except` (when not empty) are not waited for (a copy running
  // alongside the stream under the same job).
  //
  // On a cluster this holds on every node (an earlier rowbridge may have written through another
  // node than target.host). Then, as a Distributed INSERT forwards its rows to the other shards'
  // nodes as INSERTs of their own (ClickHouse 18.16 gives them new query ids and no trace of the
  // initial one), the INSERTs other ClickHouse servers forwarded that run on any node at that
  // moment are waited for too, for `patience`, then the call fails (kTimeout): they may be another
  // job's, so they are never killed, and any started later cannot be ours.
  void WaitForInserts(const std::string& prefix, std::chrono::milliseconds patience,
                      const std::string& except = "");

 private:
  // The one UInt64 a query returns (0 when it returns no row).
  uint64_t SelectNumber(const std::string& sql);
  // The cluster's hosts (listed once), and a new connection to host i (kept until the next call
  // for it), or nullptr when it is down (tables/cluster_hosts.h); `why` completes the error when
  // it cannot be asked.
  const std::vector<ClusterHost>& Hosts();
  clickhouse::Client* HostClient(size_t i, const std::string& why);
  std::vector<PresentRow> ClusterVersionsFrom(const TargetTable& target, uint64_t from,
                                              uint64_t to);
  // Waits on `client`'s server until no query matching `condition` runs, killing them after
  // `patience` (the one-server wait, on each node of a cluster).
  static void WaitForQueries(clickhouse::Client& client, const std::string& condition,
                             std::chrono::milliseconds patience);
  // Waits until the INSERTs other ClickHouse servers forwarded to the cluster's nodes, running
  // now, have ended (see WaitForInserts).
  void WaitForForwardedInserts(std::chrono::milliseconds patience);

  clickhouse::ClientOptions options_;
  std::string cluster_;
  std::string local_suffix_;
  std::vector<ClusterHost> hosts_;
  std::vector<std::unique_ptr<clickhouse::Client>> host_clients_;
  std::unique_ptr<clickhouse::Client> client_;
  std::optional<clickhouse::ServerFeatures> features_;
};

}  // namespace rowbridge::tables
