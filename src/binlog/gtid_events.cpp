#include "binlog/gtid_events.h"

#include <fmt/format.h>

#include "binlog/serialization_varlen.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {

Uuid ReadUuid(ByteReader& r) {
  Uuid u;
  std::string_view b = r.Bytes(16, "UUID");
  for (size_t i = 0; i < 16; ++i) u[i] = static_cast<uint8_t>(b[i]);
  return u;
}

// MySQL's packed integer (net_field_length): 1, 3, 4 or 9 bytes.
uint64_t ReadPacked(ByteReader& r, const char* what) {
  uint8_t first = r.U8(what);
  if (first < 251) return first;
  if (first == 252) return r.U16(what);
  if (first == 253) return r.U24(what);
  if (first == 254) return r.U64(what);
  r.Corrupt(fmt::format("invalid {} prefix 0x{:02x}", what, first));
}

void ParseUntagged(ByteReader& r, GtidEvent& g) {
  g.flags = r.U8("GTID flags");
  g.sid = ReadUuid(r);
  g.gno = static_cast<int64_t>(r.U64("GNO"));
  if (r.remaining() >= 17) {
    uint8_t lt_type = r.U8("logical timestamp type");
    if (lt_type == 2) {
      g.has_logical_clock = true;
      g.last_committed = static_cast<int64_t>(r.U64("last_committed"));
      g.sequence_number = static_cast<int64_t>(r.U64("sequence_number"));
    } else {
      r.Corrupt(fmt::format("unknown GTID logical timestamp type {}", lt_type));
    }
  }
  if (r.remaining() >= 7) {
    constexpr uint64_t kHighBit = uint64_t{1} << 55;
    uint64_t ts = r.UInt(7, "immediate commit timestamp");
    g.immediate_commit_timestamp = ts & ~kHighBit;
    g.original_commit_timestamp =
        (ts & kHighBit) ? r.UInt(7, "original commit timestamp") : ts & ~kHighBit;
  }
  if (!r.AtEnd()) g.transaction_length = ReadPacked(r, "transaction length");
  if (r.remaining() >= 4) {
    constexpr uint32_t kHighBit = uint32_t{1} << 31;
    uint32_t v = r.U32("immediate server version");
    g.immediate_server_version = v & ~kHighBit;
    g.original_server_version = (v & kHighBit) ? r.U32("original server version") : v & ~kHighBit;
  }
  if (r.remaining() >= 8) g.commit_group_ticket = r.U64("commit group ticket");
}

void ParseTagged(ByteReader& outer, GtidEvent& g) {
  size_t start = outer.position();
  uint8_t version = outer.U8("serialization version");
  (void)version;  // newer versions only add fields, which we may ignore
  uint64_t payload_size = ReadVarlenUnsigned(outer, "payload size");
  uint64_t last_non_ignorable = ReadVarlenUnsigned(outer, "last non-ignorable field id");
  size_t consumed = outer.position() - start;
  if (payload_size < consumed || payload_size - consumed > outer.remaining()) {
    outer.Corrupt(fmt::format("tagged GTID payload size {} does not fit the event", payload_size));
  }
  uint64_t fields_offset = outer.offset();
  ByteReader r(outer.Bytes(payload_size - consumed, "tagged GTID fields"), fields_offset,
               outer.context());
  bool have_original_ts = false, have_original_version = false;
  while (!r.AtEnd()) {
    uint64_t field = ReadVarlenUnsigned(r, "field id");
    switch (field) {
      case 0:
        g.flags = static_cast<uint8_t>(ReadVarlenUnsigned(r, "GTID flags"));
        break;
      case 1:
        for (auto& b : g.sid) {
          uint64_t v = ReadVarlenUnsigned(r, "UUID byte");
          if (v > 255) r.Corrupt(fmt::format("UUID byte value {} out of range", v));
          b = static_cast<uint8_t>(v);
        }
        break;
      case 2:
        g.gno = ReadVarlenSigned(r, "GNO");
        break;
      case 3: {
        uint64_t n = ReadVarlenUnsigned(r, "tag length");
        if (n > r.remaining()) r.Corrupt("tag overruns the event");
        g.tag.assign(r.Bytes(static_cast<size_t>(n), "tag"));
        break;
      }
      case 4:
        g.has_logical_clock = true;
        g.last_committed = ReadVarlenSigned(r, "last_committed");
        break;
      case 5:
        g.has_logical_clock = true;
        g.sequence_number = ReadVarlenSigned(r, "sequence_number");
        break;
      case 6:
        g.immediate_commit_timestamp = ReadVarlenUnsigned(r, "immediate commit timestamp");
        break;
      case 7:
        g.original_commit_timestamp = ReadVarlenUnsigned(r, "original commit timestamp");
        have_original_ts = true;
        break;
      case 8:
        g.transaction_length = ReadVarlenUnsigned(r, "transaction length");
        break;
      case 9:
        g.immediate_server_version = static_cast<uint32_t>(ReadVarlenUnsigned(r, "server version"));
        break;
      case 10:
        g.original_server_version = static_cast<uint32_t>(ReadVarlenUnsigned(r, "server version"));
        have_original_version = true;
        break;
      case 11:
        g.commit_group_ticket = ReadVarlenUnsigned(r, "commit group ticket");
        break;
      default:
        if (field <= last_non_ignorable) {
          Fail(ErrorCode::kUnsupported,
               "{} at offset {}: tagged GTID event has unknown mandatory field {}", r.context(),
               r.offset(), field);
        }
        // An ignorable field from a newer server; its size is unknown, so stop here.
        r.Skip(r.remaining());
        break;
    }
  }
  if (!have_original_ts) g.original_commit_timestamp = g.immediate_commit_timestamp;
  if (!have_original_version) g.original_server_version = g.immediate_server_version;
}

}  // namespace

std::string FormatUuid(const Uuid& u) {
  std::string s;
  s.reserve(36);
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[u[i] >> 4]);
    s.push_back(kHex[u[i] & 15]);
  }
  return s;
}

std::string GtidEvent::ToString() const {
  if (anonymous) return "ANONYMOUS";
  if (tag.empty()) return fmt::format("{}:{}", FormatUuid(sid), gno);
  return fmt::format("{}:{}:{}", FormatUuid(sid), tag, gno);
}

GtidEvent ParseGtidEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  GtidEvent g;
  g.anonymous = event.type() == EventType::kAnonymousGtid;
  if (event.type() == EventType::kGtidTagged) {
    ParseTagged(r, g);
  } else {
    ParseUntagged(r, g);
  }
  return g;
}

std::vector<GtidSetEntry> ParsePreviousGtids(const Event& event) {
  ByteReader r = event.BodyReader();
  uint64_t header = r.U64("GTID set header");
  bool tagged = (header >> 56) != 0;
  uint64_t count =
      tagged ? (header >> 8) & ((uint64_t{1} << 48) - 1) : header & ((uint64_t{1} << 56) - 1);
  if (count > r.remaining() / 24 + 1)
    r.Corrupt(fmt::format("GTID set of {} UUIDs overruns the event", count));
  std::vector<GtidSetEntry> set;
  set.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    GtidSetEntry e;
    e.sid = ReadUuid(r);
    if (tagged) {
      uint64_t n = ReadVarlenUnsigned(r, "tag length");
      if (n > r.remaining()) r.Corrupt("GTID tag overruns the event");
      e.tag.assign(r.Bytes(static_cast<size_t>(n), "GTID tag"));
    }
    uint64_t intervals = r.U64("interval count");
    if (intervals > r.remaining() / 16)
      r.Corrupt(fmt::format("{} GTID intervals overrun the event", intervals));
    for (uint64_t k = 0; k < intervals; ++k) {
      int64_t start = static_cast<int64_t>(r.U64("interval start"));
      int64_t end = static_cast<int64_t>(r.U64("interval end"));  // exclusive on the wire
      e.intervals.push_back({start, end - 1});
    }
    set.push_back(std::move(e));
  }
  return set;
}

std::string FormatGtidSet(const std::vector<GtidSetEntry>& set) {
  std::string out;
  for (const auto& e : set) {
    if (!out.empty()) out += ',';
    out += FormatUuid(e.sid);
    if (!e.tag.empty()) fmt::format_to(std::back_inserter(out), ":{}", e.tag);
    for (const auto& iv : e.intervals) {
      if (iv.start == iv.end) {
        fmt::format_to(std::back_inserter(out), ":{}", iv.start);
      } else {
        fmt::format_to(std::back_inserter(out), ":{}-{}", iv.start, iv.end);
      }
    }
  }
  return out;
}

std::string MariaGtid::ToString() const {
  return fmt::format("{}-{}-{}", domain_id, server_id, seq_no);
}

MariaGtidEvent ParseMariaGtidEvent(const Event& event) {
  ByteReader r = event.BodyReader();
  MariaGtidEvent g;
  g.gtid.seq_no = r.U64("GTID sequence number");
  g.gtid.domain_id = r.U32("GTID domain id");
  g.gtid.server_id = event.header.server_id;
  g.flags2 = r.U8("GTID flags");
  g.standalone = g.flags2 & 0x01;
  if (g.flags2 & 0x02) g.commit_id = r.U64("GTID commit id");
  return g;
}

std::vector<MariaGtid> ParseMariaGtidList(const Event& event) {
  ByteReader r = event.BodyReader();
  uint32_t count = r.U32("GTID list count") & 0x0fffffff;  // top 4 bits are flags
  if (count > r.remaining() / 16)
    r.Corrupt(fmt::format("GTID list of {} entries overruns the event", count));
  std::vector<MariaGtid> list(count);
  for (auto& g : list) {
    g.domain_id = r.U32("GTID domain id");
    g.server_id = r.U32("GTID server id");
    g.seq_no = r.U64("GTID sequence number");
  }
  return list;
}

std::string_view ParseBinlogCheckpoint(const Event& event) {
  ByteReader r = event.BodyReader();
  uint32_t n = r.U32("checkpoint file name length");
  return r.Bytes(n, "checkpoint file name");
}

}  // namespace rowbridge::binlog
