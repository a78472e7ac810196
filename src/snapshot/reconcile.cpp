#include "snapshot/reconcile.h"

#include <algorithm>

#include "common/error.h"

namespace rowbridge::snapshot {

using binlog::Cell;
using mapping::RowKind;

Reconciler::Reconciler(std::vector<uint32_t> key_columns, TextCollator collator)
    : key_columns_(std::move(key_columns)), collator_(std::move(collator)) {}

std::span<const Cell> Reconciler::Key(std::span<const Cell> row, std::vector<Cell>& out) {
  out.clear();
  for (uint32_t index : key_columns_) {
    // Full images list every column at its index; partial ones only some, in column order.
    const Cell* found = nullptr;
    if (index < row.size() && row[index].index == index) {
      found = &row[index];
    } else {
      for (const Cell& c : row)
        if (c.index == index) found = &c;
    }
    if (found == nullptr)
      Fail(ErrorCode::kConfig,
           "a row event lacks key column {} (the copy needs binlog_row_image=FULL)", index);
    out.push_back(*found);
  }
  return out;
}

Reconciler::Region Reconciler::RegionOf(std::span<const Cell> key, const ChunkBounds& bounds) {
  if (bounds.everything_emitted) return Region::kEmitted;
  if (!bounds.lo.empty() && CompareKeys(key, bounds.lo, collator_) <= 0) return Region::kEmitted;
  if (!bounds.hi.empty() && CompareKeys(key, bounds.hi, collator_) > 0) return Region::kLater;
  return Region::kThisChunk;
}

void Reconciler::Overlay(std::span<const Cell> key, std::span<const Cell> image, bool removed) {
  auto it = std::lower_bound(overlay_.begin(), overlay_.end(), key,
                             [&](const OverlayEntry& e, std::span<const Cell> k) {
                               return CompareKeys(e.key, k, collator_) < 0;
                             });
  if (it == overlay_.end() || CompareKeys(it->key, key, collator_) != 0) {
    OverlayEntry e;
    e.key.assign(key.begin(), key.end());
    it = overlay_.insert(it, std::move(e));
  }
  it->image = image;
  it->removed = removed;
  it->order = order_++;
}

void Reconciler::Reconcile(RowArena& chunk_rows, std::span<const WindowChange> window,
                           const ChunkBounds& bounds, std::vector<Emitted>& out) {
  ReconcileWindow(window, bounds, out);
  const size_t rows = chunk_rows.size();
  for (size_t r = 0; r < rows; ++r) {
    std::span<const Cell> row = chunk_rows.Row(r);
    if (!Replaced(row)) out.push_back({Emitted::From::kChunk, RowKind::kInsert, row});
  }
  AppendWindowRows(out);
}

void Reconciler::ReconcileWindow(std::span<const WindowChange> window, const ChunkBounds& bounds,
                                 std::vector<Emitted>& out) {
  ReconcileWindow({}, window, bounds, out);
}

void Reconciler::ReconcileWindow(std::span<const WindowChange> earlier,
                                 std::span<const WindowChange> window, const ChunkBounds& bounds,
                                 std::vector<Emitted>& out) {
  out.clear();
  overlay_.clear();
  order_ = 0;
  next_overlay_ = 0;
  for (const WindowChange& change : earlier) Apply(change, bounds, nullptr);
  for (const WindowChange& change : window) Apply(change, bounds, &out);
}

void Reconciler::Apply(const WindowChange& change, const ChunkBounds& bounds,
                       std::vector<Emitted>* out) {
  std::span<const Cell> old_key, new_key;
  if (change.kind != RowKind::kInsert) old_key = Key(change.before, key_a_);
  if (change.kind != RowKind::kDelete) new_key = Key(change.after, key_b_);
  // By bytes, as the stream decides it: a key whose bytes changed is another row in the target
  // (its old row needs a delete) even when the source's collation calls both keys equal.
  const bool moved = change.kind == RowKind::kUpdate && !SameKeyBytes(old_key, new_key);
  auto emit = [&](RowKind kind, std::span<const Cell> image) {
    if (out != nullptr) out->push_back({Emitted::From::kWindow, kind, image});
  };
  if (change.kind == RowKind::kUpdate && !moved) {
    switch (RegionOf(new_key, bounds)) {
      case Region::kEmitted:
        emit(RowKind::kUpdate, change.after);
        break;
      case Region::kThisChunk:
        Overlay(new_key, change.after, false);
        break;
      case Region::kLater:
        break;
    }
    return;
  }
  if (change.kind != RowKind::kInsert) {  // DELETE, or the old key of a moving UPDATE
    switch (RegionOf(old_key, bounds)) {
      case Region::kEmitted:
        emit(RowKind::kDelete, change.before);
        break;
      case Region::kThisChunk:
        Overlay(old_key, {}, true);
        break;
      case Region::kLater:
        break;
    }
  }
  if (change.kind != RowKind::kDelete) {  // INSERT, or the new key of a moving UPDATE
    switch (RegionOf(new_key, bounds)) {
      case Region::kEmitted:
        emit(RowKind::kInsert, change.after);
        break;
      case Region::kThisChunk:
        Overlay(new_key, change.after, false);
        break;
      case Region::kLater:
        break;
    }
  }
}

bool Reconciler::Replaced(std::span<const Cell> chunk_row) {
  // Chunk rows arrive in key order and the overlay is sorted by key: one merge pass.
  if (next_overlay_ >= overlay_.size()) return false;
  std::span<const Cell> key = Key(chunk_row, key_a_);
  int cmp = -1;
  while (next_overlay_ < overlay_.size() &&
         (cmp = CompareKeys(overlay_[next_overlay_].key, key, collator_)) < 0) {
    ++next_overlay_;
  }
  return next_overlay_ < overlay_.size() && cmp == 0;
}

void Reconciler::AppendWindowRows(std::vector<Emitted>& out) const {
  // What the window left in this chunk, in the order of the changes that made it.
  std::vector<const OverlayEntry*> rest;
  for (const OverlayEntry& e : overlay_)
    if (!e.removed) rest.push_back(&e);
  std::sort(rest.begin(), rest.end(),
            [](const OverlayEntry* a, const OverlayEntry* b) { return a->order < b->order; });
  for (const OverlayEntry* e : rest)
    out.push_back({Emitted::From::kChunk, RowKind::kInsert, e->image});
}

}  // namespace rowbridge::snapshot
