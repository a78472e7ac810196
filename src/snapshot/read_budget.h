// The copy's memory budget (snapshot.memory_limit; docs/snapshot.md, "Memory"), spent by sizing
// each chunk SELECT (a "read") in bytes rather than rows.
//
// What the copy holds of a table's rows at once is a few reads' worth: the row packets of the
// read in progress (kept to rebuild its block should the binlog window touch its keys), the block
// they are converted into, the block the table's writer is sending meanwhile, and, when the table
// is read ahead on several connections, the packets of the reads in flight there. Buffers are
// reused from read to read and grow by doubling, so each can hold up to twice its content. A
// table's share of the limit (the limit over the tables copied at once) is therefore divided by
// kHeldReads(connections) to give the packet bytes of one read, and the rows of the next read come
// from the bytes per row the previous read measured.
//
// The first read of a table knows nothing of its rows: it asks for kFirstReadRows, and the cap
// grows kGrowth times with each read, so a table of rows far wider than expected is met with
// small reads. Rows much wider than the rows read just before them (in key order) can make one
// read overshoot its bytes until it is measured. A read is never below one row: a single row
// wider than the budget is held whole. INSERTs are not reads: a unit (one INSERT) collects reads
// up to snapshot.chunk_rows rows (or kMaxUnitBytes) and is sent in parts as they come
// (clickhouse::QueryOptions::all_or_nothing), so ClickHouse still gets big inserts.
#pragma once

#include <cstdint>

namespace rowbridge::snapshot {

inline constexpr uint64_t kFirstReadRows = 16;
inline constexpr uint64_t kGrowth = 4;
// Packet bytes of one INSERT at most (ClickHouse holds a unit whole until it ends).
inline constexpr uint64_t kMaxUnitBytes = uint64_t{64} << 20;

// How many reads' worth of packet bytes a table being copied holds at most, with `connections`
// source connections reading it (1: read, convert and send in turn; more: read ahead).
uint64_t HeldReads(uint32_t connections);

// The packet bytes one read of a table may take: the limit shared by `tables_at_once` tables
// (at least 1), each read on `connections` connections. At least 1.
uint64_t ReadBytes(uint64_t memory_limit, uint32_t tables_at_once, uint32_t connections);

// Rows per read, from what the previous reads of the table measured. Not thread-safe.
class ReadSizer {
 public:
  // `read_bytes` from ReadBytes; `max_rows` caps every read (a unit's rows: snapshot.chunk_rows).
  ReadSizer(uint64_t read_bytes, uint64_t max_rows);

  // The rows the next read asks for: at least 1, at most max_rows, kFirstReadRows at first and
  // kGrowth times more after each read that returned rows, and no more than read_bytes at the
  // bytes per row the last such read measured.
  uint64_t NextRows() const;
  // A read returned `rows` rows in `bytes` packet bytes. An empty read measures nothing.
  void Measured(uint64_t rows, uint64_t bytes);

  uint64_t read_bytes() const { return read_bytes_; }
  // 0 until a read measured it.
  uint64_t bytes_per_row() const { return bytes_per_row_; }

 private:
  uint64_t read_bytes_;
  uint64_t max_rows_;
  uint64_t ramp_ = kFirstReadRows;
  uint64_t bytes_per_row_ = 0;
};

}  // namespace rowbridge::snapshot
