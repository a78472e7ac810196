// Connection: one authenticated MySQL/MariaDB client session, all our own protocol code on a
// TcpConnection. Connect() performs the handshake (optional TLS upgrade via the SSL request,
// capability negotiation, auth plugins mysql_native_password, caching_sha2_password with fast and
// full authentication, sha256_password, MariaDB client_ed25519, mysql_clear_password over TLS,
// auth switch and more-data exchanges).
//
// Queries use the text protocol (prepared statements and the binary protocol:
// prepared_statement.h). Query() returns a ResultSet that streams rows one packet at a
// time: memory stays at one row whatever the result size. While a ResultSet is open the
// connection can run nothing else; destroying the ResultSet early reads and discards the rest.
//
// Server errors are Error(kServer) with the server's errno and SQLSTATE and a message naming the
// server's host:port. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/tcp_connection.h"
#include "mysql/messages.h"
#include "mysql/packet_channel.h"

namespace rowbridge::mysql {

struct ConnectOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;
  std::string database;  // empty = none
  TcpOptions tcp;
  TlsOptions tls;  // kPreferred upgrades when the server offers TLS, else stays plain
  // Sent as the connection attribute program_name (visible in performance_schema).
  std::string program_name = "rowbridge";
};

struct ExecuteResult {
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t warnings = 0;
};

class Connection;

// A streamed text result set. Typical use:
//   ResultSet rs = conn.Query("SELECT id, name FROM t");
//   while (rs.Next()) { if (!rs.IsNull(1)) Use(rs.Field(0), rs.Field(1)); }
// Field views point into the connection's packet buffer and are valid until the next Next().
class ResultSet {
 public:
  ResultSet(ResultSet&& other) noexcept;
  ResultSet& operator=(ResultSet&&) = delete;
  ResultSet(const ResultSet&) = delete;
  ~ResultSet();

  const std::vector<ColumnDefinition>& columns() const { return columns_; }
  size_t column_count() const { return columns_.size(); }
  // Index of the column named `name` (case-sensitive); throws Error(kInvalidArgument) if absent.
  size_t ColumnIndex(std::string_view name) const;

  // Advances to the next row; false once the result is exhausted.
  bool Next();
  std::string_view Field(size_t i) const { return fields_[i]; }
  bool IsNull(size_t i) const { return nulls_[i] != 0; }
  std::optional<std::string_view> Get(size_t i) const {
    return nulls_[i] ? std::nullopt : std::optional<std::string_view>(fields_[i]);
  }
  uint64_t rows_read() const { return rows_read_; }
  // For a statement without a result set: what the OK packet said.
  const ExecuteResult& execute_result() const { return execute_result_; }

 private:
  friend class Connection;
  explicit ResultSet(Connection* connection) : connection_(connection) {}

  Connection* connection_;
  bool done_ = false;
  std::vector<ColumnDefinition> columns_;
  std::vector<std::string_view> fields_;
  std::vector<uint8_t> nulls_;
  uint64_t rows_read_ = 0;
  ExecuteResult execute_result_;
};

class Connection {
 public:
  // Throws Error(kNetwork/kTimeout) if the server cannot be reached, Error(kServer) (e.g. 1045
  // access denied) if it refuses us, Error(kConfig) if TLS is required but not offered.
  static std::unique_ptr<Connection> Connect(const ConnectOptions& options);
  // Sends COM_QUIT (best effort) and closes.
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  ResultSet Query(std::string_view sql);
  // Runs a statement; any result rows are read and discarded.
  ExecuteResult Execute(std::string_view sql);
  // Small results only (server variables, SHOW ...): every row materialised.
  std::vector<std::vector<std::optional<std::string>>> QueryRows(std::string_view sql);
  // First column of the first row; nullopt if there is no row or the value is NULL.
  std::optional<std::string> QueryValue(std::string_view sql);

  void Ping();
  // Sends COM_QUIT and closes the socket; the object is unusable afterwards.
  void Quit();

  const ServerGreeting& greeting() const { return greeting_; }
  bool is_mariadb() const { return greeting_.IsMariaDb(); }
  uint32_t connection_id() const { return greeting_.connection_id; }
  // Server version without MariaDB's "5.5.5-" compatibility prefix.
  std::string server_version() const;
  // The plugin that finally authenticated us (after any switch).
  const std::string& auth_plugin() const { return auth_plugin_; }
  uint32_t capabilities() const { return capabilities_; }
  bool tls_active() const { return tcp_->tls_active(); }
  const std::string& peer() const { return tcp_->peer(); }

  // Low-level access for the replication stream (binlog_stream.cpp): starts a command (sequence
  // id 0) with the given payload.
  void SendCommand(std::string_view payload);
  PacketChannel& channel() { return channel_; }
  TcpConnection& tcp() { return *tcp_; }

 private:
  friend class ResultSet;
  friend class PreparedStatement;
  friend class BinaryResultSet;
  explicit Connection(std::unique_ptr<TcpConnection> tcp);
  void Handshake(const ConnectOptions& options);
  // The auth data `plugin` wants for `nonce`; the first message of that plugin's exchange.
  std::string AuthData(const std::string& plugin, const std::string& nonce,
                       const ConnectOptions& options);
  void CheckIdle() const;

  std::unique_ptr<TcpConnection> tcp_;
  PacketChannel channel_;
  ServerGreeting greeting_;
  uint32_t capabilities_ = 0;
  std::string auth_plugin_;
  bool result_open_ = false;
  bool broken_ = false;  // a stream ended mid-result; the session cannot be resynchronised
  std::string command_buffer_;
};

}  // namespace rowbridge::mysql
