// Connection settings for the source and the target, from the config sections.
#pragma once

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
// 127.0.0.0/8, ::1 (bracketed or not) and "localhost" (any case).
bool IsLoopbackHost(std::string_view host);

}  // namespace rowbridge::endpoints
