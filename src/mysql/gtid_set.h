// Replication positions as global transaction ids.
//
// MysqlGtidSet: a MySQL GTID set, text form "uuid:1-5:7,uuid2:tag:1-3" (tags from MySQL 8.3/8.4;
// an untagged GTID is "uuid:n", a tagged one "uuid:tag:n"). Intervals are kept sorted, disjoint
// and coalesced. Encode() gives the binary form COM_BINLOG_DUMP_GTID carries.
//
// MariadbGtidPosition: MariaDB's position, one "domain-server-sequence" per replication domain
// ("0-1-100,1-2-7"), as in @@gtid_binlog_pos and @slave_connect_state.
//
// Parse functions throw Error(kInvalidArgument) naming the bad text.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::mysql {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // "3e11fa47-71ca-11e1-9e33-c80aa9429562" (case-insensitive).
  static Uuid Parse(std::string_view text);
  std::string ToString() const;  // lowercase, dashed
  auto operator<=>(const Uuid&) const = default;
};

struct GtidInterval {
  uint64_t first = 0;  // inclusive
  uint64_t last = 0;   // inclusive
  bool operator==(const GtidInterval&) const = default;
};

class MysqlGtidSet {
 public:
  // Largest transaction number MySQL issues (2^63 - 1).
  static constexpr uint64_t kMaxGno = (uint64_t{1} << 63) - 1;

  // Empty or whitespace-only text is the empty set. Whitespace and newlines between elements are
  // accepted (@@gtid_executed contains ",\n").
  static MysqlGtidSet Parse(std::string_view text);
  std::string ToString() const;

  // `tag` is empty for untagged GTIDs; it is matched case-insensitively (stored lowercase).
  void Add(const Uuid& uuid, std::string_view tag, uint64_t gno) { Add(uuid, tag, gno, gno); }
  void Add(const Uuid& uuid, std::string_view tag, uint64_t first, uint64_t last);
  bool Contains(const Uuid& uuid, std::string_view tag, uint64_t gno) const;
  void Merge(const MysqlGtidSet& other);

  bool empty() const { return sets_.empty(); }
  bool HasTags() const;
  // Intervals of one uuid/tag, sorted; empty if none.
  std::vector<GtidInterval> Intervals(const Uuid& uuid, std::string_view tag = {}) const;

  // The binary encoding of COM_BINLOG_DUMP_GTID: untagged format when no tag is present (readable
  // by every MySQL 5.6+), else the tagged format of MySQL 8.3+.
  std::string Encode() const;

  bool operator==(const MysqlGtidSet&) const = default;

 private:
  struct Key {
    Uuid uuid;
    std::string tag;
    auto operator<=>(const Key&) const = default;
  };
  static void Insert(std::vector<GtidInterval>& intervals, uint64_t first, uint64_t last);

  std::map<Key, std::vector<GtidInterval>> sets_;
};

struct MariadbGtid {
  uint32_t domain_id = 0;
  uint32_t server_id = 0;
  uint64_t sequence = 0;

  static MariadbGtid Parse(std::string_view text);  // "0-1-100"
  std::string ToString() const;
  bool operator==(const MariadbGtid&) const = default;
};

class MariadbGtidPosition {
 public:
  // "" is the empty position; two GTIDs of one domain are an error.
  static MariadbGtidPosition Parse(std::string_view text);
  std::string ToString() const;  // sorted by domain

  // Records `gtid` as the latest of its domain.
  void Update(const MariadbGtid& gtid) { domains_[gtid.domain_id] = gtid; }
  std::optional<MariadbGtid> Find(uint32_t domain_id) const;
  bool empty() const { return domains_.empty(); }
  size_t size() const { return domains_.size(); }
  std::vector<MariadbGtid> gtids() const;

  bool operator==(const MariadbGtidPosition&) const = default;

 private:
  std::map<uint32_t, MariadbGtid> domains_;
};

}  // namespace rowbridge::mysql
