// Connection settings for the source and the target, from the config sections.
#pragma once

#include <chrono>
#include <string>

#include "clickhouse/client.h"
#include "config/config.h"
#include "mysql/binlog_stream.h"
#include "mysql/connection.h"

namespace rowbridge::endpoints {

TlsOptions ToTlsOptions(const config::TlsConfig& tls);
// host, port, user, password, TLS, connect and read timeouts.
mysql::ConnectOptions SourceConnectOptions(const config::SourceConfig& source);
// host, port, user, password, TLS, timeouts (query_timeout bounds each read and write), the
// compression of INSERT blocks, and with a cluster the settings of ClusterQuerySettings.
clickhouse::ClientOptions TargetClientOptions(const config::TargetConfig& target);
// What every query to a cluster target (target.cluster) carries; empty without a cluster.
//   insert_distributed_sync=1   an INSERT into a Distributed table returns once every shard's
//                               replica has the rows, not when they are queued on the host we
//                               talk to: a checkpoint is saved only for rows on their shards.
//   load_balancing=in_order     reads and writes go to the first live replica of a shard, so a
//                               read after a write sees it even before replication copies it.
//   max_replica_delay_for_distributed_queries=2
//                               a replica catching up (after a restart) is not read while a
//                               current one of its shard answers (the versions a replay skips).
//   distributed_product_mode=local
//                               `rowbridge check`'s IN over a Distributed table reads each
//                               shard's local table: the sharding key is the table key, so a
//                               key's rows are all on one shard.
//   distributed_ddl_task_timeout  half of query_timeout: ON CLUSTER DDL waits that long for
//                               every host, then fails (and is retried) instead of outliving the
//                               connection's read timeout.
clickhouse::QuerySettings ClusterQuerySettings(const config::TargetConfig& target);
// The compression `target.compression` means for its host (auto: none for a loopback address
// literal or "localhost", else LZ4). A name that merely resolves to a loopback address gets LZ4.
clickhouse::CompressionMethod TargetCompression(const config::TargetConfig& target);
// The report host the stream registers with and source checks compare with the source's replicas:
// "rowbridge/<hostname>/<pid>", this process's own, so that a second rowbridge started with our
// server_id is seen as another host and refused instead of disconnecting us. A job run with `ha`
// uses "rowbridge/ha" in every process: only the lock's holder streams, and a new leader must
// replace its fenced predecessor's session, not wait for it. At most 60 bytes (MySQL's limit).
std::string SourceReportHost(const config::Config& config);
// How long a start waits for another rowbridge's session with our server_id to go away before
// calling it alive: a dead process's session ends when the source's next heartbeat write fails.
std::chrono::milliseconds StaleSessionGrace(const config::SourceConfig& source);

}  // namespace rowbridge::endpoints
