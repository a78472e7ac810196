// What the initial copy remembers between runs, so that a stopped or crashed copy resumes at the
// first unfinished chunk: never restarting a table, never skipping the chunk that was in flight.
//
// Per source table, one TableProgress (JSON). A chunk and the window changes emitted with it form
// a "unit" written to ClickHouse as ONE INSERT block (ClickHouse writes a received block as a
// whole). Before the block is sent, the unit is recorded as in flight (its version range, its row
// count, its high watermark and last key); after the INSERT returns, as done. On resume an
// in-flight unit is looked up in the target by its versions: all its rows there = done (the
// INSERT finished after the crash), none = redo it from its low watermark, which is always the
// previous unit's high watermark (a partial block can only come from a crashed ClickHouse writing
// a block that spans partitions; that is reported, not guessed).
//
// Versions (docs/snapshot.md, "Versions"): a copy reserves the band [base, base + 2^48) below the
// versions the stream will hand out afterwards; table number t (its place in the sorted list of
// copied tables) uses [base + t * 2^32, base + (t + 1) * 2^32), one version per unit plus one per
// window change, increasing in binlog order. The band's last 2^32 versions are no table's: the
// deletes of rows a target held before the copy that the source no longer has take the very last.
//
// Stores: the same store as the pipeline's checkpoint. ClickHouse: rows of the state table
// (`rowbridge_state` by default, same columns) with job "<job>/snapshot/<db>.<table>" and
// "<job>/snapshot"; file: `<state.path>/rowbridge-<job>.snapshot.json`, replaced atomically.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clickhouse/client.h"
#include "config/config.h"

namespace rowbridge::snapshot {

inline constexpr uint64_t kVersionBand = uint64_t{1} << 48;
inline constexpr uint64_t kTableBand = uint64_t{1} << 32;

struct BinlogPoint {
  std::string file;
  uint64_t position = 0;
  bool empty() const { return file.empty(); }
  std::string ToString() const { return file + ":" + std::to_string(position); }
  // Binlog files share a basename and grow in number ("mysql-bin.000009" < "mysql-bin.000010",
  // and "...999999" < "...1000000").
  friend bool operator<(const BinlogPoint& a, const BinlogPoint& b) {
    if (a.file.size() != b.file.size()) return a.file.size() < b.file.size();
    if (a.file != b.file) return a.file < b.file;
    return a.position < b.position;
  }
  friend bool operator==(const BinlogPoint&, const BinlogPoint&) = default;
};

struct UnitRecord {
  uint64_t first_version = 0;
  uint64_t last_version = 0;
  uint64_t rows = 0;                  // rows in the INSERT block
  uint64_t chunk_rows = 0;            // rows of the chunk (progress)
  BinlogPoint high;                   // the unit's high watermark
  std::vector<std::string> last_key;  // hex of the key cells; empty = the table's last chunk
  bool last = false;                  // the table's last chunk
};

struct TableProgress {
  std::string table;              // db.table
  uint32_t number = 0;            // t in the version band
  std::string state = "pending";  // pending | copying | copied | done
  uint64_t next_seq = 0;          // versions used so far within the table's band
  uint64_t rows_done = 0;
  uint64_t chunks_done = 0;
  BinlogPoint high;                   // where the next window starts
  std::vector<std::string> last_key;  // hex key cells of the last emitted chunk; empty = none yet
  std::optional<UnitRecord> in_flight;

  std::string ToJson() const;
  static TableProgress FromJson(std::string_view text, std::string_view origin);
};

struct RunRecord {
  // The band's first version; 0 while the band is not reserved yet (the record then only keeps
  // created_targets, saved the moment each target is created).
  uint64_t version_base = 0;
  BinlogPoint start;  // position when the copy started
  BinlogPoint end;    // where every table was brought to (set when the copy is done)
  bool done = false;
  // Target tables the copy created ("db.table", sorted): rowbridge's own, whose schema follows the
  // source's under `schema_changes: auto`.
  std::vector<std::string> created_targets;
  // Targets ("db.table", sorted) that held rows when the copy began and receive only tables it
  // copies: when it ends, their rows below version_base (the copy did not write them again: the
  // source no longer has them) are deleted, with version version_base + 2^48 - 1.
  std::vector<std::string> targets_with_earlier_rows;
  // Targets that held rows and also receive tables the copy does not copy: not cleaned.
  std::vector<std::string> unreconciled_targets;
  std::string ToJson() const;
  static RunRecord FromJson(std::string_view text, std::string_view origin);
};

class SnapshotStateStore {
 public:
  virtual ~SnapshotStateStore() = default;
  virtual std::optional<RunRecord> LoadRun() = 0;
  virtual void SaveRun(const RunRecord& run) = 0;
  virtual std::map<std::string, TableProgress> LoadTables() = 0;
  virtual void SaveTable(const TableProgress& table) = 0;  // thread-safe
  virtual std::string Describe() const = 0;
};

// The store `config.state` names, for job `job` (the pipeline's job name).
std::unique_ptr<SnapshotStateStore> MakeSnapshotStateStore(const config::Config& config,
                                                           const std::string& job);

}  // namespace rowbridge::snapshot
