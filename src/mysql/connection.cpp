#include "mysql/connection.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <chrono>

#include "common/byte_reader.h"
#include "common/error.h"
#include "mysql/auth.h"
#include "mysql/protocol.h"

namespace rowbridge::mysql {
namespace {

constexpr uint32_t kWantedCapabilities = kClientLongPassword | kClientLongFlag | kClientProtocol41 |
                                         kClientTransactions | kClientSecureConnection |
                                         kClientPluginAuth | kClientPluginAuthLenencData |
                                         kClientConnectAttrs | kClientDeprecateEof;

}  // namespace

// --- ResultSet -------------------------------------------------------------------------------

ResultSet::ResultSet(ResultSet&& other) noexcept
    : connection_(other.connection_),
      done_(other.done_),
      columns_(std::move(other.columns_)),
      fields_(std::move(other.fields_)),
      nulls_(std::move(other.nulls_)),
      rows_read_(other.rows_read_),
      execute_result_(other.execute_result_) {
  other.connection_ = nullptr;
  other.done_ = true;
}

ResultSet::~ResultSet() {
  if (connection_ == nullptr || done_) return;
  try {
    while (Next()) {
    }
  } catch (const Error&) {
    connection_->broken_ = true;
    connection_->result_open_ = false;
  }
}

size_t ResultSet::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].name == name) return i;
  }
  Fail(ErrorCode::kInvalidArgument, "result set has no column named '{}'", name);
}

bool ResultSet::Next() {
  if (done_) return false;
  Connection& c = *connection_;
  try {
    std::string_view packet = c.channel_.ReadPacket();
    if (IsErr(packet)) {
      done_ = true;
      c.result_open_ = false;
      ThrowServerError(packet, c.peer(), "reading rows");
    }
    if (IsEndOfRows(packet)) {
      done_ = true;
      c.result_open_ = false;
      // Multi-result responses are not requested, so none may follow.
      uint16_t status = 0;
      if (c.capabilities_ & kClientDeprecateEof) {
        status = ParseOk(packet, c.peer()).status;
      } else if (packet.size() >= 5) {
        status = static_cast<uint16_t>(static_cast<uint8_t>(packet[3]) |
                                       (static_cast<uint8_t>(packet[4]) << 8));
      }
      if (status & kServerMoreResultsExist) {
        c.broken_ = true;
        Fail(ErrorCode::kUnsupported, "MySQL server {} returned more than one result set",
             c.peer());
      }
      return false;
    }
    ParseTextRow(packet, fields_, nulls_, c.peer());
    ++rows_read_;
    return true;
  } catch (const Error& e) {
    done_ = true;
    c.result_open_ = false;
    if (e.code() != ErrorCode::kServer) c.broken_ = true;
    throw;
  }
}

// --- Connection ------------------------------------------------------------------------------

Connection::Connection(std::unique_ptr<TcpConnection> tcp)
    : tcp_(std::move(tcp)), channel_(*tcp_) {}

Connection::~Connection() {
  try {
    if (tcp_->is_open() && !result_open_ && !broken_) Quit();
  } catch (const Error&) {
    // Closing anyway.
  }
}

std::unique_ptr<Connection> Connection::Connect(const ConnectOptions& options) {
  std::unique_ptr<Connection> c(
      new Connection(TcpConnection::Connect(options.host, options.port, options.tcp)));
  c->Handshake(options);
  return c;
}

std::string Connection::server_version() const {
  std::string_view v = greeting_.server_version;
  if (v.starts_with("5.5.5-")) v.remove_prefix(6);
  return std::string(v);
}

void Connection::Handshake(const ConnectOptions& options) {
  channel_.ResetSequence();
  // A port that does not speak MySQL may wait for us to speak first (ClickHouse's native port, an
  // HTTP server): the greeting gets the connect timeout, not the read timeout, so a wrong port is
  // reported in seconds.
  const std::chrono::milliseconds read_timeout = tcp_->read_timeout();
  tcp_->set_read_timeout(std::min(read_timeout, options.tcp.connect_timeout));
  try {
    greeting_ = ParseGreeting(channel_.ReadPacket(), peer());
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kTimeout) throw;
    throw e.WithMessage(fmt::format(
        "{} sent no MySQL greeting within {} ms: is port {} a MySQL or MariaDB server's? (a "
        "MySQL server speaks first; ClickHouse's ports and HTTP servers wait for the client)",
        peer(), options.tcp.connect_timeout.count(), options.port));
  }
  tcp_->set_read_timeout(read_timeout);
  const uint32_t server = greeting_.capabilities;
  if (!(server & kClientProtocol41) || !(server & kClientSecureConnection)) {
    Fail(ErrorCode::kUnsupported, "MySQL server {} (version {}) is too old: no 4.1 protocol",
         peer(), greeting_.server_version);
  }
  capabilities_ = kWantedCapabilities & server;
  if (!options.database.empty()) capabilities_ |= kClientConnectWithDb & server;

  const TlsMode mode = options.tls.mode;
  if (mode != TlsMode::kDisabled) {
    if (server & kClientSsl) {
      capabilities_ |= kClientSsl;
      channel_.WritePacket(BuildSslRequest(capabilities_, kCharsetUtf8mb4));
      tcp_->StartTls(options.tls);
    } else if (mode != TlsMode::kPreferred) {
      Fail(ErrorCode::kConfig,
           "MySQL server {} does not offer TLS but tls mode is {}; enable TLS on the server "
           "(ssl_cert/ssl_key in [mysqld]) or set the tls mode to preferred/disabled",
           peer(), TlsModeName(mode));
    }
  }

  // Unknown default plugins get a native-password answer; the server then switches us.
  std::string plugin = greeting_.auth_plugin;
  if (plugin != "caching_sha2_password" && plugin != "mysql_native_password" &&
      plugin != "sha256_password" && plugin != "client_ed25519") {
    plugin = "mysql_native_password";
  }
  std::string nonce = greeting_.nonce;
  HandshakeResponse response;
  response.capabilities = capabilities_;
  response.charset = kCharsetUtf8mb4;
  response.user = options.user;
  response.database = options.database;
  response.auth_plugin = plugin;
  response.auth_response = AuthData(plugin, nonce, options);
  response.attributes = {{"_client_name", "rowbridge"},
                         {"_client_version", ROWBRIDGE_VERSION},
                         {"program_name", options.program_name}};
  channel_.WritePacket(BuildHandshakeResponse(response));
  OPENSSL_cleanse(response.auth_response.data(), response.auth_response.size());

  const std::string context = fmt::format("authenticating as '{}'", options.user);
  bool public_key_requested = false;
  for (int round = 0; round < 8; ++round) {
    std::string_view packet = channel_.ReadPacket();
    switch (PacketMarker(packet)) {
      case kOkMarker:
        auth_plugin_ = plugin;
        if (ParseOk(packet, peer()).status & kServerNoBackslashEscapes) {
          // mysql/sql_quote.h writes string literals with backslash escapes: this session must
          // read them as escapes, whatever the server's global sql_mode.
          Execute(
              "SET SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, "
              "','), ',NO_BACKSLASH_ESCAPES,', ','))");
        }
        return;
      case kErrMarker:
        ThrowServerError(packet, peer(), context);
      case kEofMarker: {
        AuthSwitchRequest request = ParseAuthSwitch(packet, peer());
        plugin = request.plugin;
        nonce = request.data;
        std::string data = AuthData(plugin, nonce, options);
        channel_.WritePacket(data);
        OPENSSL_cleanse(data.data(), data.size());
        break;
      }
      case kAuthMoreDataMarker: {
        std::string_view more = packet.substr(1);
        if (plugin == "caching_sha2_password" && more.size() == 1 && more[0] == 3) {
          break;  // fast auth succeeded; the OK follows
        }
        if (plugin == "caching_sha2_password" && more.size() == 1 && more[0] == 4) {
          // Full authentication: the server needs the password itself.
          if (tcp_->tls_active()) {
            std::string plain = options.password + '\0';
            channel_.WritePacket(plain);
            OPENSSL_cleanse(plain.data(), plain.size());
          } else {
            channel_.WritePacket(std::string_view("\x02", 1));  // request the RSA public key
            public_key_requested = true;
          }
          break;
        }
        if ((plugin == "caching_sha2_password" && public_key_requested) ||
            plugin == "sha256_password") {
          channel_.WritePacket(RsaEncryptPassword(options.password, nonce, more));
          break;
        }
        Fail(ErrorCode::kProtocol, "MySQL server {} sent unexpected auth data for plugin {}",
             peer(), plugin);
      }
      default:
        Fail(ErrorCode::kProtocol, "MySQL server {} sent an unexpected packet (0x{:02x}) while {}",
             peer(), PacketMarker(packet), context);
    }
  }
  Fail(ErrorCode::kProtocol, "MySQL server {} did not finish authentication after 8 rounds",
       peer());
}

std::string Connection::AuthData(const std::string& plugin, const std::string& nonce,
                                 const ConnectOptions& options) {
  const std::string& pw = options.password;
  if (plugin == "mysql_native_password") return NativePasswordProof(pw, nonce);
  if (plugin == "caching_sha2_password") return CachingSha2Proof(pw, nonce);
  if (plugin == "client_ed25519") return Ed25519Signature(pw, nonce);
  if (plugin == "sha256_password") {
    if (pw.empty()) return std::string(1, '\0');
    if (tcp_->tls_active()) return pw + '\0';
    return std::string(1, '\x01');  // ask for the public key
  }
  if (plugin == "mysql_clear_password") {
    if (!tcp_->tls_active()) {
      Fail(ErrorCode::kConfig,
           "MySQL server {} asks for the cleartext password (mysql_clear_password) over an "
           "unencrypted connection; enable TLS (tls mode required or stricter)",
           peer());
    }
    return pw + '\0';
  }
  Fail(ErrorCode::kUnsupported,
       "MySQL server {} asks for auth plugin '{}', which rowbridge "
       "does not support (supported: mysql_native_password, caching_sha2_password, "
       "sha256_password, client_ed25519, mysql_clear_password)",
       peer(), plugin);
}

void Connection::CheckIdle() const {
  if (broken_) {
    Fail(ErrorCode::kNetwork, "connection to MySQL server {} was left mid-response; reconnect",
         peer());
  }
  if (result_open_) {
    Fail(ErrorCode::kInternal,
         "a result set from MySQL server {} is still open; read or destroy it first", peer());
  }
}

void Connection::SendCommand(std::string_view payload) {
  CheckIdle();
  channel_.ResetSequence();
  channel_.WritePacket(payload);
}

ResultSet Connection::Query(std::string_view sql) {
  CheckIdle();
  command_buffer_.clear();
  command_buffer_.push_back(static_cast<char>(kComQuery));
  command_buffer_.append(sql);
  channel_.ResetSequence();
  channel_.WritePacket(command_buffer_);
  if (command_buffer_.capacity() > 65536) command_buffer_ = std::string();

  ResultSet rs(this);
  try {
    std::string_view packet = channel_.ReadPacket();
    uint8_t first = PacketMarker(packet);
    if (first == kErrMarker) ThrowServerError(packet, peer());
    if (first == kOkMarker) {
      OkPacket ok = ParseOk(packet, peer());
      rs.execute_result_ = {ok.affected_rows, ok.last_insert_id, ok.warnings};
      rs.done_ = true;
      if (ok.status & kServerMoreResultsExist) {
        broken_ = true;
        Fail(ErrorCode::kUnsupported, "MySQL server {} returned more than one result", peer());
      }
      return rs;
    }
    if (first == 0xfb) {
      broken_ = true;
      Fail(ErrorCode::kUnsupported, "MySQL server {} asked for LOAD DATA LOCAL; not supported",
           peer());
    }
    uint64_t count = 0;
    {
      ByteReader r(packet, 0, "column count");
      count = r.LengthEncoded("column count");
      if (count == 0 || count > 65535 || !r.AtEnd()) {
        Fail(ErrorCode::kProtocol, "MySQL server {} sent a bad column count packet", peer());
      }
    }
    rs.columns_.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      rs.columns_.push_back(ParseColumnDefinition(channel_.ReadPacket(), peer()));
    }
    if (!(capabilities_ & kClientDeprecateEof)) {
      std::string_view eof = channel_.ReadPacket();
      if (!IsEndOfRows(eof)) {
        Fail(ErrorCode::kProtocol, "MySQL server {} did not end the column list with EOF", peer());
      }
    }
    rs.fields_.resize(count);
    rs.nulls_.resize(count);
    result_open_ = true;
    return rs;
  } catch (const Error& e) {
    rs.done_ = true;
    if (e.code() != ErrorCode::kServer) broken_ = true;
    throw;
  }
}

ExecuteResult Connection::Execute(std::string_view sql) {
  ResultSet rs = Query(sql);
  while (rs.Next()) {
  }
  return rs.execute_result();
}

std::vector<std::vector<std::optional<std::string>>> Connection::QueryRows(std::string_view sql) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  ResultSet rs = Query(sql);
  while (rs.Next()) {
    auto& row = rows.emplace_back();
    for (size_t i = 0; i < rs.column_count(); ++i) {
      if (rs.IsNull(i)) {
        row.emplace_back();
      } else {
        row.emplace_back(std::string(rs.Field(i)));
      }
    }
  }
  return rows;
}

std::optional<std::string> Connection::QueryValue(std::string_view sql) {
  auto rows = QueryRows(sql);
  if (rows.empty() || rows[0].empty()) return std::nullopt;
  return rows[0][0];
}

void Connection::Ping() {
  const char command = static_cast<char>(kComPing);
  SendCommand(std::string_view(&command, 1));
  std::string_view packet = channel_.ReadPacket();
  if (IsErr(packet)) ThrowServerError(packet, peer(), "pinging");
  if (PacketMarker(packet) != kOkMarker) {
    broken_ = true;
    Fail(ErrorCode::kProtocol, "MySQL server {} answered COM_PING with 0x{:02x}", peer(),
         PacketMarker(packet));
  }
}

void Connection::Quit() {
  if (!tcp_->is_open()) return;
  try {
    const char command = static_cast<char>(kComQuit);
    channel_.ResetSequence();
    channel_.WritePacket(std::string_view(&command, 1));
  } catch (const Error&) {
    // The server may already be gone; we are closing either way.
  }
  tcp_->Close();
}

}  // namespace rowbridge::mysql
