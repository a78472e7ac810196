#include "clickhouse/packets.h"

#include <fmt/format.h>

#include <utility>

#include "common/error.h"
#include "common/server_errors.h"

namespace rowbridge::clickhouse {
namespace {

// Bounds on server-supplied strings, so a corrupt length cannot make us allocate gigabytes.
constexpr size_t kMaxShortString = size_t{1} << 20;  // names, time zones, table names
constexpr size_t kMaxLongString = size_t{64} << 20;  // messages, stack traces, column lists
// A real exception chain is a handful of levels deep.
constexpr size_t kMaxExceptionDepth = 64;

bool HasControlCharacter(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

void WriteClientInfo(WireWriter& out, const ClientInfo& info, uint64_t revision) {
  out.Fixed<uint8_t>(1);  // query kind: initial query
  out.String("");         // initial user: the server fills in the authenticated user
  out.String("");         // initial query id: the server copies the query id
  // Initial address. Current servers parse it strictly as "ip:port" and reject an empty string;
  // clickhouse-client sends the unspecified address, as we do.
  out.String("0.0.0.0:0");
  out.Fixed<uint8_t>(1);  // interface: TCP
  out.String(info.os_user);
  out.String(info.client_hostname);
  out.String(info.client_name);
  out.VarUInt(info.version_major);
  out.VarUInt(info.version_minor);
  out.VarUInt(info.client_revision);
  if (revision >= kRevisionWithQuotaKeyInClientInfo) out.String(info.quota_key);
  if (revision >= kRevisionWithVersionPatch) out.VarUInt(info.version_patch);
}

}  // namespace

const char* ServerPacketName(uint64_t type) {
  switch (static_cast<ServerPacket>(type)) {
    case ServerPacket::kHello:
      return "Hello";
    case ServerPacket::kData:
      return "Data";
    case ServerPacket::kException:
      return "Exception";
    case ServerPacket::kProgress:
      return "Progress";
    case ServerPacket::kPong:
      return "Pong";
    case ServerPacket::kEndOfStream:
      return "EndOfStream";
    case ServerPacket::kProfileInfo:
      return "ProfileInfo";
    case ServerPacket::kTotals:
      return "Totals";
    case ServerPacket::kExtremes:
      return "Extremes";
    case ServerPacket::kTablesStatusResponse:
      return "TablesStatusResponse";
    case ServerPacket::kLog:
      return "Log";
    case ServerPacket::kTableColumns:
      return "TableColumns";
    case ServerPacket::kPartUuids:
      return "PartUUIDs";
    case ServerPacket::kReadTaskRequest:
      return "ReadTaskRequest";
    case ServerPacket::kProfileEvents:
      return "ProfileEvents";
    case ServerPacket::kMergeTreeAllRangesAnnouncement:
      return "MergeTreeAllRangesAnnouncement";
    case ServerPacket::kMergeTreeReadTaskRequest:
      return "MergeTreeReadTaskRequest";
    case ServerPacket::kTimezoneUpdate:
      return "TimezoneUpdate";
    case ServerPacket::kSshChallenge:
      return "SSHChallenge";
  }
  return "unknown";
}

void WriteClientHello(WireWriter& out, const ClientHello& hello) {
  if (hello.user.empty()) {
    Fail(ErrorCode::kInvalidArgument, "ClickHouse user name is empty (use \"default\")");
  }
  if (HasControlCharacter(hello.database) || HasControlCharacter(hello.user) ||
      HasControlCharacter(hello.password)) {
    Fail(ErrorCode::kInvalidArgument,
         "ClickHouse database, user and password must not contain control characters");
  }
  out.VarUInt(static_cast<uint64_t>(ClientPacket::kHello));
  out.String(hello.client_name);
  out.VarUInt(hello.version_major);
  out.VarUInt(hello.version_minor);
  out.VarUInt(hello.revision);
  out.String(hello.database);
  out.String(hello.user);
  out.String(hello.password);
}

void WriteQuery(WireWriter& out, const QueryPacket& query, uint64_t revision) {
  out.VarUInt(static_cast<uint64_t>(ClientPacket::kQuery));
  out.String(query.query_id);
  if (revision >= kRevisionWithClientInfo) WriteClientInfo(out, query.client_info, revision);
  if (query.settings != nullptr) {
    query.settings->Write(out, revision);
  } else {
    out.String("");  // end of settings
  }
  // (An interserver-secret hash would follow here from 54441; we never announce that revision.)
  out.VarUInt(static_cast<uint64_t>(query.stage));
  out.VarUInt(query.compression ? 1 : 0);
  out.String(query.query);
}

void WriteDataHeader(WireWriter& out, std::string_view table_name) {
  out.VarUInt(static_cast<uint64_t>(ClientPacket::kData));
  out.String(table_name);
}

void WriteCancel(WireWriter& out) {
  out.VarUInt(static_cast<uint64_t>(ClientPacket::kCancel));
}

void WritePing(WireWriter& out) {
  out.VarUInt(static_cast<uint64_t>(ClientPacket::kPing));
}

ServerHello ReadServerHello(WireReader& in, uint64_t client_revision) {
  ServerHello hello;
  hello.name = in.String(kMaxShortString);
  hello.version_major = in.VarUInt();
  hello.version_minor = in.VarUInt();
  hello.revision = in.VarUInt();
  const uint64_t revision = std::min(client_revision, hello.revision);
  if (revision >= kRevisionWithServerTimezone) hello.timezone = in.String(kMaxShortString);
  if (revision >= kRevisionWithServerDisplayName) hello.display_name = in.String(kMaxShortString);
  hello.version_patch = revision >= kRevisionWithVersionPatch ? in.VarUInt() : hello.revision;
  return hello;
}

std::vector<ServerException> ReadException(WireReader& in) {
  std::vector<ServerException> chain;
  while (true) {
    if (chain.size() == kMaxExceptionDepth) {
      Fail(ErrorCode::kCorruption, "ClickHouse exception nested more than {} levels deep",
           kMaxExceptionDepth);
    }
    ServerException& e = chain.emplace_back();
    e.code = in.Fixed<int32_t>();
    e.name = in.String(kMaxShortString);
    e.message = in.String(kMaxLongString);
    e.stack_trace = in.String(kMaxLongString);
    uint8_t has_nested = in.Fixed<uint8_t>();
    if (has_nested > 1) {
      Fail(ErrorCode::kCorruption, "ClickHouse exception: nested flag is {}, not 0 or 1",
           has_nested);
    }
    if (has_nested == 0) return chain;
  }
}

Error ServerExceptionError(const std::vector<ServerException>& chain, std::string_view peer) {
  std::string message = fmt::format("ClickHouse server {}: ", peer);
  for (size_t i = 0; i < chain.size(); ++i) {
    const ServerException& e = chain[i];
    if (i > 0) message += "; caused by: ";
    fmt::format_to(std::back_inserter(message), "Code: {}. {}: {}", e.code, e.name, e.message);
  }
  const int code = chain.empty() ? 0 : chain.front().code;
  return Error(ErrorCode::kServer, message, code, "",
               IsTransientServerError(ServerKind::kClickHouse, code) ? Transience::kTransient
                                                                     : Transience::kPermanent);
}

void Progress::Add(const Progress& delta) {
  read_rows += delta.read_rows;
  read_bytes += delta.read_bytes;
  // The total is an estimate the server refines; it sends the increase, like the others.
  total_rows_to_read += delta.total_rows_to_read;
  written_rows += delta.written_rows;
  written_bytes += delta.written_bytes;
}

Progress ReadProgress(WireReader& in, uint64_t revision) {
  Progress p;
  p.read_rows = in.VarUInt();
  p.read_bytes = in.VarUInt();
  p.total_rows_to_read = in.VarUInt();
  if (revision >= kRevisionWithClientWriteInfo) {
    p.written_rows = in.VarUInt();
    p.written_bytes = in.VarUInt();
  }
  return p;
}

ProfileInfo ReadProfileInfo(WireReader& in) {
  auto read_bool = [&in](const char* what) {
    uint8_t v = in.Fixed<uint8_t>();
    if (v > 1)
      Fail(ErrorCode::kCorruption, "ClickHouse ProfileInfo: {} is {}, not 0 or 1", what, v);
    return v == 1;
  };
  ProfileInfo info;
  info.rows = in.VarUInt();
  info.blocks = in.VarUInt();
  info.bytes = in.VarUInt();
  info.applied_limit = read_bool("applied_limit");
  info.rows_before_limit = in.VarUInt();
  info.calculated_rows_before_limit = read_bool("calculated_rows_before_limit");
  return info;
}

PacketReader::PacketReader(WireReader& source, uint64_t revision, FrameLimits limits,
                           std::string peer)
    : source_(source),
      revision_(revision),
      peer_(std::move(peer)),
      decompressing_(source, limits, fmt::format("ClickHouse {} compressed data", peer_)) {}

void PacketReader::StartQuery(bool compressed) {
  compressed_ = compressed;
  decompressing_.Reset();
}

Block PacketReader::ReadDataBlock(bool may_be_compressed, const char* what) {
  if (!may_be_compressed || !compressed_) return ReadBlock(source_, revision_);
  Block block = ReadBlock(decompressing_, revision_);
  if (!decompressing_.AtFrameBoundary()) {
    Fail(ErrorCode::kProtocol,
         "ClickHouse {}: {} block ended inside a compressed frame; the stream is out of step",
         peer_, what);
  }
  return block;
}

void PacketReader::Next(ServerPacketData& packet) {
  const uint64_t type = source_.VarUInt();
  packet.type = static_cast<ServerPacket>(type);
  switch (packet.type) {
    case ServerPacket::kData:
    case ServerPacket::kTotals:
    case ServerPacket::kExtremes:
      packet.table_name = source_.String(kMaxShortString);
      packet.block = ReadDataBlock(true, ServerPacketName(type));
      return;
    case ServerPacket::kLog:
    case ServerPacket::kProfileEvents:
      packet.table_name = source_.String(kMaxShortString);
      packet.block = ReadDataBlock(false, ServerPacketName(type));
      return;
    case ServerPacket::kException:
      packet.exception = ReadException(source_);
      return;
    case ServerPacket::kProgress:
      packet.progress = ReadProgress(source_, revision_);
      return;
    case ServerPacket::kProfileInfo:
      packet.profile_info = ReadProfileInfo(source_);
      return;
    case ServerPacket::kTableColumns:
      packet.table_columns.table_name = source_.String(kMaxShortString);
      packet.table_columns.description = source_.String(kMaxLongString);
      return;
    case ServerPacket::kPong:
    case ServerPacket::kEndOfStream:
      return;
    case ServerPacket::kHello:
    case ServerPacket::kTablesStatusResponse:
    case ServerPacket::kPartUuids:
    case ServerPacket::kReadTaskRequest:
    case ServerPacket::kMergeTreeAllRangesAnnouncement:
    case ServerPacket::kMergeTreeReadTaskRequest:
    case ServerPacket::kTimezoneUpdate:
    case ServerPacket::kSshChallenge:
      Fail(ErrorCode::kProtocol,
           "ClickHouse {}: unexpected {} packet (type {}) at protocol revision {}", peer_,
           ServerPacketName(type), type, revision_);
  }
  Fail(ErrorCode::kProtocol, "ClickHouse {}: unknown packet type {}", peer_, type);
}

}  // namespace rowbridge::clickhouse
