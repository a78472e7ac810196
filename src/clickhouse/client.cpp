#include "clickhouse/client.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "common/error.h"
#include "common/retain_policy.h"
#include "common/write_fence.h"

namespace rowbridge::clickhouse {
namespace {

// ClickHouse's QUERY_WAS_CANCELLED.
constexpr int32_t kQueryWasCancelledCode = 394;
// Capacity the block scratch keeps between blocks.
constexpr size_t kKeptScratchBytes = size_t{4} << 20;
// min_insert_block_size_rows/bytes of an all_or_nothing INSERT: never reached.
constexpr uint64_t kSquashEverything = uint64_t{1} << 62;

// Sends what is gathered in `pending` and empties it (keeping its capacity): the one way gathered
// bytes are flushed, before a piece that goes from where it lies or at the end of a message.
void SendPending(TcpConnection& connection, std::string& pending) {
  if (!pending.empty()) connection.WriteAll(pending);
  pending.clear();
}

// rowbridge's own version ("0.1.0"), reported to the server in Hello and client info.
struct OwnVersion {
  uint64_t major = 0, minor = 0, patch = 0;
};

OwnVersion ParseOwnVersion() {
  OwnVersion v;
  std::string_view text = ROWBRIDGE_VERSION;
  uint64_t* parts[] = {&v.major, &v.minor, &v.patch};
  for (uint64_t* part : parts) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *part);
    if (ec != std::errc()) break;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    if (text.empty() || text.front() != '.') break;
    text.remove_prefix(1);
  }
  return v;
}

std::string OsUser() {
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_name != nullptr) {
    return pw->pw_name;
  }
  return "";
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// True if the first keyword of `sql`, after blanks and comments, is INSERT.
bool IsInsertStatement(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
    } else if (sql.substr(i, 2) == "--" || c == '#') {
      size_t end = sql.find('\n', i);
      i = end == std::string_view::npos ? sql.size() : end + 1;
    } else if (sql.substr(i, 2) == "/*") {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
    } else {
      break;
    }
  }
  constexpr std::string_view kInsert = "insert";
  if (sql.size() - i < kInsert.size()) return false;
  for (size_t k = 0; k < kInsert.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(sql[i + k])) != kInsert[k]) return false;
  }
  const size_t after = i + kInsert.size();
  return after == sql.size() ||
         !(std::isalnum(static_cast<unsigned char>(sql[after])) || sql[after] == '_');
}

}  // namespace

std::string ServerInfo::Version() const {
  return fmt::format("{}.{}.{}", version_major, version_minor, version_patch);
}

bool ServerInfo::AtLeast(uint64_t major, uint64_t minor, uint64_t patch) const {
  if (version_major != major) return version_major > major;
  if (version_minor != minor) return version_minor > minor;
  return version_patch >= patch;
}

class Client::SocketReader : public WireReader {
 public:
  explicit SocketReader(TcpConnection& connection) : connection_(connection) {}
  void ReadExact(void* dst, size_t n) override { connection_.ReadExact(dst, n); }

 private:
  TcpConnection& connection_;
};

Client::Client(ClientOptions options) : options_(std::move(options)) {
  peer_ = options_.host.find(':') != std::string::npos
              ? fmt::format("[{}]:{}", options_.host, options_.port)
              : fmt::format("{}:{}", options_.host, options_.port);
  const OwnVersion version = ParseOwnVersion();
  client_info_.os_user = OsUser();
  client_info_.client_hostname = HostName();
  client_info_.client_name = options_.client_name;
  client_info_.version_major = version.major;
  client_info_.version_minor = version.minor;
  client_info_.version_patch = version.patch;
  client_info_.client_revision = kClientRevision;
  Reconnect();
}

Client::~Client() {
  Close();
}

void Client::Close() {
  reconnect_on_next_call_ = false;
  if (connection_ != nullptr) connection_->Close();
  packets_.reset();
  socket_reader_.reset();
  connection_.reset();
  state_ = State::kIdle;
  insert_header_ = Block();
  all_or_nothing_ = packet_open_ = false;
}

void Client::Reconnect() {
  Close();
  try {
    connection_ = TcpConnection::Connect(options_.host, options_.port, options_.tcp);
    // ClickHouse has no in-band TLS negotiation: a secure port speaks TLS from the first byte.
    // So "preferred" cannot fall back and means the same as "required".
    if (options_.tls.mode != TlsMode::kDisabled) connection_->StartTls(options_.tls);
    socket_reader_ = std::make_unique<SocketReader>(*connection_);

    const OwnVersion version = ParseOwnVersion();
    ClientHello hello;
    hello.client_name = options_.client_name;
    hello.version_major = version.major;
    hello.version_minor = version.minor;
    hello.revision = kClientRevision;
    hello.database = options_.database;
    hello.user = options_.user;
    hello.password = options_.password;
    out_.Clear();
    WriteClientHello(out_, hello);
    Flush();

    // A port that is not ClickHouse's native one may never answer a binary Hello: the answer gets
    // the connect timeout, not the query timeout, so a wrong port is reported in seconds.
    const std::chrono::milliseconds read_timeout = connection_->read_timeout();
    connection_->set_read_timeout(std::min(read_timeout, options_.tcp.connect_timeout));
    uint64_t type = 0;
    try {
      type = socket_reader_->VarUInt();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kTimeout && e.code() != ErrorCode::kNetwork) throw;
      throw e.WithMessage(fmt::format(
          "ClickHouse {}: {} our Hello: is port {} ClickHouse's native protocol port (9000, or "
          "9440 with TLS)? ({})",
          peer_,
          e.code() == ErrorCode::kTimeout
              ? fmt::format("no answer within {} ms to", options_.tcp.connect_timeout.count())
              : std::string("the connection ended after"),
          options_.port, e.what()));
    }
    if (type == 'H') {
      // "HTTP/1.x 400 ...": ClickHouse's HTTP interface (8123) refusing a request it cannot parse.
      Fail(ErrorCode::kConfig,
           "ClickHouse {}: port {} answered in HTTP; it is the HTTP interface (8123 by default), "
           "and rowbridge speaks the native protocol: set target.port to the server's tcp_port "
           "(9000, or 9440 with TLS)",
           peer_, options_.port);
    }
    connection_->set_read_timeout(read_timeout);
    if (type == static_cast<uint64_t>(ServerPacket::kException)) {
      // Wrong password, unknown database, ...: the server says why and hangs up.
      throw ServerExceptionError(ReadException(*socket_reader_), peer_);
    }
    if (type != static_cast<uint64_t>(ServerPacket::kHello)) {
      Fail(ErrorCode::kProtocol,
           "ClickHouse {}: expected Hello, got {} packet (type {}): is port {} ClickHouse's "
           "native protocol port (9000, or 9440 with TLS)?",
           peer_, ServerPacketName(type), type, options_.port);
    }
    ServerHello server_hello = ReadServerHello(*socket_reader_, kClientRevision);
    if (server_hello.revision < kMinServerRevision) {
      Fail(
          ErrorCode::kUnsupported,
          "ClickHouse {}: server {} {}.{} speaks protocol revision {}; rowbridge needs {} or newer",
          peer_, server_hello.name, server_hello.version_major, server_hello.version_minor,
          server_hello.revision, kMinServerRevision);
    }
    server_.name = std::move(server_hello.name);
    server_.version_major = server_hello.version_major;
    server_.version_minor = server_hello.version_minor;
    server_.version_patch = server_hello.version_patch;
    server_.revision = server_hello.revision;
    server_.negotiated_revision = std::min(kClientRevision, server_hello.revision);
    server_.timezone = std::move(server_hello.timezone);
    server_.display_name = std::move(server_hello.display_name);
    packets_ = std::make_unique<PacketReader>(*socket_reader_, server_.negotiated_revision,
                                              options_.frame_limits, peer_);
  } catch (...) {
    Close();
    throw;
  }
}

template <typename Fn>
auto Client::Guarded(Fn&& fn) -> decltype(fn()) {
  if (connection_ == nullptr) {
    Fail(ErrorCode::kNetwork,
         "ClickHouse {}: not connected (an earlier error closed the "
         "connection; call Reconnect())",
         peer_);
  }
  try {
    return fn();
  } catch (...) {
    const bool keep_open = keep_open_on_error_;
    const bool server_error = server_error_;
    keep_open_on_error_ = false;
    server_error_ = false;
    if (!keep_open) {
      Close();
      reconnect_on_next_call_ = server_error;
    }
    throw;
  }
}

void Client::RequireIdle(const char* operation) {
  if (state_ == State::kInserting) {
    Fail(ErrorCode::kInvalidArgument,
         "ClickHouse {}: {} while an INSERT is open (call EndInsert or CancelInsert first)", peer_,
         operation);
  }
  if (connection_ == nullptr && reconnect_on_next_call_) Reconnect();
  if (connection_ == nullptr) {
    Fail(ErrorCode::kNetwork,
         "ClickHouse {}: not connected (an earlier error closed the "
         "connection; call Reconnect())",
         peer_);
  }
}

void Client::Flush() {
  SendPending(*connection_, out_.mutable_data());
}

void Client::SendQuery(std::string_view sql, const QueryOptions& options) {
  const CompressionMethod method = options.compression.value_or(options_.compression);
  query_compressed_ = method != CompressionMethod::kNone;
  const QuerySettings* settings = &options.settings;
  QuerySettings with_defaults;
  if (!options_.settings.empty()) {
    with_defaults = options_.settings;
    with_defaults.Apply(options.settings);
    settings = &with_defaults;
  }
  QuerySettings with_compression;
  if (query_compressed_) {
    if (codec_ == nullptr || codec_->method() != method ||
        codec_->zstd_level() != options_.zstd_level) {
      codec_ = std::make_unique<FrameCodec>(method, options_.zstd_level);
    }
    // The server compresses what it sends with network_compression_method; what we send it
    // decodes by the method byte of each frame. Unless the caller chose, ask for our method.
    if (settings->Find("network_compression_method") == nullptr) {
      with_compression = *settings;
      with_compression.SetText("network_compression_method", CompressionMethodName(method));
      if (method == CompressionMethod::kZstd &&
          settings->Find("network_zstd_compression_level") == nullptr) {
        with_compression.SetInt("network_zstd_compression_level", options_.zstd_level);
      }
      settings = &with_compression;
    }
  }
  QueryPacket query;
  query.query_id = options.query_id;
  query.client_info = client_info_;
  query.settings = settings;
  query.stage = QueryStage::kComplete;
  query.compression = query_compressed_;
  query.query = sql;
  out_.Clear();
  WriteQuery(out_, query, server_.negotiated_revision);
  // The (empty) list of external tables: an empty block ends it.
  SendData(Block());
  packets_->StartQuery(query_compressed_);
  state_ = State::kQuery;
}

// An uncompressed block body goes to the socket as it is serialized: pieces as large as a column
// buffer are written from where they lie (no copy into out_, which would grow to the size of the
// block), small ones are gathered in out_ first.
class Client::SocketSink : public ByteSink {
 public:
  SocketSink(WireWriter& out, TcpConnection& connection) : out_(out), connection_(connection) {}
  void Append(std::string_view bytes) override {
    if (bytes.size() < kDirect) {
      out_.Bytes(bytes.data(), bytes.size());
      if (out_.size() >= kDirect) Flush();
      return;
    }
    Flush();
    connection_.WriteAll(bytes);
  }
  void Flush() { SendPending(connection_, out_.mutable_data()); }

 private:
  static constexpr size_t kDirect = 64 * 1024;
  WireWriter& out_;
  TcpConnection& connection_;
};

void Client::SendData(const Block& block) {
  if (packet_open_) {
    out_.String("");  // the rest of the Data packet's header: the table name
    packet_open_ = false;
  } else {
    WriteDataHeader(out_);
  }
  if (query_compressed_) {
    // Each frame goes to the socket as soon as it is made (see FrameStream's drain).
    frames_.Start(*codec_, out_.mutable_data(),
                  [this](std::string& pending, std::string_view frame) {
                    SendPending(*connection_, pending);
                    connection_->WriteAll(frame);
                  });
    WriteBlock(frames_, block, server_.negotiated_revision, block_);
    frames_.Finish();
  } else {
    SocketSink sink(out_, *connection_);
    WriteBlock(sink, block, server_.negotiated_revision, block_);
  }
  if (all_or_nothing_ && block.RowCount() > 0) {
    out_.VarUInt(static_cast<uint64_t>(ClientPacket::kData));
    packet_open_ = true;
  }
  Flush();
  // The scratch holds a block's columns that are not in one buffer (arrays, LowCardinality): one
  // block of big values must not leave its size allocated for the rest of the run.
  ReleaseIfLarger(block_.mutable_data(), kKeptScratchBytes);
}

void Client::ThrowServerException(const ServerPacketData& packet) {
  // The query is over, but the server may not have read everything we sent for it (see
  // client.h), so Guarded replaces the connection.
  server_error_ = true;
  state_ = State::kIdle;
  throw ServerExceptionError(packet.exception, peer_);
}

void Client::FailUnexpected(const ServerPacketData& packet, const char* expected) {
  Fail(ErrorCode::kProtocol, "ClickHouse {}: unexpected {} packet (expected {})", peer_,
       ServerPacketName(static_cast<uint64_t>(packet.type)), expected);
}

bool Client::HandleSideband(ServerPacketData& packet, QueryResult& result) {
  switch (packet.type) {
    case ServerPacket::kProgress:
      result.progress.Add(packet.progress);
      if (progress_handler_) progress_handler_(packet.progress);
      return true;
    case ServerPacket::kProfileInfo:
      result.profile_info = packet.profile_info;
      return true;
    case ServerPacket::kLog:
      if (log_handler_) log_handler_(packet.block);
      return true;
    case ServerPacket::kProfileEvents:
    case ServerPacket::kTableColumns:
      return true;
    case ServerPacket::kTotals:
      result.totals = std::move(packet.block);
      return true;
    case ServerPacket::kExtremes:
      result.extremes = std::move(packet.block);
      return true;
    default:
      return false;
  }
}

QueryResult Client::ReadResult(const std::function<bool(Block&)>& on_block, bool cancel_allowed) {
  QueryResult result;
  bool cancelled = false;
  while (true) {
    packets_->Next(packet_);
    switch (packet_.type) {
      case ServerPacket::kData: {
        const size_t rows = packet_.block.RowCount();
        if (rows == 0) continue;  // the header block, or the empty block after a cancel
        result.rows += rows;
        ++result.blocks;
        if (cancelled) continue;  // draining after Cancel
        if (!on_block) {
          if (!cancel_allowed) FailUnexpected(packet_, "no data at this point");
          continue;
        }
        if (!on_block(packet_.block)) {
          cancelled = true;
          out_.Clear();
          WriteCancel(out_);
          Flush();
        }
        continue;
      }
      case ServerPacket::kEndOfStream:
        state_ = State::kIdle;
        return result;
      case ServerPacket::kException:
        if (cancelled && !packet_.exception.empty() &&
            packet_.exception.front().code == kQueryWasCancelledCode) {
          // Some servers end a cancelled query this way. It is what we asked for; still replace
          // the connection, as after any exception.
          Close();
          reconnect_on_next_call_ = true;
          return result;
        }
        ThrowServerException(packet_);
      default:
        if (!HandleSideband(packet_, result)) FailUnexpected(packet_, "query result packets");
    }
  }
}

void Client::Ping() {
  RequireIdle("Ping");
  Guarded([&] {
    out_.Clear();
    WritePing(out_);
    Flush();
    while (true) {
      packets_->Next(packet_);
      // A Progress packet of the previous query can arrive late; it is harmless.
      if (packet_.type == ServerPacket::kProgress) continue;
      if (packet_.type == ServerPacket::kPong) return;
      FailUnexpected(packet_, "Pong");
    }
  });
}

QueryResult Client::Execute(std::string_view sql, const QueryOptions& options) {
  RequireIdle("Execute");
  CheckWriteFence();
  return Guarded([&] {
    SendQuery(sql, options);
    return ReadResult({}, true);
  });
}

QueryResult Client::Select(std::string_view sql, const std::function<bool(Block&)>& on_block,
                           const QueryOptions& options) {
  RequireIdle("Select");
  return Guarded([&] {
    SendQuery(sql, options);
    return ReadResult(on_block, true);
  });
}

Block Client::BeginInsert(std::string_view insert_sql, const QueryOptions& options) {
  // A SELECT would also answer with a header block first; only the statement tells them apart.
  if (!IsInsertStatement(insert_sql)) {
    Fail(ErrorCode::kInvalidArgument,
         "ClickHouse {}: BeginInsert needs an INSERT statement, got \"{}\"", peer_,
         insert_sql.substr(0, 200));
  }
  RequireIdle("BeginInsert");
  CheckWriteFence();
  return Guarded([&] {
    if (options.all_or_nothing) {
      // Every block squashed into one until the end (see QueryOptions::all_or_nothing).
      QueryOptions squashed = options;
      squashed.settings.SetUInt("min_insert_block_size_rows", kSquashEverything);
      squashed.settings.SetUInt("min_insert_block_size_bytes", kSquashEverything);
      SendQuery(insert_sql, squashed);
    } else {
      SendQuery(insert_sql, options);
    }
    insert_result_ = QueryResult();
    while (true) {
      packets_->Next(packet_);
      switch (packet_.type) {
        case ServerPacket::kData: {
          if (packet_.block.ColumnCount() > 0) {
            insert_header_ = packet_.block.EmptyLike();
            state_ = State::kInserting;
            if (options.all_or_nothing) {
              all_or_nothing_ = packet_open_ = true;
              out_.Clear();
              out_.VarUInt(static_cast<uint64_t>(ClientPacket::kData));
              Flush();
            }
            return std::move(packet_.block);
          }
          // A header without columns: the server runs the statement itself (INSERT ... SELECT,
          // INSERT with inline VALUES) and wants nothing from us. Let it finish.
          ReadResult({}, false);
          keep_open_on_error_ = true;
          Fail(ErrorCode::kInvalidArgument,
               "ClickHouse {}: the server ran \"{}\" without asking for data; BeginInsert needs "
               "an INSERT whose data we send",
               peer_, insert_sql.substr(0, 200));
        }
        case ServerPacket::kException:
          ThrowServerException(packet_);
        case ServerPacket::kEndOfStream:
          state_ = State::kIdle;
          keep_open_on_error_ = true;
          Fail(ErrorCode::kInvalidArgument,
               "ClickHouse {}: the server ran \"{}\" without asking for data; BeginInsert needs "
               "an INSERT whose data we send",
               peer_, insert_sql.substr(0, 200));
        default:
          if (!HandleSideband(packet_, insert_result_)) {
            FailUnexpected(packet_, "the INSERT's header block");
          }
      }
    }
  });
}

void Client::SendBlock(const Block& block) {
  if (state_ != State::kInserting) {
    Fail(ErrorCode::kInvalidArgument, "ClickHouse {}: SendBlock without BeginInsert", peer_);
  }
  if (block.ColumnCount() != insert_header_.ColumnCount()) {
    Fail(ErrorCode::kInvalidArgument,
         "ClickHouse {}: INSERT block has {} columns, the server expects {}", peer_,
         block.ColumnCount(), insert_header_.ColumnCount());
  }
  for (size_t i = 0; i < block.ColumnCount(); ++i) {
    if (block.Name(i) != insert_header_.Name(i) ||
        block.At(i).type_name() != insert_header_.At(i).type_name()) {
      Fail(ErrorCode::kInvalidArgument,
           "ClickHouse {}: INSERT block column {} is {} {}, the server expects {} {}", peer_, i,
           block.Name(i), block.At(i).type_name(), insert_header_.Name(i),
           insert_header_.At(i).type_name());
    }
  }
  // An empty block would tell the server the data is complete.
  if (block.RowCount() == 0) return;
  Guarded([&] {
    try {
      SendData(block);
    } catch (const Error& write_error) {
      // If the server gave up on the INSERT it said why before closing; prefer its reason.
      if (write_error.code() == ErrorCode::kNetwork) ThrowPendingServerException();
      throw;
    }
  });
}

void Client::ThrowPendingServerException() {
  try {
    connection_->set_read_timeout(std::chrono::milliseconds(1000));
    packets_->Next(packet_);
  } catch (const Error&) {
    return;
  }
  if (packet_.type == ServerPacket::kException) {
    server_error_ = true;
    throw ServerExceptionError(packet_.exception, peer_);
  }
}

QueryResult Client::EndInsert() {
  if (state_ != State::kInserting) {
    Fail(ErrorCode::kInvalidArgument, "ClickHouse {}: EndInsert without BeginInsert", peer_);
  }
  return Guarded([&] {
    out_.Clear();
    SendData(Block());
    all_or_nothing_ = false;
    QueryResult result = ReadResult({}, false);
    result.progress.Add(insert_result_.progress);
    insert_header_ = Block();
    return result;
  });
}

void Client::CancelInsert() {
  if (state_ != State::kInserting) return;
  if (all_or_nothing_) {
    // Cancel would end the INSERT as complete; a truncated packet ends it as failed.
    Close();
    return;
  }
  Guarded([&] {
    out_.Clear();
    WriteCancel(out_);
    Flush();
    // Servers end the INSERT with EndOfStream (older ones) or an exception (newer ones); either
    // way the query is over. Our connection is kept only if the server ends it cleanly.
    while (true) {
      packets_->Next(packet_);
      if (packet_.type == ServerPacket::kEndOfStream || packet_.type == ServerPacket::kException) {
        break;
      }
      ServerPacketData& p = packet_;
      if (!HandleSideband(p, insert_result_)) FailUnexpected(p, "the end of a cancelled INSERT");
    }
    state_ = State::kIdle;
    insert_header_ = Block();
  });
}

}  // namespace rowbridge::clickhouse
