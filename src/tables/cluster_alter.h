// Column ALTERs of a target table on a ClickHouse cluster (target.cluster), where the table is a
// Replicated local table `<table>_local` on every host (the data) plus a Distributed table
// `<table>` on every host that rowbridge inserts into.
//
// The data's ALTER runs ON CLUSTER: ClickHouse runs it once per shard (on a replica it picks; the
// others follow through replication) and answers only when every host of the cluster has taken
// its part, or after distributed_ddl_task_timeout with an error (endpoints/connection_options.h).
// A Distributed table cannot be altered ON CLUSTER on a cluster with internal_replication (18.16
// refuses: "Table ... isn't replicated, but shard #2 is replicated"), so it is altered on each
// host of system.clusters over a connection of its own (tables/cluster_hosts.h).
//
// The order keeps every insert through the Distributed table acceptable: a column is added to the
// data before the Distributed table names it (kDataFirst: ADD, MODIFY, DEFAULT changes), and
// leaves the Distributed table before the data (kDistributedFirst: DROP, RENAME). ClickHouse 18.16
// has no IF [NOT] EXISTS in ALTER, so a statement that may already have been applied (a retry
// after a partial failure) says which column state it leaves (ColumnState): a host whose table
// shows that state is skipped, and an ON CLUSTER statement that fails on a host whose table
// already shows it counts as done.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "tables/cluster_hosts.h"
#include "tables/target_tables.h"

namespace rowbridge::tables {

// The state of one column an ALTER leaves: present (with `type`, when not empty) or absent.
struct ColumnState {
  std::string column;
  bool present = true;
  std::string type;
};

class ClusterAlter {
 public:
  enum class Order { kDataFirst, kDistributedFirst, kDataOnly };

  // `catalog`: the admin connection (ON CLUSTER statements go through it); `cluster`: the name
  // in remote_servers; `local_suffix`: the data table's suffix (mapping::DdlOptions).
  ClusterAlter(TargetCatalog& catalog, std::string cluster, std::string local_suffix);

  // Runs `action` ("ADD COLUMN `c` String", "UPDATE ...") on `target`'s data and Distributed
  // tables in `order` (kDataOnly: mutations, which a Distributed table has no data for).
  void Run(const TargetTable& target, const std::string& action, Order order,
           const std::optional<ColumnState>& leaves);

  // The sum over every host of the UInt64 `sql` returns there (a count over system tables).
  uint64_t SumOverHosts(const std::string& sql);

  std::string DataTable(const TargetTable& target) const { return target.table + local_suffix_; }

  // Every replica of every shard of the cluster, as the connected server lists it. Throws
  // Error(kConfig) when the cluster is not in its system.clusters.
  const std::vector<ClusterHost>& Hosts();

 private:
  // True when `table` on every host shows `state`.
  bool HoldsEverywhere(const std::string& database, const std::string& table,
                       const ColumnState& state);
  static bool Holds(clickhouse::Client& client, const std::string& database,
                    const std::string& table, const ColumnState& state);

  TargetCatalog& catalog_;
  std::string cluster_;
  std::string local_suffix_;
  std::vector<ClusterHost> hosts_;
};

}  // namespace rowbridge::tables
