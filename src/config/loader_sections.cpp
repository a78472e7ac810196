// The config's remaining sections (loader_impl.h): snapshot, batch, memory (its budget checked
// against batch sizes), state, ha (lock or ZooKeeper), http and log.
#include <fmt/ranges.h>

#include <algorithm>

#include "common/error.h"
#include "config/loader_impl.h"
#include "config/problems.h"
#include "config/target_template.h"
#include "config/units.h"

namespace rowbridge::config {

void ConfigLoader::ReadSnapshot(MapReader m, SnapshotConfig& s) {
  m.Bool("enabled", s.enabled);
  m.UInt("chunk_rows", s.chunk_rows, 1, 100000000);
  m.UInt("readers", s.readers, 1, 64);
  m.UInt("writers", s.writers, 1, 64);
  m.Size("memory_limit", s.memory_limit, 1 << 20, 64ULL << 30);
  m.Bool("keyless_single_chunk", s.keyless_single_chunk);
  m.Finish();
}

void ConfigLoader::ReadBatch(MapReader m, BatchConfig& b) {
  m.UInt("max_rows", b.max_rows, 1, 100000000);
  m.Size("max_bytes", b.max_bytes, 1 << 10, 16ULL << 30);
  m.Duration("max_delay", b.max_delay, milliseconds(1), hours(1));
  m.Duration("min_interval", b.min_interval, milliseconds(0), hours(1));
  m.UInt("part_rows", b.part_rows, 1, 100000000);
  batch_bytes_mark_ = m.MarkOf("max_bytes");
  m.Finish();
}

void ConfigLoader::ReadMemory(MapReader m, Config& config) {
  uint64_t& limit = config.memory.max_buffered_bytes;
  m.Size("max_buffered_bytes", limit, 1 << 20, 1ULL << 40);
  if (limit < config.batch.max_bytes) {
    if (m.Has("max_buffered_bytes")) {
      Problem(m, "max_buffered_bytes",
              fmt::format("must be at least batch.max_bytes ({}), or no batch could fill; got {}",
                          FormatSize(config.batch.max_bytes), FormatSize(limit)));
    } else {
      AddProblem(ctx_, batch_bytes_mark_, "batch.max_bytes",
                 fmt::format("must not exceed memory.max_buffered_bytes ({}), or no batch could "
                             "fill; got {}",
                             FormatSize(limit), FormatSize(config.batch.max_bytes)));
    }
  }
  m.Finish();
}

void ConfigLoader::ReadState(MapReader m, StateConfig& s) {
  m.Enum("store", s.store, {{"clickhouse", StateStore::kClickhouse}, {"file", StateStore::kFile}});
  NonEmpty(m, "path", s.path);
  NonEmpty(m, "table", s.table);
  m.Duration("checkpoint_interval", s.checkpoint_interval, milliseconds(100), hours(24));
  if (s.store == StateStore::kFile) {
    if (!m.Has("path")) Problem(m, "path", "required when state.store is file");
    if (m.Has("table")) Problem(m, "table", "only used when state.store is clickhouse");
  } else {
    if (m.Has("path")) Problem(m, "path", "only used when state.store is file");
    if (m.Has("table")) {
      try {
        ValidateTargetTemplate(s.table);
        if (TargetHasPlaceholders(s.table)) {
          Problem(m, "table", "must be a fixed name (no {db} or {table} placeholders)");
        }
      } catch (const Error& e) {
        Problem(m, "table", e.what());
      }
    }
  }
  s.path = ResolvePath(s.path);
  m.Finish();
}

void ConfigLoader::ReadHa(MapReader m, HaConfig& ha) {
  m.Enum("lock", ha.lock,
         {{"none", HaLock::kNone}, {"source", HaLock::kSource}, {"zookeeper", HaLock::kZooKeeper}});
  m.Duration("lease", ha.lease, milliseconds(500), seconds(600));
  const bool zookeeper = ha.lock == HaLock::kZooKeeper;
  for (std::string_view key : {"hosts", "path"}) {
    if (!zookeeper && m.Has(key)) {
      Problem(m, key,
              fmt::format("only a ZooKeeper lock has {}, and {} is {}", key, m.PathOf("lock"),
                          HaLockName(ha.lock)));
    }
  }
  if (!zookeeper) {
    m.Finish();
    return;
  }
  if (!m.Has("hosts")) {
    Problem(m, "hosts",
            fmt::format("is required with {}: zookeeper (the ensemble's servers, e.g. hosts: "
                        "\"zk1:2181,zk2:2181,zk3:2181\")",
                        m.PathOf("lock")));
  } else if (m.String("hosts", ha.hosts)) {
    if (std::optional<std::string> bad = BadZooKeeperHosts(ha.hosts)) Problem(m, "hosts", *bad);
  }
  if (m.String("path", ha.path)) {
    if (std::optional<std::string> bad = BadZooKeeperPath(ha.path)) Problem(m, "path", *bad);
  }
  m.Finish();
}

std::optional<std::string> ConfigLoader::BadZooKeeperHosts(const std::string& hosts) {
  if (hosts.empty()) return "must not be empty: host:port,host:port...";
  if (hosts.find('/') != std::string::npos) {
    return fmt::format("\"{}\" has a path: put it in ha.path, and only host:port,... here", hosts);
  }
  size_t begin = 0;
  for (;;) {
    const size_t end = std::min(hosts.find(',', begin), hosts.size());
    const std::string_view server = std::string_view(hosts).substr(begin, end - begin);
    const size_t colon = server.rfind(':');
    const std::string_view port =
        colon == std::string_view::npos ? std::string_view() : server.substr(colon + 1);
    if (colon == std::string_view::npos || colon == 0 || port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string_view::npos) {
      return fmt::format("\"{}\" in \"{}\" is not host:port (e.g. zk1:2181)", server, hosts);
    }
    if (end == hosts.size()) return std::nullopt;
    begin = end + 1;
  }
}

std::optional<std::string> ConfigLoader::BadZooKeeperPath(const std::string& path) {
  if (path.empty() || path[0] != '/') {
    return fmt::format("\"{}\" must be an absolute node path, e.g. /rowbridge", path);
  }
  if (path.size() > 1 && path.back() == '/') {
    return fmt::format("\"{}\" must not end with /", path);
  }
  if (path.find("//") != std::string::npos) {
    return fmt::format("\"{}\" has an empty node name (//)", path);
  }
  return std::nullopt;
}

void ConfigLoader::ReadHttp(MapReader m, Config& config) {
  HttpConfig& h = config.http;
  m.Bool("enabled", h.enabled);
  m.Secret("token", h.token);
  if (m.String("listen", h.listen)) {
    try {
      const ListenAddress address = ParseListenAddress(h.listen);
      if (h.enabled && !IsLoopbackHost(address.host) && h.token.empty()) {
        Problem(m, "listen",
                fmt::format("\"{}\" is reachable from other hosts, and /status shows the source "
                            "and target hosts, users and tables: set http.token (e.g. token: "
                            "${{ROWBRIDGE_HTTP_TOKEN}}), which every request must then send as "
                            "\"Authorization: Bearer <token>\", or listen on 127.0.0.1",
                            h.listen));
      }
    } catch (const Error& e) {
      Problem(m, "listen", e.what());
    }
  }
  MapReader health = m.Map("health");
  health.Duration("max_silence", h.health.max_silence, seconds(1), hours(24));
  Duration max_lag{};
  if (health.Duration("max_lag", max_lag, seconds(1), hours(24 * 30))) h.health.max_lag = max_lag;
  if (h.health.max_silence <= config.source.heartbeat_period) {
    if (health.Has("max_silence")) {
      Problem(health, "max_silence",
              fmt::format("must be longer than source.heartbeat_period ({}), or /healthz fails "
                          "whenever the source is idle; got {}",
                          FormatDuration(config.source.heartbeat_period),
                          FormatDuration(h.health.max_silence)));
    } else {
      AddProblem(ctx_, heartbeat_mark_, "source.heartbeat_period",
                 fmt::format("must be shorter than http.health.max_silence ({}), or /healthz "
                             "fails whenever the source is idle; got {}",
                             FormatDuration(h.health.max_silence),
                             FormatDuration(config.source.heartbeat_period)));
    }
  }
  health.Finish();
  m.Finish();
}

void ConfigLoader::ReadLog(MapReader m, LogConfig& l) {
  m.Enum("level", l.level,
         {{"trace", LogLevel::kTrace},
          {"debug", LogLevel::kDebug},
          {"info", LogLevel::kInfo},
          {"warn", LogLevel::kWarn},
          {"error", LogLevel::kError}});
  m.Enum("format", l.format, {{"text", LogFormat::kText}, {"json", LogFormat::kJson}});
  m.Finish();
}

}  // namespace rowbridge::config
