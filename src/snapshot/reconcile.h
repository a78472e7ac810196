// Reconciliation of one chunk with the binlog window before it is emitted: the heart of the
// lock-free copy (docs/snapshot.md, "Consistency"). Pure: no I/O, unit-tested on its own.
//
// A table is copied chunk by chunk in key order; chunk i covers the keys in (lo, hi] (lo absent
// for the first chunk, hi absent for the last). Its window is the binlog between the previous
// chunk's high watermark and this chunk's high watermark H; its SELECT ran inside the window and
// saw the table as of some point S in it (exactly H on MariaDB, where the position of a consistent
// snapshot is known). Each row change in the window is judged by its key:
//   key <= lo (an emitted chunk)     the change is emitted as is, in binlog order: those rows are
//                                    already in the target and the stream's job starts here
//   lo < key <= hi (this chunk)      the change is applied to the chunk's rows (upsert the after
//                                    image, or remove the row), so the chunk becomes the table's
//                                    state at H whatever S was
//   key > hi (a later chunk)         dropped: that chunk's SELECT, later than H, will see it
// An UPDATE that changes the key's bytes is judged as a DELETE of the old key and an INSERT of
// the new one (also when the collation calls both equal: 'abc' -> 'ABC', 'a' -> 'a ' are two rows
// in the target, which keys by bytes, as the stream does). Regions compare keys by the source's
// collation (the chunks' ORDER BY), so a collator is needed only while bounds are set: after the
// last chunk (everything_emitted) no text key is ever compared by collation. After the last chunk
// the window rule alone (every key is "emitted") is the stream.
//
// Output order: the emitted window changes (binlog order), then the chunk's rows that no window
// change touched (key order), then the rows the window changes left in this chunk (binlog order of
// their last change). Window changes must carry full images (binlog_row_image=FULL).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "binlog/cell.h"
#include "mapping/conversion_plan.h"
#include "snapshot/key_compare.h"
#include "snapshot/row_arena.h"

namespace rowbridge::snapshot {

struct WindowChange {
  mapping::RowKind kind = mapping::RowKind::kInsert;
  std::span<const binlog::Cell> before;  // UPDATE, DELETE
  std::span<const binlog::Cell> after;   // INSERT, UPDATE
};

struct ChunkBounds {
  std::span<const binlog::Cell> lo;  // exclusive; empty = no lower bound
  std::span<const binlog::Cell> hi;  // inclusive; empty = no upper bound (the last chunk)
  // After the table's last chunk: every key is in the emitted region (the stream's rule).
  bool everything_emitted = false;
};

struct Emitted {
  enum class From : uint8_t { kWindow, kChunk };
  From from = From::kChunk;
  mapping::RowKind kind = mapping::RowKind::kInsert;
  std::span<const binlog::Cell> row;  // the image to write
};

class Reconciler {
 public:
  // `key_columns`: the key's column indices (Cell::index) in key order.
  Reconciler(std::vector<uint32_t> key_columns, TextCollator collator);

  // `chunk_rows` are in key order (the SELECT's ORDER BY) with every column; `window` in binlog
  // order. Fills `out` (cleared first). The spans in `out` point into the inputs.
  void Reconcile(RowArena& chunk_rows, std::span<const WindowChange> window,
                 const ChunkBounds& bounds, std::vector<Emitted>& out);

  // The same in steps, for a chunk whose rows are not all held at once (the copy streams them
  // into the target block and rereads them only when the window touches the chunk):
  //   1. ReconcileWindow: `out` (cleared first) gets the emitted window changes; the changes to
  //      this chunk's keys are kept;
  //   2. if TouchesChunk(): Replaced(row) for every chunk row, in key order (true: a window
  //      change replaced or removed that row, leave it out);
  //   3. AppendWindowRows: appends to `out` what the window left in this chunk.
  // Spans in `out` point into the window's images and the rows passed to Replaced.
  void ReconcileWindow(std::span<const WindowChange> window, const ChunkBounds& bounds,
                       std::vector<Emitted>& out);
  // The same, after first applying `earlier` (binlog order, all before `window`) to this chunk's
  // keys only: the window of a chunk that was read before the previous chunk's high position
  // starts where the chunk was read, but what fell before that position outside this chunk was
  // already judged with the previous chunks.
  void ReconcileWindow(std::span<const WindowChange> earlier, std::span<const WindowChange> window,
                       const ChunkBounds& bounds, std::vector<Emitted>& out);
  bool TouchesChunk() const { return !overlay_.empty(); }
  bool Replaced(std::span<const binlog::Cell> chunk_row);
  void AppendWindowRows(std::vector<Emitted>& out) const;

 private:
  enum class Region { kEmitted, kThisChunk, kLater };
  std::span<const binlog::Cell> Key(std::span<const binlog::Cell> row,
                                    std::vector<binlog::Cell>& out);
  // One change by the rules above; `out` null: only this chunk's keys count (earlier changes).
  void Apply(const WindowChange& change, const ChunkBounds& bounds, std::vector<Emitted>* out);
  Region RegionOf(std::span<const binlog::Cell> key, const ChunkBounds& bounds);
  // Records the final state of a key of this chunk (image empty = removed).
  void Overlay(std::span<const binlog::Cell> key, std::span<const binlog::Cell> image,
               bool removed);

  std::vector<uint32_t> key_columns_;
  TextCollator collator_;
  std::vector<binlog::Cell> key_a_, key_b_;
  struct OverlayEntry {
    std::vector<binlog::Cell> key;
    std::span<const binlog::Cell> image;
    bool removed = false;
    uint64_t order = 0;  // of the last change, for the output order
  };
  std::vector<OverlayEntry> overlay_;  // sorted by key
  uint64_t order_ = 0;
  size_t next_overlay_ = 0;  // the first overlay entry not below the chunk rows seen
};

}  // namespace rowbridge::snapshot
