#include "binlog/control_events.h"

#include "binlog/checksum.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {

uint64_t ReadPacked(ByteReader& r, const char* what) {
  uint8_t first = r.U8(what);
  if (first < 251) return first;
  if (first == 252) return r.U16(what);
  if (first == 253) return r.U24(what);
  if (first == 254) return r.U64(what);
  r.Corrupt(fmt::format("invalid {} prefix 0x{:02x}", what, first));
}

}  // namespace

RotateEvent ParseRotateEvent(const Event& event, const FormatDescription& format,
                             bool maybe_checksummed) {
  ByteReader r = event.BodyReader();
  RotateEvent rot;
  uint8_t post_header = format.PostHeaderLength(EventType::kRotate);
  if (post_header == 0) post_header = 8;
  rot.position = r.U64("rotate position");
  if (post_header > 8) r.Skip(post_header - 8, "rotate post-header");
  rot.next_file = r.Rest();
  if (maybe_checksummed && rot.next_file.size() > 4 &&
      event.body.size() == event.bytes.size() - kEventHeaderSize) {
    auto* b = reinterpret_cast<const uint8_t*>(event.bytes.data());
    size_t n = event.bytes.size() - 4;
    uint32_t stored = b[n] | b[n + 1] << 8 | b[n + 2] << 16 | static_cast<uint32_t>(b[n + 3]) << 24;
    if (stored == Crc32(b, n)) rot.next_file.remove_suffix(4);
  }
  return rot;
}

uint64_t ParseXidEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  return r.U64("xid");
}

IntvarEvent ParseIntvarEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  IntvarEvent e;
  e.type = r.U8("intvar type");
  e.value = r.U64("intvar value");
  return e;
}

RandEvent ParseRandEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  RandEvent e;
  e.seed1 = r.U64("rand seed1");
  e.seed2 = r.U64("rand seed2");
  return e;
}

UserVarEvent ParseUserVarEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  UserVarEvent e;
  uint32_t name_len = r.U32("user variable name length");
  e.name = r.Bytes(name_len, "user variable name");
  e.is_null = r.U8("user variable is_null") != 0;
  if (e.is_null) return e;
  e.value_type = r.U8("user variable type");
  e.charset = r.U32("user variable charset");
  uint32_t value_len = r.U32("user variable length");
  e.value = r.Bytes(value_len, "user variable value");
  if (!r.AtEnd()) e.flags = r.U8("user variable flags");
  return e;
}

HeartbeatEvent ParseHeartbeatEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  HeartbeatEvent h;
  h.log_position = event.header.log_pos;
  if (event.type() == EventType::kHeartbeat) {
    h.log_file = r.Rest();
    return h;
  }
  // v2: (type, length, value) fields with packed integers, ended by type 0.
  while (!r.AtEnd()) {
    uint64_t type = ReadPacked(r, "heartbeat field type");
    if (type == 0) break;
    uint64_t len = ReadPacked(r, "heartbeat field length");
    if (len > r.remaining()) r.Corrupt("heartbeat field overruns the event");
    uint64_t at = r.offset();
    std::string_view value = r.Bytes(static_cast<size_t>(len), "heartbeat field");
    if (type == 1) {
      h.log_file = value;
    } else if (type == 2) {
      ByteReader v(value, at, r.context());
      h.log_position = ReadPacked(v, "heartbeat log position");
    }
  }
  return h;
}

std::string_view ParseRowsQueryText(const Event& event) {
  ByteReader r = event.BodyReader();
  if (event.type() == EventType::kRowsQuery) r.Skip(1, "rows query length byte");
  return r.Rest();
}

LoadBlockEvent ParseLoadBlockEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  LoadBlockEvent e;
  e.file_id = r.U32("load file id");
  e.data = r.Rest();
  return e;
}

IncidentEvent ParseIncidentEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  IncidentEvent e;
  e.type = r.U16("incident type");
  if (!r.AtEnd()) {
    uint8_t n = r.U8("incident message length");
    e.message = r.Bytes(n, "incident message");
  }
  return e;
}

}  // namespace rowbridge::binlog
