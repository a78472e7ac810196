// The config's source and target sections, with their TLS (loader_impl.h): connection settings,
// defaults, and the checks each section makes on its own.
#include <fmt/ranges.h>

#include <algorithm>

#include "common/error.h"
#include "config/loader_impl.h"
#include "config/problems.h"
#include "config/target_template.h"
#include "config/units.h"

namespace rowbridge::config {

void ConfigLoader::ReadTls(MapReader m, TlsConfig& tls, bool is_source) {
  m.Enum("mode", tls.mode,
         {{"disabled", TlsMode::kDisabled},
          {"preferred", TlsMode::kPreferred},
          {"required", TlsMode::kRequired},
          {"verify-ca", TlsMode::kVerifyCa},
          {"verify-identity", TlsMode::kVerifyIdentity}});
  NonEmpty(m, "ca", tls.ca);
  NonEmpty(m, "cert", tls.cert);
  NonEmpty(m, "key", tls.key);
  if (!is_source && tls.mode == TlsMode::kPreferred) {
    Problem(m, "mode",
            "preferred is not possible for ClickHouse: a native-protocol port is either TLS or "
            "plain (use required with the TLS port, usually 9440, or disabled)");
  }
  const bool verifying = tls.mode == TlsMode::kVerifyCa || tls.mode == TlsMode::kVerifyIdentity;
  for (std::string_view key : {"ca", "cert", "key"}) {
    if (!m.Has(key)) continue;
    if (tls.mode == TlsMode::kDisabled) {
      Problem(m, key, fmt::format("has no effect while {} is disabled", m.PathOf("mode")));
    } else if (key == "ca" && !verifying) {
      Problem(m, key,
              fmt::format("is only used to verify the server (mode verify-ca or "
                          "verify-identity), but {} is {}",
                          m.PathOf("mode"), TlsModeName(tls.mode)));
    }
  }
  if (m.Has("cert") != m.Has("key")) {
    std::string_view missing = m.Has("cert") ? "key" : "cert";
    Problem(m, m.Has("cert") ? "cert" : "key",
            fmt::format("a client certificate needs both cert and key; {} is missing",
                        m.PathOf(missing)));
  }
  tls.ca = ResolvePath(tls.ca);
  tls.cert = ResolvePath(tls.cert);
  tls.key = ResolvePath(tls.key);
  m.Finish();
}

void ConfigLoader::ReadSource(MapReader m, SourceConfig& s) {
  m.String("host", s.host, kRequired);
  m.UInt("port", s.port, 1, 65535);
  m.String("user", s.user, kRequired);
  m.Secret("password", s.password);
  m.UInt("server_id", s.server_id, 1, 4294967295u, kRequired);
  m.Enum("flavor", s.flavor,
         {{"auto", SourceFlavor::kAuto},
          {"mysql", SourceFlavor::kMysql},
          {"mariadb", SourceFlavor::kMariadb}});
  ReadTls(m.Map("tls"), s.tls, true);
  // MySQL caps the heartbeat period at 4294967 seconds.
  m.Duration("heartbeat_period", s.heartbeat_period, milliseconds(100), seconds(4294967));
  m.Duration("connect_timeout", s.connect_timeout, milliseconds(100), hours(1));
  m.Duration("read_timeout", s.read_timeout, seconds(1), hours(24));
  if (s.read_timeout <= s.heartbeat_period) {
    if (m.Has("read_timeout")) {
      Problem(m, "read_timeout",
              fmt::format("must be longer than {} ({}), or an idle source looks dead; got {}",
                          m.PathOf("heartbeat_period"), FormatDuration(s.heartbeat_period),
                          FormatDuration(s.read_timeout)));
    } else {
      Problem(m, "heartbeat_period",
              fmt::format("must be shorter than {} ({}), or an idle source looks dead; got {}",
                          m.PathOf("read_timeout"), FormatDuration(s.read_timeout),
                          FormatDuration(s.heartbeat_period)));
    }
  }
  heartbeat_mark_ = m.MarkOf("heartbeat_period");
  MapReader r = m.Map("reconnect");
  r.Duration("initial_backoff", s.reconnect.initial_backoff, milliseconds(10), hours(1));
  r.Duration("max_backoff", s.reconnect.max_backoff, milliseconds(10), hours(24));
  if (s.reconnect.initial_backoff > s.reconnect.max_backoff) {
    if (r.Has("max_backoff")) {
      Problem(r, "max_backoff",
              fmt::format("must not be shorter than {} ({}); got {}", r.PathOf("initial_backoff"),
                          FormatDuration(s.reconnect.initial_backoff),
                          FormatDuration(s.reconnect.max_backoff)));
    } else {
      Problem(r, "initial_backoff",
              fmt::format("must not be longer than {} ({}); got {}", r.PathOf("max_backoff"),
                          FormatDuration(s.reconnect.max_backoff),
                          FormatDuration(s.reconnect.initial_backoff)));
    }
  }
  r.Finish();
  MapReader b = m.Map("binlog_retention");
  b.Duration("check_interval", s.binlog_retention.check_interval, milliseconds(0), hours(24));
  b.Duration("warn_below", s.binlog_retention.warn_below, milliseconds(0), hours(24 * 365));
  b.Finish();
  m.Enum("on_statement_dml", s.on_statement_dml,
         {{"stop_table", StatementDml::kStopTable}, {"stop_run", StatementDml::kStopRun}});
  m.Enum("on_purged_position", s.on_purged_position,
         {{"stop", OnPurged::kStop}, {"recopy", OnPurged::kRecopy}});
  m.Finish();
}

void ConfigLoader::ReadTarget(MapReader m, TargetConfig& t) {
  m.String("host", t.host, kRequired);
  NonEmpty(m, "user", t.user);
  m.Secret("password", t.password);
  NonEmpty(m, "database", t.database);
  if (m.Has("database") && t.database.find_first_of(".`") != std::string::npos) {
    Problem(m, "database", "must be a plain database name (no dots or backticks)");
  }
  ReadTls(m.Map("tls"), t.tls, false);
  // The ClickHouse convention: 9000 plain, 9440 TLS.
  t.port = t.tls.mode == TlsMode::kDisabled ? 9000 : 9440;
  m.UInt("port", t.port, 1, 65535);
  m.Enum("compression", t.compression,
         {{"auto", Compression::kAuto},
          {"lz4", Compression::kLz4},
          {"zstd", Compression::kZstd},
          {"none", Compression::kNone}});
  NonEmpty(m, "cluster", t.cluster);
  m.UInt("writers", t.writers, 1, 64);
  m.Duration("connect_timeout", t.connect_timeout, milliseconds(100), hours(1));
  m.Duration("query_timeout", t.query_timeout, seconds(1), hours(24));
  m.Finish();
}

}  // namespace rowbridge::config
