// BinlogWindow: the row changes of one table between two binlog positions, for the reconciliation
// of a chunk (reconcile.h). It keeps one replication connection open and reads forward: each
// ReadUntil(to) returns the table's row changes after the previous end, up to and including the
// transaction ending at `to` (a position SHOW MASTER STATUS or a consistent snapshot gave, so a
// transaction boundary).
//
// The connection dumps with its own server_id (distinct from the pipeline's and from the other
// readers'), non-registered. Row images are copied into the caller's RowArena, decoded with the
// TABLE_MAP's column definitions enriched with the known names (tables::EnrichFromSchema). A
// TABLE_MAP whose columns differ from the known ones, or a statement that may change the table's
// columns or rows unseen (ALTER, RENAME, TRUNCATE, DROP, statement-logged DML:
// tables::ClassifyStatement), means the table changed while it was copied: Error(kSourceChanged)
// naming it (the copy of that table must start over after the change).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "binlog/binlog_event_reader.h"
#include "binlog/row_cursor.h"
#include "mysql/connection.h"
#include "mysql/replication_event_source.h"
#include "snapshot/reconcile.h"
#include "snapshot/row_arena.h"
#include "snapshot/snapshot_state.h"

namespace rowbridge::snapshot {

class BinlogWindow {
 public:
  BinlogWindow(mysql::ConnectOptions options, uint32_t server_id, std::string database,
               std::string table, std::vector<binlog::ColumnDef> known_columns);
  ~BinlogWindow();

  // Reads the table's changes in (from, to] into `arena`/`out` (both cleared first). `from` must be
  // where the previous call ended, or any position for the first call (a new stream starts there).
  void Read(const BinlogPoint& from, const BinlogPoint& to, RowArena& arena,
            std::vector<WindowChange>& out);

  // The column definitions window cells point at (stable while the window lives).
  uint64_t events_read() const { return events_read_; }

 private:
  void Open(const BinlogPoint& from);
  const binlog::TableInfo* Decoded(const binlog::TableInfo& map);
  // Throws Error(kSourceChanged) when the QUERY `event` may change the table.
  void CheckStatement(const binlog::Event& event);

  mysql::ConnectOptions options_;
  uint32_t server_id_;
  std::string database_;
  std::string table_;
  std::string label_;
  std::vector<binlog::ColumnDef> known_;

  std::unique_ptr<mysql::ReplicationEventSource> source_;
  std::unique_ptr<binlog::BinlogEventReader> events_;
  BinlogPoint at_;
  binlog::RowCursor cursor_;
  std::string scratch_;
  // Enriched copies of the TABLE_MAPs seen, by the cache entry they came from. Kept for the
  // window's lifetime: cells of earlier reads may point at them until the caller is done.
  std::vector<std::pair<const binlog::TableInfo*, std::unique_ptr<binlog::TableInfo>>> decoded_;
  std::vector<std::shared_ptr<const binlog::TableInfo>> maps_;  // keeps cache entries alive
  uint64_t events_read_ = 0;
};

}  // namespace rowbridge::snapshot
