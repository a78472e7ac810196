// A read of the table copy reconciled with the table's binlog window (table_copy.h): the window
// (binlog_window.h) read from where the previous read's ended up to the read's point, judged by
// the read's key range (reconcile.h: the rule), and the read's block built: its rows, less those
// the window replaced or removed, plus what the window left in its range, then the changes to
// keys already copied, each with its own version.
#include <spdlog/spdlog.h>

#include "common/error.h"
#include "snapshot/table_copy.h"

namespace rowbridge::snapshot {

using binlog::Cell;

void SnapshotRunner::Impl::TableCopy::ReconcileWindow(Read& r) {
  if (r.low.empty()) r.low = r.high;  // the first read on MariaDB: exact, nothing before it
  // The window runs from where the previous read ended. A read made in parallel may have been
  // made before that point: the changes between its reading and that point are applied to its
  // own keys first (the rest of them were judged with the previous reads).
  BinlogPoint from = cursor_.high.empty() ? r.low : cursor_.high;
  // A table's first window begins where its columns were read, not at its first read: a schema
  // change in between is then seen (the window ends the copy as a source change) instead of
  // the copy handing over stale columns. An earlier start only takes a few more keys' rows from
  // the binlog instead of the read, which the reconciliation allows.
  if (cursor_.high.empty() && !impl_.columns_read_at.empty() && impl_.columns_read_at < from) {
    from = impl_.columns_read_at;
  }
  earlier_.clear();
  if (r.low < from) window_.Read(r.low, from, earlier_rows_, earlier_);
  if (r.high < from) r.high = from;
  window_.Read(from, r.high, window_rows_, changes_);
  if (t_.key.empty() && !changes_.empty() && !t_.exact_snapshot) {
    spdlog::warn(
        "snapshot {}: {} changes during the copy of this keyless table are not "
        "reconciled (docs/snapshot.md, keyless tables)",
        t_.label, changes_.size());
    changes_.clear();
  }
  ChunkBounds bounds{lo_, hi_, false};
  reconciler_.ReconcileWindow(earlier_, changes_, bounds, emitted_);
}

void SnapshotRunner::Impl::TableCopy::FillPart(Unit& u, Read& r) {
  WriteJob& job = *r.part;
  const size_t column_count = t_.text_columns.size();
  if (!r.streamed || reconciler_.TouchesChunk()) {
    // A keyless table's one read has no window of its own (it starts the table's binlog
    // window), so nothing ever touches it; its packets are not kept.
    if (r.sent > 0 || (t_.key.empty() && r.streamed))
      Fail(ErrorCode::kInternal, "{}: a keyless table's read was touched by its window", t_.label);
    // Built from the kept row packets, leaving out the rows the window replaced or removed
    // and adding what it left.
    job.block->Clear();
    for (size_t i = 0; i < r.packets->size(); ++i) {
      r.packets->Get(i, *r.columns, t_.label, fields_);
      std::span<const Cell> row = encoder_.Encode(fields_);
      if (!reconciler_.Replaced(row))
        text_plan_.AppendRow(row, *job.block, {mapping::RowKind::kInsert, r.chunk_version});
    }
    window_left_.clear();
    reconciler_.AppendWindowRows(window_left_);
    for (const Emitted& e : window_left_)
      plans_.For(e.row, column_count)
          .AppendRow(e.row, *job.block, {mapping::RowKind::kInsert, r.chunk_version});
  }
  const uint64_t chunk_out = r.sent + job.block->rows();
  u.inserted += chunk_out;
  if (chunk_out > 0) ++u.seq;
  for (const Emitted& e : emitted_) {
    (e.kind == mapping::RowKind::kInsert   ? u.inserted
     : e.kind == mapping::RowKind::kUpdate ? u.updated
                                           : u.deleted)++;
    plans_.For(e.row, column_count).AppendRow(e.row, *job.block, {e.kind, t_.base + u.seq++});
  }
  if (u.seq - u.first_seq >= kTableBand)
    Fail(ErrorCode::kInternal, "{}: the table's version band is used up", t_.label);
  u.chunk_rows += r.rows;
  u.bytes += r.bytes;
  // The next read starts after this one, its window where this one's ended.
  cursor_.next_seq = u.seq;
  cursor_.high = r.high;
  if (!r.last_key.empty()) cursor_.last_key = u.last_key = r.last_key;
}

}  // namespace rowbridge::snapshot
