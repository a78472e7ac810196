#include "tables/cluster_hosts.h"

#include <fmt/format.h>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "common/tcp_connection.h"

namespace rowbridge::tables {

std::vector<ClusterHost> ListClusterHosts(clickhouse::Client& client, const std::string& cluster) {
  std::vector<ClusterHost> hosts;
  client.Select(
      fmt::format("SELECT host_address, toUInt64(port), toUInt64(shard_num) FROM system.clusters "
                  "WHERE cluster = {} ORDER BY shard_num, replica_num",
                  clickhouse::QuoteString(cluster)),
      [&](clickhouse::Block& block) {
        for (size_t r = 0; r < block.RowCount(); ++r) {
          hosts.push_back(
              {std::string(clickhouse::As<clickhouse::ColumnString>(block.At(0)).At(r)),
               static_cast<uint16_t>(clickhouse::As<clickhouse::ColumnUInt64>(block.At(1)).At(r)),
               static_cast<uint32_t>(clickhouse::As<clickhouse::ColumnUInt64>(block.At(2)).At(r))});
        }
        return true;
      });
  if (hosts.empty()) {
    Fail(ErrorCode::kConfig,
         "target.cluster is {}, but ClickHouse at {} has no such cluster in system.clusters "
         "(remote_servers in its configuration)",
         cluster, client.peer());
  }
  return hosts;
}

clickhouse::ClientOptions ClusterHostOptions(const clickhouse::ClientOptions& target,
                                             const ClusterHost& host) {
  clickhouse::ClientOptions options = target;
  options.host = host.host;
  if (options.tls.mode == TlsMode::kDisabled) options.port = host.port;
  return options;
}

std::unique_ptr<clickhouse::Client> ConnectUnlessDown(const clickhouse::ClientOptions& target,
                                                      const ClusterHost& host,
                                                      const std::string& why) {
  const clickhouse::ClientOptions options = ClusterHostOptions(target, host);
  try {
    return std::make_unique<clickhouse::Client>(options);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNetwork &&
        TcpConnection::NothingListens(options.host, options.port, options.tcp)) {
      return nullptr;
    }
    throw e.WithMessage(fmt::format(
        "cannot ask ClickHouse node {}:{} (shard {} of the cluster) {}: {}; a node that refuses "
        "connections is taken as down, one that cannot be reached otherwise may still be "
        "running queries, so rowbridge waits for it (bring it back, or remove it from the "
        "cluster's remote_servers)",
        options.host, options.port, host.shard, why, e.what()));
  }
}

}  // namespace rowbridge::tables
