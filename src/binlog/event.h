// One binlog event as a view over its bytes: the parsed common header and the body span. Typed
// parsers (query_event.h, rows_event.h, ...) read the body on demand, so events nobody looks at
// cost only their framing and checksum.
#pragma once

#include <cstdint>
#include <string_view>

#include "binlog/event_header.h"
#include "common/byte_reader.h"

namespace rowbridge::binlog {

struct Event {
  EventHeader header;
  std::string_view bytes;  // the whole event: header, body and checksum
  std::string_view body;   // after the common header; the checksum (if any) is excluded
  // Position of the event's first byte in its binlog file. For an event from inside a
  // TRANSACTION_PAYLOAD it is the position of the payload event itself.
  uint64_t offset = 0;
  // Position just after the event in its file (for payload events: after the payload event) —
  // what replication positions and checkpoints use.
  uint64_t end_offset = 0;
  // Base offset and name used in error messages for this event's body: normally the file
  // offset of the body; inside a payload, the offset in the decompressed payload.
  uint64_t body_offset = 0;
  std::string_view context;  // "binlog mysql-bin.000003" (owned by the decoder/reader)
  std::string_view file;     // binlog file name the event belongs to (owned by the decoder)
  bool in_payload = false;   // came out of a TRANSACTION_PAYLOAD (such events have no checksum)

  EventType type() const { return header.type; }
  ByteReader BodyReader() const { return ByteReader(body, body_offset, context); }
};

}  // namespace rowbridge::binlog
