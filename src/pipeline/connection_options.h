// Connection settings for the source and the target, from the config sections.
#pragma once

#include "clickhouse/client.h"
#include "config/config.h"
#include "mysql/binlog_stream.h"
#include "mysql/connection.h"

namespace rowbridge::pipeline {

TlsOptions ToTlsOptions(const config::TlsConfig& tls);
// host, port, user, password, TLS, connect and read timeouts.
mysql::ConnectOptions SourceConnectOptions(const config::SourceConfig& source);
// host, port, user, password, TLS, timeouts (query_timeout bounds each read and write), and the
// compression of INSERT blocks.
clickhouse::ClientOptions TargetClientOptions(const config::TargetConfig& target);

}  // namespace rowbridge::pipeline
