// The small events around transactions and statements: ROTATE, XID, INTVAR, RAND, USER_VAR,
// HEARTBEAT (v1 and v2), ROWS_QUERY, MariaDB ANNOTATE_ROWS, the LOAD DATA blocks and INCIDENT.
// Views point into the event bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "binlog/event.h"
#include "binlog/format_description.h"

namespace rowbridge::binlog {

struct RotateEvent {
  uint64_t position = 4;  // where to continue in the next file
  std::string_view next_file;
};
// MariaDB quirk: a ROTATE that precedes the FDE (the fake one a stream starts with) may carry a
// CRC32 even though the decoder does not know checksums are on yet; `maybe_checksummed` strips
// 4 trailing bytes when they are the CRC32 of the event.
RotateEvent ParseRotateEvent(const Event& event, const FormatDescription& format,
                             bool maybe_checksummed = false);

uint64_t ParseXidEvent(const Event& event);

struct IntvarEvent {
  uint8_t type = 0;  // 1 = LAST_INSERT_ID, 2 = INSERT_ID
  uint64_t value = 0;
};
IntvarEvent ParseIntvarEvent(const Event& event);

struct RandEvent {
  uint64_t seed1 = 0, seed2 = 0;
};
RandEvent ParseRandEvent(const Event& event);

struct UserVarEvent {
  std::string_view name;
  bool is_null = true;
  uint8_t value_type = 0;  // Item_result: 0 STRING, 1 REAL, 2 INT, 4 DECIMAL
  uint32_t charset = 0;
  std::string_view value;
  uint8_t flags = 0;  // bit 0: unsigned
};
UserVarEvent ParseUserVarEvent(const Event& event);

struct HeartbeatEvent {
  std::string_view log_file;
  uint64_t log_position = 0;  // v2 carries it in the body; v1 only in the header's log_pos
};
HeartbeatEvent ParseHeartbeatEvent(const Event& event);

// ROWS_QUERY (MySQL) and ANNOTATE_ROWS (MariaDB): the statement behind the rows events.
std::string_view ParseRowsQueryText(const Event& event);

// BEGIN_LOAD_QUERY / APPEND_BLOCK: a block of the loaded file.
struct LoadBlockEvent {
  uint32_t file_id = 0;
  std::string_view data;
};
LoadBlockEvent ParseLoadBlockEvent(const Event& event);

struct IncidentEvent {
  uint16_t type = 0;
  std::string_view message;
};
IncidentEvent ParseIncidentEvent(const Event& event);

}  // namespace rowbridge::binlog
