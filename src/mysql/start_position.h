// Where a first stream starts when the operator chooses it (`rowbridge run --start-at`) instead
// of the source's current position:
//
//   now         the source's current end of binlog (what a first start does anyway)
//   earliest    the first event of the oldest binlog the source still has
//   FILE:POS    an event's position in one of the source's binlogs (SHOW BINLOG EVENTS lists them)
//   GTID_SET    right after the transactions of a GTID set: MySQL "uuid:1-100[,...]", MariaDB
//               "0-1-100[,...]"; the first transaction outside the set is found by reading the
//               source's binlog index with SHOW BINLOG EVENTS, oldest file first
//
// ResolveStartAt checks the position against the source's binlogs, so a purged or mistyped file,
// a position past a file's end, or a GTID set the source does not know is an error naming it
// before anything is written. The result carries no GTID state unless it is `now`: the stream's
// checkpoint then follows file and position until the next binlog file, whose header states it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mysql/connection.h"
#include "mysql/source_check.h"

namespace rowbridge::mysql {

struct StartAt {
  enum class Kind { kNow, kEarliest, kFilePosition, kGtidSet };
  Kind kind = Kind::kNow;
  std::string file;       // kFilePosition
  uint64_t position = 0;  // kFilePosition
  std::string gtid_set;   // kGtidSet, as written
  std::string text;       // what the operator wrote, for messages
};

// Throws Error(kInvalidArgument) naming the accepted forms.
StartAt ParseStartAt(std::string_view text);

// Throws Error(kConfig) when the source cannot start there (file not in SHOW BINARY LOGS,
// position outside the file, a GTID set of the other flavor or entirely unknown to the source).
BinlogPosition ResolveStartAt(Connection& connection, const StartAt& start);

}  // namespace rowbridge::mysql
