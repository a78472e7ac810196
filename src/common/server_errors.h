// The one table of server error codes that a retry can cure, per kind of server. An error a server
// sends is classified here, once, where the client turns it into a rowbridge::Error
// (mysql/messages.cpp, clickhouse/packets.cpp); every retry loop then only asks
// Error::IsTransient().
//
// Transient means the same request can succeed later without a human: the server is overloaded
// (too many connections or queries, memory), restarting or shutting down, a lock wait or deadlock
// was resolved against us, or the connection broke. Everything else (access denied, unknown table,
// syntax, a value the target refuses) is permanent: retrying only delays the report.
#pragma once

#include <span>
#include <string_view>

namespace rowbridge {

enum class ServerKind { kMysql, kClickHouse };

struct TransientServerError {
  int code;
  std::string_view name;  // the server's symbolic name, e.g. ER_CON_COUNT_ERROR
};

// Every transient code of `kind`, ascending.
std::span<const TransientServerError> TransientServerErrors(ServerKind kind);

// Whether error `code` of a server of `kind` is transient (in the table above).
bool IsTransientServerError(ServerKind kind, int code);

}  // namespace rowbridge
