// The hosts of a ClickHouse cluster (target.cluster) as the connected server lists them in
// system.clusters, and connections to each of them with the target's credentials.
//
// Used where one node's answer is not enough: ALTERs of every host's Distributed table
// (tables/cluster_alter.h), and at a resume, waiting for an earlier writer's INSERTs and reading
// the versions already written (tables/target_tables.h), which on a cluster may run on, or have
// reached, another node than target.host.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clickhouse/client.h"

namespace rowbridge::tables {

struct ClusterHost {
  std::string host;  // host_address in system.clusters
  uint16_t port = 0;
  uint32_t shard = 0;  // shard_num: the replicas of a shard hold the same rows
};

// Every replica of every shard of `cluster`, ordered by shard then replica. Throws
// Error(kConfig) when `client`'s server has no such cluster.
std::vector<ClusterHost> ListClusterHosts(clickhouse::Client& client, const std::string& cluster);

// Options for a connection to `host`: `target`'s user, password and TLS, and the host's port from
// system.clusters, which lists the plain native port; with TLS every host is expected on
// target.port.
clickhouse::ClientOptions ClusterHostOptions(const clickhouse::ClientOptions& target,
                                             const ClusterHost& host);

// A connection to `host`, or nullptr when the host is down: every address refuses the connection,
// so no clickhouse-server runs there, and a server that does not run runs no query and commits no
// part. Any other failure (timeout, unreachable network, TLS, login) throws the Error, its message
// naming the host and `why` (what rowbridge needed it for): such a host may still be running
// queries.
std::unique_ptr<clickhouse::Client> ConnectUnlessDown(const clickhouse::ClientOptions& target,
                                                      const ClusterHost& host,
                                                      const std::string& why);

}  // namespace rowbridge::tables
