// Binlog event type codes (Log_event_type) of MySQL 5.1 – 9.x and MariaDB 10.x/11.x.
#pragma once

#include <cstdint>
#include <string_view>

namespace rowbridge::binlog {

enum class EventType : uint8_t {
  kUnknown = 0,
  kStartV3 = 1,
  kQuery = 2,
  kStop = 3,
  kRotate = 4,
  kIntvar = 5,
  kLoad = 6,
  kSlave = 7,
  kCreateFile = 8,
  kAppendBlock = 9,
  kExecLoad = 10,
  kDeleteFile = 11,
  kNewLoad = 12,
  kRand = 13,
  kUserVar = 14,
  kFormatDescription = 15,
  kXid = 16,
  kBeginLoadQuery = 17,
  kExecuteLoadQuery = 18,
  kTableMap = 19,
  kPreGaWriteRows = 20,  // ROWS v0, MySQL 5.1 before GA
  kPreGaUpdateRows = 21,
  kPreGaDeleteRows = 22,
  kWriteRowsV1 = 23,
  kUpdateRowsV1 = 24,
  kDeleteRowsV1 = 25,
  kIncident = 26,
  kHeartbeat = 27,
  kIgnorable = 28,
  kRowsQuery = 29,
  kWriteRows = 30,  // ROWS v2
  kUpdateRows = 31,
  kDeleteRows = 32,
  kGtid = 33,
  kAnonymousGtid = 34,
  kPreviousGtids = 35,
  kTransactionContext = 36,
  kViewChange = 37,
  kXaPrepare = 38,
  kPartialUpdateRows = 39,
  kTransactionPayload = 40,
  kHeartbeatV2 = 41,
  kGtidTagged = 42,
  // MariaDB
  kMariaAnnotateRows = 160,
  kMariaBinlogCheckpoint = 161,
  kMariaGtid = 162,
  kMariaGtidList = 163,
  kMariaStartEncryption = 164,
  kMariaQueryCompressed = 165,
  kMariaWriteRowsCompressedV1 = 166,
  kMariaUpdateRowsCompressedV1 = 167,
  kMariaDeleteRowsCompressedV1 = 168,
  kMariaWriteRowsCompressed = 169,
  kMariaUpdateRowsCompressed = 170,
  kMariaDeleteRowsCompressed = 171,
};

// "Query", "Write_rows_v1", ... as mysqlbinlog names them; "Unknown(n)" style names are left to
// callers: this returns "Unknown" for codes it does not know.
std::string_view EventTypeName(EventType type);

// True for every WRITE/UPDATE/DELETE/PARTIAL_UPDATE rows event, in any version or compression.
bool IsRowsEvent(EventType type);

}  // namespace rowbridge::binlog
