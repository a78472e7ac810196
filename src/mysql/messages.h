// Parsers and builders for the packets of the MySQL client protocol: the server greeting
// (handshake v10), the client's handshake response and SSL request, auth switch requests, OK, ERR,
// column definitions and text-protocol rows. Pure functions over payload bytes (no I/O), so they
// are unit-tested and fuzzed directly.
//
// Every parser bounds-checks the untrusted payload and throws Error(kProtocol/kCorruption) naming
// `peer` ("host:port") on malformed input. Returned string_views point into the payload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowbridge::mysql {

struct ServerGreeting {
  uint8_t protocol_version = 0;
  std::string server_version;  // as sent, e.g. "8.0.36" or "5.5.5-10.11.6-MariaDB-0+deb12u1"
  uint32_t connection_id = 0;
  std::string nonce;  // the auth plugin data (20 bytes for the standard plugins)
  uint32_t capabilities = 0;
  uint8_t charset = 0;
  uint16_t status = 0;
  std::string auth_plugin;  // may be empty (pre-plugin servers)

  // MariaDB announces itself in the version string and by clearing the CLIENT_MYSQL bit.
  bool IsMariaDb() const;
};

// Parses the first packet of a connection. An ERR packet here (too many connections, host
// blocked) is thrown as Error(kServer).
ServerGreeting ParseGreeting(std::string_view payload, std::string_view peer);

struct HandshakeResponse {
  uint32_t capabilities = 0;
  uint8_t charset = 0;
  std::string user;
  std::string auth_response;
  std::string database;     // sent if capabilities has CLIENT_CONNECT_WITH_DB
  std::string auth_plugin;  // sent if capabilities has CLIENT_PLUGIN_AUTH
  std::vector<std::pair<std::string, std::string>> attributes;  // if CLIENT_CONNECT_ATTRS
};
std::string BuildHandshakeResponse(const HandshakeResponse& response);
// The short packet that asks the server to switch to TLS before the handshake response.
std::string BuildSslRequest(uint32_t capabilities, uint8_t charset);

struct AuthSwitchRequest {
  std::string plugin;
  std::string data;  // the new nonce, trailing NUL removed
};
// `payload` starts with 0xfe.
AuthSwitchRequest ParseAuthSwitch(std::string_view payload, std::string_view peer);

struct OkPacket {
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t status = 0;
  uint16_t warnings = 0;
  std::string_view info;
};
// `payload` starts with 0x00 (or 0xfe for an OK that ends a result set with CLIENT_DEPRECATE_EOF).
OkPacket ParseOk(std::string_view payload, std::string_view peer);

// True for the packet that ends a row or column list: 0xfe and shorter than a full packet (a text
// row starting with 0xfe would need a 2^24+ byte field, so cannot be shorter).
inline bool IsEndOfRows(std::string_view payload) {
  return !payload.empty() && static_cast<uint8_t>(payload[0]) == 0xfe && payload.size() < 0xffffff;
}
inline bool IsErr(std::string_view payload) {
  return !payload.empty() && static_cast<uint8_t>(payload[0]) == 0xff;
}

// Throws Error(kServer, "MySQL server <peer>: error <code> (<sqlstate>): <message>[ while
// <context>]", code, sqlstate) from an ERR packet.
[[noreturn]] void ThrowServerError(std::string_view payload, std::string_view peer,
                                   std::string_view context = {});

struct ColumnDefinition {
  std::string schema;
  std::string table;  // alias
  std::string org_table;
  std::string name;  // alias
  std::string org_name;
  uint16_t charset = 0;  // collation id; 63 = binary
  uint32_t length = 0;
  uint8_t type = 0;  // MYSQL_TYPE_* (same codes as binlog::ColumnType)
  uint16_t flags = 0;
  uint8_t decimals = 0;
};
ColumnDefinition ParseColumnDefinition(std::string_view payload, std::string_view peer);

// Parses one text-protocol row of `fields.size()` columns: fields[i] is the value and nulls[i] is
// 1 for SQL NULL (fields[i] is then empty). Resizes nothing; both vectors must have the column
// count as size.
void ParseTextRow(std::string_view payload, std::vector<std::string_view>& fields,
                  std::vector<uint8_t>& nulls, std::string_view peer);

}  // namespace rowbridge::mysql
