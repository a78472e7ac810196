// Constants of the MySQL client/server protocol that more than one file needs: capability flags,
// command bytes, status flags and packet markers. Values are fixed by the protocol.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rowbridge::mysql {

// Capability flags (handshake).
inline constexpr uint32_t kClientLongPassword = 0x00000001;
inline constexpr uint32_t kClientLongFlag = 0x00000004;
inline constexpr uint32_t kClientConnectWithDb = 0x00000008;
inline constexpr uint32_t kClientProtocol41 = 0x00000200;
inline constexpr uint32_t kClientSsl = 0x00000800;
inline constexpr uint32_t kClientTransactions = 0x00002000;
inline constexpr uint32_t kClientSecureConnection = 0x00008000;
inline constexpr uint32_t kClientMultiResults = 0x00020000;
inline constexpr uint32_t kClientPluginAuth = 0x00080000;
inline constexpr uint32_t kClientConnectAttrs = 0x00100000;
inline constexpr uint32_t kClientPluginAuthLenencData = 0x00200000;
inline constexpr uint32_t kClientDeprecateEof = 0x01000000;
// MariaDB servers clear this bit (CLIENT_MYSQL) in their greeting; MySQL sets it.
inline constexpr uint32_t kClientMysql = 0x00000001;

// Command bytes.
inline constexpr uint8_t kComQuit = 0x01;
inline constexpr uint8_t kComQuery = 0x03;
inline constexpr uint8_t kComPing = 0x0e;
inline constexpr uint8_t kComBinlogDump = 0x12;
inline constexpr uint8_t kComRegisterSlave = 0x15;
inline constexpr uint8_t kComBinlogDumpGtid = 0x1e;
inline constexpr uint8_t kComStmtPrepare = 0x16;
inline constexpr uint8_t kComStmtExecute = 0x17;
inline constexpr uint8_t kComStmtClose = 0x19;

// First byte of a response packet.
inline constexpr uint8_t kOkMarker = 0x00;
inline constexpr uint8_t kAuthMoreDataMarker = 0x01;
inline constexpr uint8_t kNullMarker = 0xfb;  // NULL field in a text row
inline constexpr uint8_t kEofMarker = 0xfe;   // EOF, OK-as-EOF, or auth switch request
inline constexpr uint8_t kErrMarker = 0xff;

// Server status flags.
inline constexpr uint16_t kServerMoreResultsExist = 0x0008;
// The session's sql_mode has NO_BACKSLASH_ESCAPES.
inline constexpr uint16_t kServerNoBackslashEscapes = 0x0200;

// A packet's first byte, which tells its kind (kOkMarker, kEofMarker, kErrMarker, ...); 0 for an
// empty packet.
inline uint8_t PacketMarker(std::string_view payload) {
  return payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
}

// Packets carry at most this many payload bytes; a payload of exactly this size is followed by
// another packet continuing it.
inline constexpr size_t kMaxPacketPayload = 0xffffff;

// utf8mb4_general_ci: known to every server version we support.
inline constexpr uint8_t kCharsetUtf8mb4 = 45;

}  // namespace rowbridge::mysql
