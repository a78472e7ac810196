// Encoding of the ClickHouse native-protocol packets rowbridge sends, and decoding of every
// packet a server may send, for a given negotiated revision (protocol.h explains revisions).
// Free of sockets: writers append to a WireWriter, readers pull from any WireReader, so tests
// and the fuzzer drive them with byte buffers.
//
// Readers trust nothing: strings are length-bounded, nesting is bounded, and malformed input
// throws Error(kCorruption) (or kProtocol for a packet type that has no place in the stream).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/block.h"
#include "clickhouse/compressed_reader.h"
#include "clickhouse/protocol.h"
#include "clickhouse/settings.h"
#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {

// ---- client -> server -------------------------------------------------------------------

struct ClientHello {
  std::string client_name;  // shown in the server's logs and system.processes
  uint64_t version_major = 0;
  uint64_t version_minor = 0;
  uint64_t revision = kClientRevision;
  std::string database;  // empty: the user's default database
  std::string user;
  std::string password;
};
// Throws Error(kInvalidArgument) if database, user or password contain ASCII control
// characters (servers reject them) or the user is empty.
void WriteClientHello(WireWriter& out, const ClientHello& hello);

// The "client info" part of a Query packet: who runs the query. rowbridge always sends an
// initial query over TCP.
struct ClientInfo {
  std::string os_user;
  std::string client_hostname;
  std::string client_name;
  uint64_t version_major = 0;
  uint64_t version_minor = 0;
  uint64_t version_patch = 0;
  uint64_t client_revision = kClientRevision;  // what we announced, not the negotiated value
  std::string quota_key;
};

struct QueryPacket {
  std::string query_id;  // empty: the server generates one
  ClientInfo client_info;
  const QuerySettings* settings = nullptr;  // nullptr: none
  QueryStage stage = QueryStage::kComplete;
  bool compression = false;  // Data blocks in both directions are compressed frames
  std::string_view query;
};
void WriteQuery(WireWriter& out, const QueryPacket& query, uint64_t revision);

// Data packet with an uncompressed block body. For a compressed body, write the packet header
// with WriteDataHeader, serialize the block separately and append it through FrameCodec.
void WriteDataHeader(WireWriter& out, std::string_view table_name = "");
void WriteCancel(WireWriter& out);
void WritePing(WireWriter& out);

// ---- server -> client -------------------------------------------------------------------

struct ServerHello {
  std::string name;  // "ClickHouse"
  uint64_t version_major = 0;
  uint64_t version_minor = 0;
  uint64_t version_patch = 0;  // the server's revision if it is too old to send one
  uint64_t revision = 0;       // the server's own revision, before negotiation
  std::string timezone;        // empty if the server is too old to send it
  std::string display_name;
};
// Reads the body of a Hello packet (after its type). `client_revision` is what we announced:
// the server includes fields up to min(client_revision, its own revision).
ServerHello ReadServerHello(WireReader& in, uint64_t client_revision);

// One level of a server exception; nested causes follow in order.
struct ServerException {
  int32_t code = 0;
  std::string name;     // "DB::Exception"
  std::string message;  // the server's display text
  std::string stack_trace;
};
std::vector<ServerException> ReadException(WireReader& in);
// The Error a server exception becomes: kServer with the outermost code as server_code and a
// message holding every level (code, name, message; stack traces dropped), prefixed by `peer`.
Error ServerExceptionError(const std::vector<ServerException>& chain, std::string_view peer);

struct Progress {
  uint64_t read_rows = 0;
  uint64_t read_bytes = 0;
  uint64_t total_rows_to_read = 0;
  uint64_t written_rows = 0;   // revision 54420+
  uint64_t written_bytes = 0;  // revision 54420+
  // Servers send increments; this adds one to a running total.
  void Add(const Progress& delta);
};
Progress ReadProgress(WireReader& in, uint64_t revision);

struct ProfileInfo {
  uint64_t rows = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
  bool applied_limit = false;
  uint64_t rows_before_limit = 0;
  bool calculated_rows_before_limit = false;
};
ProfileInfo ReadProfileInfo(WireReader& in);

// TableColumns: sent before an INSERT's header block; `description` is the table's column list
// with defaults, in ClickHouse's ColumnsDescription text form.
struct TableColumns {
  std::string table_name;
  std::string description;
};

// One decoded server packet. Only the member matching `type` is meaningful.
struct ServerPacketData {
  ServerPacket type = ServerPacket::kEndOfStream;
  std::string table_name;  // Data/Totals/Extremes/Log/ProfileEvents
  Block block;             // Data/Totals/Extremes/Log/ProfileEvents
  std::vector<ServerException> exception;
  Progress progress;
  ProfileInfo profile_info;
  TableColumns table_columns;
  ServerHello hello;  // a Hello has no place after the handshake; kept for error messages
};

// Reads server packets after the handshake, for one connection. Data, Totals and Extremes
// blocks go through a DecompressingReader when the current query uses compression; Log and
// ProfileEvents blocks are never compressed at the revisions we speak.
class PacketReader {
 public:
  PacketReader(WireReader& source, uint64_t revision, FrameLimits limits, std::string peer);

  // Compression of the current query's Data blocks; also drops any decompressed leftovers.
  void StartQuery(bool compressed);
  // Reads the next packet. Packet types that never come to a client at our revision (tables
  // status, part UUIDs, read tasks, ...) and unknown types throw Error(kProtocol).
  void Next(ServerPacketData& packet);

  uint64_t revision() const { return revision_; }

 private:
  Block ReadDataBlock(bool may_be_compressed, const char* what);

  WireReader& source_;
  uint64_t revision_;
  std::string peer_;
  DecompressingReader decompressing_;
  bool compressed_ = false;
};

}  // namespace rowbridge::clickhouse
