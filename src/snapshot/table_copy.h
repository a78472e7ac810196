// The copy of one table, read by read, in units. A read is one chunk SELECT at a known binlog
// point, sized to the memory budget (read_budget.h), with the table's binlog window up to that
// point reconciled into it; its rows become one block, a part of the current unit. A unit is one
// INSERT: its parts are sent as they are made (all or nothing: clickhouse::QueryOptions), and it
// ends after snapshot.chunk_rows rows read, or kMaxUnitBytes, or the table's last read. Only then
// is it recorded in flight and its INSERT ended, so the progress moves by whole units as before,
// while what the copy holds is a read or two.
//
// With one connection per table the rows go straight from the result set into the block
// (converted while the source sends the rest), and are kept as their row packets only to build
// the block again in the rare case the binlog window changed rows of that very read. With several,
// read ends are found ahead (a scan of the key index) and the next reads run on their own
// connections meanwhile; each block is then built from the kept packets, in key order.
//
// Inputs: a planned CopiedTable (run_preparation.cpp) and its progress, where the copy resumes.
// Guarantees: the table's rows up to its last read's binlog point are in the target, each unit
// whole or absent (a crash leaves at most one unit in flight, recorded: unit_writer.cpp); the
// progress says where the next read starts. Impl::Copy (table_copy.cpp) runs one per table on a
// reader thread; the functions are in table_copy.cpp, chunk_reading.cpp (the reads) and
// read_reconciliation.cpp (a read and its binlog window made into a block).
#pragma once

#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mapping/binary_cell.h"
#include "mysql/binary_row.h"
#include "snapshot/binary_rows.h"
#include "snapshot/binlog_window.h"
#include "snapshot/key_compare.h"
#include "snapshot/reconcile.h"
#include "snapshot/row_arena.h"
#include "snapshot/runner_impl.h"

namespace rowbridge::snapshot {

// A chunk read ahead on its own connection.
struct FetchedChunk {
  std::vector<std::string> lo, hi;  // key values (hex) after which and up to which; empty: open
  std::string query;
  BinaryRows rows;                               // the binary-protocol row packets
  std::vector<mysql::ColumnDefinition> columns;  // of the result set, to read them again
  std::vector<mapping::WireColumn> wire;         // how the server sent them
  BinlogPoint low, high;   // the SELECT saw the table at a point in [low, high]
  bool ends_unit = false;  // the last read of a unit, as dispatched
  std::future<void> done;
};

class SnapshotRunner::Impl::TableCopy {
 public:
  TableCopy(Impl& impl, CopiedTable& t, uint32_t reader, const TableProgress& cursor);
  // Copies the table from the cursor on, unit by unit, to its last read or a stop request.
  void Run();

 private:
  // One unit: one INSERT, the rows of one or more reads.
  struct Unit {
    uint64_t first_seq = 0;   // the first version's offset in the table's band
    uint64_t seq = 0;         // the next one's
    uint64_t chunk_rows = 0;  // rows read
    uint64_t rows = 0;        // rows sent
    uint64_t bytes = 0;       // row packet bytes read
    uint64_t inserted = 0, updated = 0, deleted = 0;
    std::vector<std::string> last_key;  // of the last read that has one
    bool last = false;
    bool recorded = false;  // recorded in flight before its block went out (one_read_units_)
  };
  // One read: a chunk SELECT, and the part of the unit it makes.
  struct Read {
    std::unique_ptr<WriteJob> part;  // its block
    uint64_t chunk_version = 0;      // the read's rows share it
    uint64_t asked = 0;              // rows the SELECT asked for (0: all, a keyless table)
    uint64_t rows = 0;               // rows it returned
    uint64_t bytes = 0;              // their packet bytes
    uint64_t sent = 0;               // rows of a keyless table sent while it was still read
    BinlogPoint low, high;           // the read saw the table at a point in [low, high]
    bool last = false;               // the table's last read
    bool ends_unit = false;          // read ahead: the unit's last read, as dispatched
    bool streamed = false;           // its rows went into the block as they came
    std::vector<std::string> last_key;
    std::unique_ptr<FetchedChunk> fetched;  // read ahead
    BinaryRows* packets = nullptr;          // the read's row packets
    const std::vector<mysql::ColumnDefinition>* columns = nullptr;
  };

  static mapping::ConversionPlan& PlansFor(CopiedTable& t, Plans& plans);
  // Compares key texts the way the source's collation does, by asking the source.
  TextCollator KeyCollator();
  // Versions of a read: its rows share the first; the emitted window changes follow, one each.
  // The two touch disjoint keys (the window's at or below lo, the read's above), so only the
  // order among each key's changes matters, and that is binlog order.
  Read NewRead(const Unit& u);

  // The reads (chunk_reading.cpp).
  // Finds the next read's end and starts it on a connection of its own. Reads are recycled:
  // their row buffers keep their capacity, so a copy does not touch fresh pages (page faults
  // were a tenth of the copy's CPU) for every read. Reads are cut so that units have limit_ rows
  // as dispatched.
  void ReadAhead();
  // The key of the read's last row, `rows` rows on from `where`; empty if fewer are left.
  void FindChunkEnd(const std::string& where, uint64_t rows, std::vector<std::string>& hi);
  // The oldest read ahead, once it is in; more are started to keep fetchers_ in flight.
  void TakeReadAhead(Read& r);
  // The next read, after the last key read, on this thread's connection straight into the block.
  // A read whose packets pass twice its bytes (rows wider than the ones measured before them) is
  // cut at that row: the rest of its rows are drained unused, and read by the next read. A
  // keyless table is one SELECT: its rows are sent in parts of the read's bytes as they come.
  void ReadChunk(Unit& u, Read& r);

  // A read reconciled with the window into its block (read_reconciliation.cpp).
  // The table's binlog changes up to the read, judged against its key range.
  void ReconcileWindow(Read& r);
  // The read's part: its rows (unless already in the block), then the emitted window changes,
  // each with its version; the unit's counts.
  void FillPart(Unit& u, Read& r);

  // The unit: its parts sent, its record, its end (table_copy.cpp).
  // Hands the read's block (if it has rows) to the table's writer as the next part of the unit's
  // INSERT, once the part before it is sent: a table holds the block being sent and the one being
  // built, no more.
  void SendPart(Unit& u, Read& r);
  UnitRecord RecordOf(const Unit& u, uint64_t rows) const;
  // A unit of one read, whose block (`rows` rows) is about to go out: recorded in flight first,
  // after the previous unit is confirmed. Through a Distributed table a block is written as soon
  // as it arrives, so the record must exist before; then a crash leaves the unit whole or absent,
  // which the next start tells by its versions.
  void RecordInFlight(Unit& u, uint64_t rows);
  void SaveInFlight(const UnitRecord& record);
  // Records the unit in flight (unless RecordInFlight did) and has its writer end its INSERT (an
  // empty unit is done at once); the writer then confirms it. The previous unit is confirmed
  // first: one unit in flight.
  void EndUnit(Unit& u);

  Impl& impl_;
  CopiedTable& t_;
  TableProgress cursor_;  // where the next read starts
  std::unique_ptr<mysql::Connection> sql_;
  std::map<std::string, KeyCollation> collation_of_;
  BinlogWindow window_;
  Reconciler reconciler_;
  mapping::BinaryRowEncoder encoder_;
  Plans plans_;
  mapping::ConversionPlan& text_plan_;
  const uint64_t limit_;  // rows per unit
  const uint32_t fetchers_;
  // On a cluster (target.cluster) a unit is one read, one block, recorded in flight before the
  // block goes out: ClickHouse forwards each block of an INSERT into a Distributed table to the
  // shards as it arrives, so a unit of several blocks cut off midway would be partly written.
  const bool one_read_units_;
  ReadSizer sizer_;

  // Read-ahead (fetchers_ > 1).
  std::vector<std::unique_ptr<mysql::Connection>> fetch_connections_;
  std::deque<std::unique_ptr<FetchedChunk>> fetching_;
  std::vector<std::unique_ptr<FetchedChunk>> spare_chunks_;
  std::vector<std::string> next_lo_;
  bool all_dispatched_ = false;
  uint64_t dispatched_ = 0;
  uint64_t dispatched_unit_rows_ = 0;  // rows dispatched for the unit being dispatched

  // Reused from read to read.
  BinaryRows chunk_;
  std::vector<mysql::ColumnDefinition> chunk_columns_;
  RowArena window_rows_, earlier_rows_;
  std::vector<WindowChange> changes_, earlier_;
  std::vector<Emitted> emitted_, window_left_;
  std::vector<std::optional<std::string_view>> fields_;
  std::vector<std::string> lo_storage_, hi_storage_;
  std::vector<binlog::Cell> lo_, hi_;
  std::future<void> part_sent_;  // the last part handed to the writer
  std::future<void> previous_;   // the last unit's end
};

}  // namespace rowbridge::snapshot
