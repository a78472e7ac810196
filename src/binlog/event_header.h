// The 19-byte common header that starts every binlog v4 event.
#pragma once

#include <cstddef>
#include <cstdint>

#include "binlog/event_type.h"
#include "common/byte_reader.h"

namespace rowbridge::binlog {

inline constexpr size_t kEventHeaderSize = 19;
// Every binlog file starts with these four bytes; the first event is at offset 4.
inline constexpr uint8_t kBinlogMagic[4] = {0xfe, 'b', 'i', 'n'};
inline constexpr size_t kBinlogMagicSize = 4;

// Header flags (LOG_EVENT_*_F).
inline constexpr uint16_t kEventFlagBinlogInUse = 0x0001;
inline constexpr uint16_t kEventFlagArtificial = 0x0020;  // e.g. the fake ROTATE of a stream

struct EventHeader {
  uint32_t timestamp = 0;  // seconds since the epoch when the statement started
  EventType type = EventType::kUnknown;
  uint32_t server_id = 0;
  uint32_t event_size = 0;  // header + body + checksum
  uint32_t log_pos = 0;     // end position of this event in the source's binlog (0 if unknown)
  uint16_t flags = 0;
};

// Reads the header from `reader`, which must be positioned at the event start.
inline EventHeader ReadEventHeader(ByteReader& reader) {
  EventHeader h;
  h.timestamp = reader.U32("event timestamp");
  h.type = static_cast<EventType>(reader.U8("event type"));
  h.server_id = reader.U32("server id");
  h.event_size = reader.U32("event size");
  h.log_pos = reader.U32("event log_pos");
  h.flags = reader.U16("event flags");
  return h;
}

}  // namespace rowbridge::binlog
