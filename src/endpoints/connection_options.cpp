#include "endpoints/connection_options.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "mysql/source_check.h"

namespace rowbridge::endpoints {

TlsOptions ToTlsOptions(const config::TlsConfig& tls) {
  TlsOptions out;
  switch (tls.mode) {
    case config::TlsMode::kDisabled:
      out.mode = TlsMode::kDisabled;
      break;
    case config::TlsMode::kPreferred:
      out.mode = TlsMode::kPreferred;
      break;
    case config::TlsMode::kRequired:
      out.mode = TlsMode::kRequired;
      break;
    case config::TlsMode::kVerifyCa:
      out.mode = TlsMode::kVerifyCa;
      break;
    case config::TlsMode::kVerifyIdentity:
      out.mode = TlsMode::kVerifyIdentity;
      break;
  }
  out.ca_file = tls.ca;
  out.cert_file = tls.cert;
  out.key_file = tls.key;
  return out;
}

std::string SourceReportHost(const config::Config& config) {
  constexpr size_t kMaxReportHost = 60;
  if (config.ha.lock != config::HaLock::kNone) return std::string(mysql::kReportHostPrefix) + "/ha";
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::string pid = std::to_string(::getpid());
  std::string name = std::string(mysql::kReportHostPrefix) + "/" + host;
  // The pid tells processes apart, so it is the part that must survive truncation.
  name.resize(std::min(name.size(), kMaxReportHost - 1 - pid.size()));
  return name + "/" + pid;
}

std::chrono::milliseconds StaleSessionGrace(const config::SourceConfig& source) {
  // The first heartbeat written to a closed socket may still succeed (the peer answers with a
  // reset); the next one fails. One more period covers a heartbeat already under way.
  return 3 * source.heartbeat_period + std::chrono::seconds(2);
}

mysql::ConnectOptions SourceConnectOptions(const config::SourceConfig& source) {
  mysql::ConnectOptions o;
  o.host = source.host;
  o.port = source.port;
  o.user = source.user;
  o.password = source.password;
  o.tcp.connect_timeout = source.connect_timeout;
  o.tcp.read_timeout = source.read_timeout;
  o.tcp.write_timeout = source.read_timeout;
  o.tls = ToTlsOptions(source.tls);
  o.program_name = "rowbridge";
  return o;
}

clickhouse::ClientOptions TargetClientOptions(const config::TargetConfig& target) {
  clickhouse::ClientOptions o;
  o.host = target.host;
  o.port = target.port;
  o.user = target.user;
  o.password = target.password;
  o.client_name = "rowbridge";
  o.tcp.connect_timeout = target.connect_timeout;
  o.tcp.read_timeout = target.query_timeout;
  o.tcp.write_timeout = target.query_timeout;
  o.tls = ToTlsOptions(target.tls);
  o.compression = TargetCompression(target);
  o.settings = ClusterQuerySettings(target);
  return o;
}

clickhouse::QuerySettings ClusterQuerySettings(const config::TargetConfig& target) {
  clickhouse::QuerySettings s;
  if (target.cluster.empty()) return s;
  const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(target.query_timeout);
  s.SetUInt("insert_distributed_sync", 1);
  s.SetText("load_balancing", "in_order");
  s.SetUInt("max_replica_delay_for_distributed_queries", 2);
  s.SetText("distributed_product_mode", "local");
  s.SetInt("distributed_ddl_task_timeout", std::max<int64_t>(1, timeout.count() / 2));
  return s;
}

clickhouse::CompressionMethod TargetCompression(const config::TargetConfig& target) {
  switch (target.compression) {
    case config::Compression::kAuto:
      return config::IsLoopbackHost(target.host) ? clickhouse::CompressionMethod::kNone
                                                 : clickhouse::CompressionMethod::kLz4;
    case config::Compression::kLz4:
      return clickhouse::CompressionMethod::kLz4;
    case config::Compression::kZstd:
      return clickhouse::CompressionMethod::kZstd;
    case config::Compression::kNone:
      return clickhouse::CompressionMethod::kNone;
  }
  return clickhouse::CompressionMethod::kLz4;
}

}  // namespace rowbridge::endpoints
