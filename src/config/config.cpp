#include "config/config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cctype>
#include <string>

#include "common/error.h"

namespace rowbridge::config {

const char* TlsModeName(TlsMode mode) {
  switch (mode) {
    case TlsMode::kDisabled:
      return "disabled";
    case TlsMode::kPreferred:
      return "preferred";
    case TlsMode::kRequired:
      return "required";
    case TlsMode::kVerifyCa:
      return "verify-ca";
    case TlsMode::kVerifyIdentity:
      return "verify-identity";
  }
  return "?";
}

const char* SourceFlavorName(SourceFlavor flavor) {
  switch (flavor) {
    case SourceFlavor::kAuto:
      return "auto";
    case SourceFlavor::kMysql:
      return "mysql";
    case SourceFlavor::kMariadb:
      return "mariadb";
  }
  return "?";
}

const char* StatementDmlName(StatementDml action) {
  switch (action) {
    case StatementDml::kStopTable:
      return "stop_table";
    case StatementDml::kStopRun:
      return "stop_run";
  }
  return "?";
}

const char* OnPurgedName(OnPurged action) {
  switch (action) {
    case OnPurged::kStop:
      return "stop";
    case OnPurged::kRecopy:
      return "recopy";
  }
  return "?";
}

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kAuto:
      return "auto";
    case Compression::kLz4:
      return "lz4";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      return "none";
  }
  return "?";
}

const char* TableModeName(TableMode mode) {
  switch (mode) {
    case TableMode::kReplica:
      return "replica";
    case TableMode::kChangelog:
      return "changelog";
  }
  return "?";
}

const char* OutOfRangeName(OutOfRange policy) {
  switch (policy) {
    case OutOfRange::kError:
      return "error";
    case OutOfRange::kClamp:
      return "clamp";
  }
  return "?";
}

const char* StateStoreName(StateStore store) {
  switch (store) {
    case StateStore::kClickhouse:
      return "clickhouse";
    case StateStore::kFile:
      return "file";
  }
  return "?";
}

const char* HaLockName(HaLock lock) {
  switch (lock) {
    case HaLock::kNone:
      return "none";
    case HaLock::kSource:
      return "source";
    case HaLock::kZooKeeper:
      return "zookeeper";
  }
  return "none";
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

const char* LogFormatName(LogFormat format) {
  switch (format) {
    case LogFormat::kText:
      return "text";
    case LogFormat::kJson:
      return "json";
  }
  return "?";
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "::1") return true;
  std::string lower(host);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "localhost" || lower == "localhost.") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, lower.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, lower.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

ListenAddress ParseListenAddress(std::string_view listen) {
  ListenAddress out;
  std::string_view port_text;
  if (!listen.empty() && listen.front() == '[') {
    size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      Fail(ErrorCode::kInvalidArgument,
           "listen address \"{}\" must be [ipv6]:port, e.g. [::1]:9480", listen);
    }
    out.host = std::string(listen.substr(1, close - 1));
    port_text = listen.substr(close + 2);
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos || listen.find(':') != colon) {
      Fail(ErrorCode::kInvalidArgument,
           "listen address \"{}\" must be host:port, e.g. 127.0.0.1:9480 (IPv6 as [::1]:9480)",
           listen);
    }
    out.host = std::string(listen.substr(0, colon));
    port_text = listen.substr(colon + 1);
  }
  if (out.host.empty()) {
    Fail(ErrorCode::kInvalidArgument,
         "listen address \"{}\" has no host (use 0.0.0.0:PORT to listen on every interface)",
         listen);
  }
  uint32_t port = 0;
  if (port_text.empty() || port_text.size() > 5) {
    Fail(ErrorCode::kInvalidArgument, "listen address \"{}\" needs a port 0..65535", listen);
  }
  for (char c : port_text) {
    if (c < '0' || c > '9') {
      Fail(ErrorCode::kInvalidArgument, "listen address \"{}\" needs a port 0..65535", listen);
    }
    port = port * 10 + static_cast<uint32_t>(c - '0');
  }
  if (port > 65535) {
    Fail(ErrorCode::kInvalidArgument, "listen address \"{}\" needs a port 0..65535", listen);
  }
  out.port = static_cast<uint16_t>(port);
  return out;
}

}  // namespace rowbridge::config
