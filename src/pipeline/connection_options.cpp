#include "pipeline/connection_options.h"

namespace rowbridge::pipeline {

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
  switch (target.compression) {
    case config::Compression::kLz4:
      o.compression = clickhouse::CompressionMethod::kLz4;
      break;
    case config::Compression::kZstd:
      o.compression = clickhouse::CompressionMethod::kZstd;
      break;
    case config::Compression::kNone:
      o.compression = clickhouse::CompressionMethod::kNone;
      break;
  }
  return o;
}

}  // namespace rowbridge::pipeline
