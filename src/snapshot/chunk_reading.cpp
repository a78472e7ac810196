// The table copy's reads (table_copy.h): each a chunk SELECT in a transaction with a consistent
// snapshot, at a known binlog point (exact on MariaDB's transactional tables, else between low and
// high watermarks). With one connection per table the rows go straight into the block
// (ReadChunk); with several, reads are cut ahead by a key-index scan (FindChunkEnd) and run on
// connections of their own (ReadAhead), and TakeReadAhead takes them in key order.
#include <fmt/format.h>

#include <array>
#include <string>

#include "common/error.h"
#include "mapping/text_cell.h"
#include "mysql/prepared_statement.h"
#include "snapshot/chunk_sql.h"
#include "snapshot/table_copy.h"

namespace rowbridge::snapshot {

namespace {

using binlog::Cell;
using binlog::ColumnDef;

// Cells of the key values `hex` (as kept in the state), over `storage` (one string per key column).
std::vector<Cell> KeyCells(const CopiedTable& t, const std::vector<std::string>& hex,
                           std::vector<std::string>& storage) {
  std::vector<Cell> cells;
  for (size_t i = 0; i < hex.size() && i < t.key.size(); ++i) {
    Cell c;
    CellFromHex(hex[i], t.text_columns[t.key[i]], t.key[i], storage[i], c);
    cells.push_back(c);
  }
  return cells;
}

// Starts a consistent snapshot and returns its exact binlog position (MariaDB).
BinlogPoint BeginExactSnapshot(mysql::Connection& sql) {
  BinlogPoint high;
  sql.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
  auto rows = sql.QueryRows("SHOW STATUS LIKE 'binlog_snapshot_%'");
  for (auto& r : rows) {
    if (r.size() < 2 || !r[0] || !r[1]) continue;
    if (*r[0] == "Binlog_snapshot_file") high.file = *r[1];
    if (*r[0] == "Binlog_snapshot_position") high.position = std::stoull(*r[1]);
  }
  if (high.empty())
    Fail(ErrorCode::kConfig, "source {} does not report binlog_snapshot_file", sql.peer());
  return high;
}

// How the chunk SELECT's columns come in binary rows; checked against the table's columns.
std::vector<mapping::WireColumn> WireColumns(const CopiedTable& t,
                                             const mysql::BinaryResultSet& rs) {
  if (rs.column_count() != t.text_columns.size())
    Fail(ErrorCode::kProtocol, "{}: the chunk SELECT returned {} columns, {} expected", t.label,
         rs.column_count(), t.text_columns.size());
  std::vector<mapping::WireColumn> wire;
  for (size_t i = 0; i < rs.column_count(); ++i) {
    const mysql::ColumnDefinition& d = rs.columns()[i];
    wire.push_back({d.type, (d.flags & mysql::kUnsignedFlag) != 0});
    mapping::CheckWireColumn(t.text_columns[i], wire.back(),
                             t.label + "." + t.text_columns[i].name);
  }
  return wire;
}

// Reads `f.query` at a known binlog position (as the one-connection path does).
void FetchChunk(const CopiedTable& t, mysql::Connection& sql, FetchedChunk& f) {
  f.rows.Clear();
  if (t.exact_snapshot) {
    f.high = f.low = BeginExactSnapshot(sql);
  } else {
    f.low = PointOf(mysql::CurrentBinlogPosition(sql));
    sql.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
  }
  {
    mysql::PreparedStatement statement = mysql::PreparedStatement::Prepare(sql, f.query);
    mysql::BinaryResultSet rs = statement.Execute();
    f.wire = WireColumns(t, rs);
    f.columns = rs.columns();
    while (rs.Next()) f.rows.Add(rs.row());
  }
  sql.Execute("COMMIT");
  if (!t.exact_snapshot) f.high = PointOf(mysql::CurrentBinlogPosition(sql));
}

}  // namespace

std::unique_ptr<mysql::Connection> SnapshotRunner::Impl::ChunkConnection() const {
  auto sql = mysql::Connection::Connect(SourceOptions());
  sql->Execute("SET SESSION time_zone = '+00:00'");
  sql->Execute("SET SESSION character_set_results = binary");
  sql->Execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
  return sql;
}

void SnapshotRunner::Impl::TableCopy::ReadAhead() {
  std::unique_ptr<FetchedChunk> f;
  if (spare_chunks_.empty()) {
    f = std::make_unique<FetchedChunk>();
  } else {
    f = std::move(spare_chunks_.back());
    spare_chunks_.pop_back();
    f->hi.clear();
  }
  f->lo = next_lo_;
  std::vector<std::string> storage(t_.key.size());
  std::vector<Cell> lo_cells = KeyCells(t_, f->lo, storage);
  std::string where =
      lo_cells.empty() ? "" : AfterKeyCondition(t_.key_quoted, lo_cells, t_.collations);
  const uint64_t rows = std::min(sizer_.NextRows(), limit_ - dispatched_unit_rows_);
  dispatched_unit_rows_ += rows;
  f->ends_unit = dispatched_unit_rows_ >= limit_;
  if (f->ends_unit) dispatched_unit_rows_ = 0;
  FindChunkEnd(where, rows, f->hi);
  std::vector<std::string> hi_text(t_.key.size());
  std::vector<Cell> hi_cells = KeyCells(t_, f->hi, hi_text);
  if (!hi_cells.empty()) {
    where += (where.empty() ? "" : " AND ") +
             AtOrBeforeKeyCondition(t_.key_quoted, hi_cells, t_.collations);
  }
  f->query = "SELECT " + t_.select_list + " FROM " + t_.chunk_from +
             (where.empty() ? "" : " WHERE " + where) + t_.order_by;
  next_lo_ = f->hi;
  all_dispatched_ = f->hi.empty();
  const size_t slot = dispatched_++ % fetchers_;
  if (fetch_connections_.size() <= slot) fetch_connections_.push_back(impl_.ChunkConnection());
  mysql::Connection& c = *fetch_connections_[slot];
  FetchedChunk* chunk = f.get();
  const CopiedTable& t = t_;
  f->done = std::async(std::launch::async, [&t, &c, chunk] { FetchChunk(t, c, *chunk); });
  fetching_.push_back(std::move(f));
}

void SnapshotRunner::Impl::TableCopy::FindChunkEnd(const std::string& where, uint64_t rows,
                                                   std::vector<std::string>& hi) {
  const std::string query = "SELECT " + t_.key_select_list + " FROM " + t_.chunk_from +
                            (where.empty() ? "" : " WHERE " + where) + t_.order_by +
                            " LIMIT 1 OFFSET " + std::to_string(rows - 1);
  mysql::ResultSet rs = sql_->Query(query);
  while (rs.Next()) {
    std::array<uint8_t, mapping::kTextCellBufferSize> buffer;
    for (size_t i = 0; i < t_.key.size(); ++i) {
      Cell c;
      std::optional<std::string_view> text;
      if (!rs.IsNull(i)) text = rs.Field(i);
      mapping::EncodeTextCell(t_.text_columns[t_.key[i]], t_.key[i], text, buffer, t_.label, c);
      hi.push_back(CellHex(c));
    }
  }
}

void SnapshotRunner::Impl::TableCopy::TakeReadAhead(Read& r) {
  while (!all_dispatched_ && fetching_.size() < fetchers_) ReadAhead();
  r.fetched = std::move(fetching_.front());
  fetching_.pop_front();
  r.fetched->done.get();
  r.packets = &r.fetched->rows;
  r.columns = &r.fetched->columns;
  r.rows = r.packets->size();
  r.bytes = r.packets->bytes();
  sizer_.Measured(r.rows, r.bytes);
  encoder_.Bind(r.fetched->wire);
  r.low = r.fetched->low;
  r.high = r.fetched->high;
  lo_ = KeyCells(t_, r.fetched->lo, lo_storage_);
  hi_ = KeyCells(t_, r.fetched->hi, hi_storage_);
  r.last_key = r.fetched->hi;
  r.last = r.fetched->hi.empty();
  r.ends_unit = r.fetched->ends_unit;
}

void SnapshotRunner::Impl::TableCopy::ReadChunk(Unit& u, Read& r) {
  const bool keyed = !t_.key.empty();
  lo_ = KeyCells(t_, cursor_.last_key, lo_storage_);
  std::string query = "SELECT " + t_.select_list + " FROM " + t_.chunk_from;
  if (!lo_.empty()) query += " WHERE " + AfterKeyCondition(t_.key_quoted, lo_, t_.collations);
  if (keyed) {
    r.asked = std::min(sizer_.NextRows(), limit_ - u.chunk_rows);
    query += t_.order_by + " LIMIT " + std::to_string(r.asked);
  }
  const uint64_t cut_at = 2 * sizer_.read_bytes();

  r.low = cursor_.high;
  chunk_.Clear();
  if (t_.exact_snapshot) {
    r.high = BeginExactSnapshot(*sql_);
  } else {
    if (r.low.empty()) r.low = PointOf(mysql::CurrentBinlogPosition(*sql_));
    sql_->Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
  }
  bool cut = false;
  {
    mysql::PreparedStatement statement = mysql::PreparedStatement::Prepare(*sql_, query);
    mysql::BinaryResultSet rs = statement.Execute();
    encoder_.Bind(WireColumns(t_, rs));
    chunk_columns_ = rs.columns();
    uint64_t part_bytes = 0;
    while (rs.Next()) {
      if (cut) continue;
      const std::string_view packet = rs.row();
      ++r.rows;
      r.bytes += packet.size();
      if (keyed) chunk_.Add(packet);
      text_plan_.AppendRow(encoder_.EncodeRow(rs), *r.part->block,
                           {mapping::RowKind::kInsert, r.chunk_version});
      if (keyed) {
        cut = chunk_.bytes() >= cut_at;
      } else if ((part_bytes += packet.size()) >= sizer_.read_bytes()) {
        r.sent += r.part->block->rows();
        SendPart(u, r);
        r.part->block.emplace(TakeBlock(t_, text_plan_));
        part_bytes = 0;
      }
    }
  }
  r.streamed = true;
  sql_->Execute("COMMIT");
  if (!t_.exact_snapshot) r.high = PointOf(mysql::CurrentBinlogPosition(*sql_));
  if (keyed) sizer_.Measured(r.rows, r.bytes);
  r.last = !keyed || (!cut && r.rows < r.asked);
  if (!r.last) {
    chunk_.Get(chunk_.size() - 1, chunk_columns_, t_.label, fields_);
    std::span<const Cell> row = encoder_.Encode(fields_);
    for (size_t i = 0; i < t_.key.size(); ++i) r.last_key.push_back(CellHex(row[t_.key[i]]));
    hi_ = KeyCells(t_, r.last_key, hi_storage_);
  }
}

}  // namespace rowbridge::snapshot
