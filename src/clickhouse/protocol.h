// Constants of the ClickHouse native TCP protocol: packet types in both directions, query
// stages, and the protocol revisions ("protocol versions") that switch fields on and off.
//
// Revision negotiation: the client announces a revision in its Hello, the server answers with
// its own, and from then on BOTH sides use min(client, server) to decide which optional fields
// appear in every packet. So the revision we announce fixes the newest protocol we must speak
// in full; an older server (Debian's 18.16 is 54412) simply gets fewer fields.
//
// We announce 54429 (kClientRevision). Why exactly this one:
//  - 54429 is where per-query settings start to travel as text (name, flags, value). Below it
//    each setting is written in its own binary type, so a client must know the type of every
//    setting it sends; at 54429+ any setting of any server version can be sent as a string.
//  - Everything 54429 implies is implemented (see the list below), and no revision above it
//    gives a replication client anything it needs. Announcing more would oblige us to handle,
//    for example, ProfileEvents blocks after every query (54451), a per-column serialization
//    kind byte in every block (54454) and sparse columns (54465), a Hello addendum (54458),
//    query parameters (54459), password-complexity rules and a nonce in the server Hello
//    (54461/54462), timezone-update packets (54464) and chunked packets (54470).
//  - Current servers (24.x, 25.x) still serve 54429 clients: they gate every newer field on the
//    negotiated revision, convert sparse columns to full ones and send no ProfileEvents.
//
// Fields that depend on the negotiated revision, oldest first (all handled in packets.cpp):
//   54032 kRevisionWithClientInfo          Query packet carries client info
//   54058 kRevisionWithServerTimezone      server Hello carries the server time zone
//   54060 kRevisionWithQuotaKeyInClientInfo client info carries a quota key
//   54372 kRevisionWithServerDisplayName   server Hello carries its display name
//   54401 kRevisionWithVersionPatch        server Hello and client info carry a patch version
//   54406 kRevisionWithServerLogs          server may send Log packets (if send_logs_level set)
//   54410 kRevisionWithColumnDefaults      server sends TableColumns before an INSERT's header
//   54420 kRevisionWithClientWriteInfo     Progress carries written rows and bytes
//   54429 kRevisionWithSettingsAsStrings   settings are (name, flags, text value)
// Also fixed by revision, but handled by the block reader (block.h): block info (51903) and the
// custom-serialization byte (54454, never reached at our revision).
#pragma once

#include <cstdint>

namespace rowbridge::clickhouse {

inline constexpr uint64_t kRevisionWithClientInfo = 54032;
inline constexpr uint64_t kRevisionWithServerTimezone = 54058;
inline constexpr uint64_t kRevisionWithQuotaKeyInClientInfo = 54060;
inline constexpr uint64_t kRevisionWithServerDisplayName = 54372;
inline constexpr uint64_t kRevisionWithVersionPatch = 54401;
inline constexpr uint64_t kRevisionWithServerLogs = 54406;
inline constexpr uint64_t kRevisionWithColumnDefaults = 54410;
inline constexpr uint64_t kRevisionWithClientWriteInfo = 54420;
inline constexpr uint64_t kRevisionWithSettingsAsStrings = 54429;

// The revision rowbridge announces; see the comment at the top of this file.
inline constexpr uint64_t kClientRevision = 54429;

// The oldest server we talk to. Below 54032 a Query has no client info and the server is older
// than any ClickHouse release with MergeTree features we rely on; refuse it clearly.
inline constexpr uint64_t kMinServerRevision = kRevisionWithClientInfo;

enum class ClientPacket : uint64_t {
  kHello = 0,
  kQuery = 1,
  kData = 2,
  kCancel = 3,
  kPing = 4,
};

enum class ServerPacket : uint64_t {
  kHello = 0,
  kData = 1,
  kException = 2,
  kProgress = 3,
  kPong = 4,
  kEndOfStream = 5,
  kProfileInfo = 6,
  kTotals = 7,
  kExtremes = 8,
  kTablesStatusResponse = 9,
  kLog = 10,
  kTableColumns = 11,
  kPartUuids = 12,
  kReadTaskRequest = 13,
  kProfileEvents = 14,
  kMergeTreeAllRangesAnnouncement = 15,
  kMergeTreeReadTaskRequest = 16,
  kTimezoneUpdate = 17,
  kSshChallenge = 18,
};

// "Data", "Exception", ... or "unknown".
const char* ServerPacketName(uint64_t type);

// How far the server should process the query; clients always want the final result.
enum class QueryStage : uint64_t {
  kFetchColumns = 0,
  kWithMergeableState = 1,
  kComplete = 2,
};

}  // namespace rowbridge::clickhouse
