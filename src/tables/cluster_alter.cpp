#include "tables/cluster_alter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "clickhouse/select_number.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"

namespace rowbridge::tables {

ClusterAlter::ClusterAlter(TargetCatalog& catalog, std::string cluster, std::string local_suffix)
    : catalog_(catalog), cluster_(std::move(cluster)), local_suffix_(std::move(local_suffix)) {}

const std::vector<ClusterHost>& ClusterAlter::Hosts() {
  if (hosts_.empty()) hosts_ = ListClusterHosts(catalog_.client(), cluster_);
  return hosts_;
}

bool ClusterAlter::Holds(clickhouse::Client& client, const std::string& database,
                         const std::string& table, const ColumnState& state) {
  std::string sql = fmt::format(
      "SELECT toUInt64(count()) FROM system.columns WHERE database = {} AND table = {} AND name "
      "= {}",
      clickhouse::QuoteString(database), clickhouse::QuoteString(table),
      clickhouse::QuoteString(state.column));
  if (state.present && !state.type.empty())
    sql += " AND type = " + clickhouse::QuoteString(state.type);
  return (clickhouse::SelectUInt64(client, sql) > 0) == state.present;
}

bool ClusterAlter::HoldsEverywhere(const std::string& database, const std::string& table,
                                   const ColumnState& state) {
  for (const ClusterHost& host : Hosts()) {
    clickhouse::Client client(ClusterHostOptions(catalog_.options(), host));
    if (!Holds(client, database, table, state)) return false;
  }
  return true;
}

uint64_t ClusterAlter::SumOverHosts(const std::string& sql) {
  uint64_t sum = 0;
  for (const ClusterHost& host : Hosts()) {
    clickhouse::Client client(ClusterHostOptions(catalog_.options(), host));
    sum += clickhouse::SelectUInt64(client, sql);
  }
  return sum;
}

void ClusterAlter::Run(const TargetTable& target, const std::string& action, Order order,
                       const std::optional<ColumnState>& leaves) {
  const std::string data = DataTable(target);
  auto alter_data = [&] {
    if (leaves && HoldsEverywhere(target.database, data, *leaves)) return;
    const std::string sql = fmt::format("ALTER TABLE {} ON CLUSTER {} {}",
                                        clickhouse::QuoteQualified(target.database, data),
                                        clickhouse::QuoteIdentifier(cluster_), action);
    spdlog::info("{}: {}", target.label, sql);
    try {
      catalog_.Execute(sql);
    } catch (const Error& e) {
      // A host that had applied it already (an earlier attempt) refuses it again.
      if (e.IsTransient() || !leaves || !HoldsEverywhere(target.database, data, *leaves)) throw;
      spdlog::info("{}: {} was applied already on every host ({})", target.label, action, e.what());
    }
  };
  auto alter_distributed = [&] {
    const std::string sql = fmt::format(
        "ALTER TABLE {} {}", clickhouse::QuoteQualified(target.database, target.table), action);
    for (const ClusterHost& host : Hosts()) {
      clickhouse::Client client(ClusterHostOptions(catalog_.options(), host));
      if (leaves && Holds(client, target.database, target.table, *leaves)) continue;
      spdlog::info("{}: on {}: {}", target.label, client.peer(), sql);
      client.Execute(sql);
    }
  };
  if (order == Order::kDistributedFirst) alter_distributed();
  alter_data();
  if (order == Order::kDataFirst) alter_distributed();
}

}  // namespace rowbridge::tables
