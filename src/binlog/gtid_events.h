// GTID events: MySQL's GTID / ANONYMOUS_GTID / GTID_TAGGED_LOG_EVENT and PREVIOUS_GTIDS (plain
// and tagged), and MariaDB's GTID, GTID_LIST and BINLOG_CHECKPOINT.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/event.h"

namespace rowbridge::binlog {

using Uuid = std::array<uint8_t, 16>;
// "3e11fa47-71ca-11e1-9e33-c80aa9429562"
std::string FormatUuid(const Uuid& uuid);

// A MySQL GTID event of any of the three kinds.
struct GtidEvent {
  bool anonymous = false;
  uint8_t flags = 0;  // bit 0: the transaction may contain statement-based events
  Uuid sid{};
  std::string tag;  // empty unless GTID_TAGGED_LOG_EVENT with a tag
  int64_t gno = 0;
  bool has_logical_clock = false;
  int64_t last_committed = 0;
  int64_t sequence_number = 0;
  // Microseconds since the epoch (MySQL 8.0.1+).
  std::optional<uint64_t> immediate_commit_timestamp;
  std::optional<uint64_t> original_commit_timestamp;
  std::optional<uint64_t> transaction_length;  // MySQL 8.0.2+
  std::optional<uint32_t> immediate_server_version;
  std::optional<uint32_t> original_server_version;
  std::optional<uint64_t> commit_group_ticket;

  // "uuid:gno", "uuid:tag:gno", or "ANONYMOUS".
  std::string ToString() const;
};

// Parses GTID (33), ANONYMOUS_GTID (34) and GTID_TAGGED_LOG_EVENT (42).
GtidEvent ParseGtidEvent(const Event& event);

struct GtidInterval {
  int64_t start = 0;  // first GNO in the interval
  int64_t end = 0;    // last GNO in the interval (inclusive)
};
struct GtidSetEntry {
  Uuid sid{};
  std::string tag;
  std::vector<GtidInterval> intervals;
};
// PREVIOUS_GTIDS in the plain (5.6–8.3) or tagged (8.4+) encoding.
std::vector<GtidSetEntry> ParsePreviousGtids(const Event& event);
// "uuid:1-13,uuid:mytag:1-2" (entries joined by commas, like @@gtid_executed without newlines).
std::string FormatGtidSet(const std::vector<GtidSetEntry>& set);

struct MariaGtid {
  uint32_t domain_id = 0;
  uint32_t server_id = 0;
  uint64_t seq_no = 0;
  std::string ToString() const;  // "0-1-42"
};

struct MariaGtidEvent {
  MariaGtid gtid;
  uint8_t flags2 = 0;
  bool standalone = false;  // FL_STANDALONE: no BEGIN/COMMIT follows (DDL)
  std::optional<uint64_t> commit_id;
};
MariaGtidEvent ParseMariaGtidEvent(const Event& event);
std::vector<MariaGtid> ParseMariaGtidList(const Event& event);
std::string_view ParseBinlogCheckpoint(const Event& event);

}  // namespace rowbridge::binlog
