// Client: one connection to a ClickHouse server over the native TCP protocol (port 9000, or
// 9440 with TLS), speaking revision kClientRevision (protocol.h explains the choice).
//
//   Client ch(options);                      // connects, says Hello, negotiates the revision
//   ch.Execute("CREATE TABLE ...");
//   ch.Select("SELECT ...", [](Block& b) { ...; return true; });
//   Block header = ch.BeginInsert("INSERT INTO db.t (a, b) VALUES");
//   ... fill header.EmptyLike() ...; ch.SendBlock(block); ...
//   InsertResult r = ch.EndInsert();         // success only once the server said EndOfStream
//
// Failure handling:
//  - A server exception throws Error(kServer) carrying the exception code and every nested
//    level (ServerExceptionError). The connection is then replaced: a server may leave unread
//    bytes of the failed query in the stream (18.16 does after a syntax error, before it reads
//    the query's external-tables block), so reusing it is unsafe. The next call reconnects
//    by itself; connected() is false until then.
//  - Network faults and timeouts throw Error(kNetwork/kTimeout); malformed bytes throw
//    kCorruption/kProtocol. Each closes the connection; connected() turns false and every call
//    but Reconnect() throws kNetwork until Reconnect() succeeds (the caller decides when). Nothing
//    is retried here: an INSERT that failed may or may not have been applied, and only the caller
//    knows whether re-sending it is safe (e.g. relying on insert deduplication).
//  - Every read and write is bounded by ClientOptions::tcp timeouts.
//
// Not thread-safe: one thread drives one Client.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "clickhouse/block.h"
#include "clickhouse/compression.h"
#include "clickhouse/packets.h"
#include "clickhouse/settings.h"
#include "common/tcp_connection.h"

namespace rowbridge::clickhouse {

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9000;
  std::string database;  // empty: the user's default database
  std::string user = "default";
  std::string password;
  std::string client_name = "rowbridge";
  TcpOptions tcp;  // connect / read / write timeouts
  TlsOptions tls;  // kDisabled by default; ClickHouse's TLS port is normally 9440
  // Compression of Data blocks for queries that do not choose their own.
  CompressionMethod compression = CompressionMethod::kLz4;
  int zstd_level = 1;
  FrameLimits frame_limits;
  // Sent with every query (a query's own settings of the same name win), e.g. what a cluster
  // target needs of every statement (endpoints/connection_options.h).
  QuerySettings settings;
};

// What the server said about itself in its Hello.
struct ServerInfo {
  std::string name;
  uint64_t version_major = 0;
  uint64_t version_minor = 0;
  uint64_t version_patch = 0;
  uint64_t revision = 0;             // the server's own protocol revision
  uint64_t negotiated_revision = 0;  // min(ours, the server's): what both sides speak
  std::string timezone;              // the server's default time zone, e.g. "Etc/UTC"
  std::string display_name;

  std::string Version() const;  // "18.16.1"
  // True if the server version is at least major.minor.patch.
  bool AtLeast(uint64_t major, uint64_t minor, uint64_t patch = 0) const;
};

struct QueryOptions {
  std::string query_id;  // empty: the server generates one
  QuerySettings settings;
  // Overrides ClientOptions::compression for this query.
  std::optional<CompressionMethod> compression;
  // BeginInsert only: the INSERT is written all or nothing, however many blocks it is sent in.
  // ClickHouse (18.16 at least) writes the blocks it has received when the connection ends
  // between two packets, so a client that dies between blocks would leave some of them written.
  // With this set, the connection stands inside a Data packet from BeginInsert to EndInsert (the
  // type of the next packet is sent right after each block), so the server sees any early end as
  // a truncated packet and writes nothing; min_insert_block_size_rows/bytes are raised so that
  // it squashes every block into one and writes none before the end.
  bool all_or_nothing = false;
};

// Everything a query reported besides its data blocks.
struct QueryResult {
  Progress progress;  // summed over every Progress packet
  std::optional<ProfileInfo> profile_info;
  std::optional<Block> totals;
  std::optional<Block> extremes;
  uint64_t rows = 0;    // rows in the Data blocks received
  uint64_t blocks = 0;  // Data blocks with rows received
};

class Client {
 public:
  // Connects and completes the handshake; throws like Reconnect().
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Closes any current connection, then connects (TLS if configured) and exchanges Hello.
  // Throws kNetwork/kTimeout if the server cannot be reached, kServer if it refuses the login.
  void Reconnect();
  void Close();
  bool connected() const { return connection_ != nullptr; }

  const ServerInfo& server() const { return server_; }
  const ClientOptions& options() const { return options_; }
  // "host:port" for messages.
  const std::string& peer() const { return peer_; }
  // Negotiated TLS protocol and cipher; empty when not connected over TLS.
  std::string TlsDescription() const {
    return connection_ != nullptr ? connection_->TlsDescription() : std::string();
  }

  // Ping -> Pong round trip (only between queries).
  void Ping();

  // Execute and BeginInsert write: both pass the process's write fence first
  // (common/write_fence.h).
  //
  // Runs a statement and discards any rows it returns (DDL, OPTIMIZE, INSERT ... SELECT). Not
  // for an INSERT that expects data from us (that is BeginInsert): the server would wait for
  // it until the read timeout.
  QueryResult Execute(std::string_view sql, const QueryOptions& options = {});

  // Runs a query, calling `on_block` for every Data block that has rows. Returning false from
  // the callback cancels the query: the server is told to stop and the rest of its answer is
  // drained (so the connection stays usable) before Select returns.
  QueryResult Select(std::string_view sql, const std::function<bool(Block&)>& on_block,
                     const QueryOptions& options = {});

  // INSERT, in three steps. BeginInsert sends an INSERT without data ("INSERT INTO t (a, b)
  // VALUES") and returns the block the server expects: its column names and types, no rows.
  // SendBlock sends one block, which must have exactly those columns in that order (else
  // Error(kInvalidArgument) and nothing is sent). EndInsert sends the end-of-data marker and
  // waits for the server to finish; only its return means the rows were accepted.
  Block BeginInsert(std::string_view insert_sql, const QueryOptions& options = {});
  void SendBlock(const Block& block);
  QueryResult EndInsert();
  // Abandons an INSERT begun with BeginInsert: sends Cancel and waits for the server to close
  // the query. No rows sent in this INSERT should be assumed written or not written. An
  // all_or_nothing INSERT is abandoned by closing the connection instead: nothing is written.
  void CancelInsert();
  bool inserting() const { return state_ == State::kInserting; }

  // Called for each Log packet (only sent if the query sets send_logs_level).
  void set_log_handler(std::function<void(const Block&)> handler) {
    log_handler_ = std::move(handler);
  }
  // Called for each Progress packet with the increment it carried.
  void set_progress_handler(std::function<void(const Progress&)> handler) {
    progress_handler_ = std::move(handler);
  }

 private:
  enum class State { kIdle, kQuery, kInserting };

  // Checks that no INSERT is open and that we are connected, reconnecting first if the last
  // call ended in a server exception.
  void RequireIdle(const char* operation);
  void SendQuery(std::string_view sql, const QueryOptions& options);
  void SendData(const Block& block);
  void Flush();
  // Reads packets until EndOfStream, feeding Data blocks to `on_block` (may be empty).
  QueryResult ReadResult(const std::function<bool(Block&)>& on_block, bool cancel_allowed);
  // Handles Progress/ProfileInfo/Log/TableColumns/Totals/Extremes; true if consumed.
  bool HandleSideband(ServerPacketData& packet, QueryResult& result);
  [[noreturn]] void ThrowServerException(const ServerPacketData& packet);
  [[noreturn]] void FailUnexpected(const ServerPacketData& packet, const char* expected);
  // After a failed write during an INSERT: if the server sent an exception before hanging up,
  // throws that instead of the bare network error.
  void ThrowPendingServerException();
  // Runs `fn`; on any error closes the connection before rethrowing, unless the code that threw
  // set keep_open_on_error_ because the stream is still in step (e.g. a server exception).
  template <typename Fn>
  auto Guarded(Fn&& fn) -> decltype(fn());

  ClientOptions options_;
  std::string peer_;
  ServerInfo server_;
  ClientInfo client_info_;

  std::unique_ptr<TcpConnection> connection_;
  class SocketReader;
  std::unique_ptr<SocketReader> socket_reader_;
  std::unique_ptr<PacketReader> packets_;

  State state_ = State::kIdle;
  bool keep_open_on_error_ = false;
  bool server_error_ = false;  // the error being thrown is a server exception
  bool reconnect_on_next_call_ = false;
  bool query_compressed_ = false;
  bool all_or_nothing_ = false;  // the INSERT in progress is (QueryOptions::all_or_nothing)
  bool packet_open_ = false;     // the type of the next Data packet is sent already
  std::unique_ptr<FrameCodec> codec_;
  Block insert_header_;
  QueryResult insert_result_;

  WireWriter out_;      // the packet being built
  WireWriter block_;    // the parts of a block body that are not one column buffer
  FrameStream frames_;  // compresses a block body piece by piece into out_
  class SocketSink;     // an uncompressed block body: small pieces via out_, column buffers direct
  ServerPacketData packet_;

  std::function<void(const Block&)> log_handler_;
  std::function<void(const Progress&)> progress_handler_;
};

}  // namespace rowbridge::clickhouse
