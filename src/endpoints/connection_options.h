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
// host, port, user, password, TLS, timeouts (query_timeout bounds each read and write), and the
// compression of INSERT blocks.
clickhouse::ClientOptions TargetClientOptions(const config::TargetConfig& target);
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
