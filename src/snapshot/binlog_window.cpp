#include "snapshot/binlog_window.h"

#include <spdlog/spdlog.h>
#include <strings.h>

#include "binlog/event_type.h"
#include "binlog/query_event.h"
#include "binlog/rows_event.h"
#include "common/error.h"
#include "mysql/binlog_stream.h"
#include "schema/ddl_parser.h"
#include "tables/source_schema.h"
#include "tables/statement_tables.h"

namespace rowbridge::snapshot {

BinlogWindow::BinlogWindow(mysql::ConnectOptions options, uint32_t server_id, std::string database,
                           std::string table, std::vector<binlog::ColumnDef> known_columns)
    : options_(std::move(options)),
      server_id_(server_id),
      database_(std::move(database)),
      table_(std::move(table)),
      label_(database_ + "." + table_),
      known_(std::move(known_columns)) {}

BinlogWindow::~BinlogWindow() = default;

void BinlogWindow::Open(const BinlogPoint& from) {
  events_.reset();
  source_.reset();
  auto connection = mysql::Connection::Connect(options_);
  mysql::BinlogStreamOptions o;
  o.server_id = server_id_;
  o.mode = mysql::BinlogStartMode::kFilePosition;
  o.file = from.file;
  o.position = from.position;
  o.register_replica = false;
  o.report_host = "rowbridge-snapshot";
  auto stream = mysql::BinlogStream::Start(std::move(connection), o);
  const bool crc = stream->checksum() == "CRC32";
  source_ = std::make_unique<mysql::ReplicationEventSource>(std::move(stream));
  events_ = std::make_unique<binlog::BinlogEventReader>(*source_);
  events_->decoder().SetChecksumBeforeFormat(crc ? binlog::ChecksumAlgorithm::kCrc32
                                                 : binlog::ChecksumAlgorithm::kOff);
  at_ = from;
}

const binlog::TableInfo* BinlogWindow::Decoded(const binlog::TableInfo& map) {
  for (auto& [origin, decoded] : decoded_)
    if (origin == &map) return decoded.get();
  if (auto why = tables::SchemaDifference(known_, map.map.columns)) {
    Fail(ErrorCode::kSourceChanged,
         "{} changed while it was being copied ({}); run the copy of this table again", label_,
         *why);
  }
  auto copy = std::make_unique<binlog::TableInfo>(map);
  tables::EnrichFromSchema(known_, copy->map.columns);
  decoded_.emplace_back(&map, std::move(copy));
  return decoded_.back().second.get();
}

void BinlogWindow::Read(const BinlogPoint& from, const BinlogPoint& to, RowArena& arena,
                        std::vector<WindowChange>& out) {
  arena.Clear();
  out.clear();
  if (!(from < to)) return;
  if (!events_ || !(at_ == from)) Open(from);

  struct Pending {
    mapping::RowKind kind;
    size_t before = SIZE_MAX;
    size_t after = SIZE_MAX;
  };
  std::vector<Pending> pending;
  binlog::Event event;
  while (at_ < to) {
    if (!events_->Next(event)) {
      Fail(ErrorCode::kNetwork, "the binlog stream of {} ended at {} before {}", options_.host,
           at_.ToString(), to.ToString());
    }
    ++events_read_;
    const binlog::EventType type = event.type();
    if (type == binlog::EventType::kQuery || type == binlog::EventType::kMariaQueryCompressed ||
        type == binlog::EventType::kExecuteLoadQuery) {
      CheckStatement(event);
    } else if (binlog::IsRowsEvent(type)) {
      std::string_view body = event.body;
      const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, events_->format(), scratch_);
      (void)body;
      auto map = events_->tables().FindShared(rows.table_id);
      if (map && map->map.database == database_ && map->map.table == table_) {
        maps_.push_back(map);
        const binlog::TableInfo* table = Decoded(*map);
        cursor_.Reset(rows, *table);
        while (cursor_.Next()) {
          Pending p;
          switch (rows.kind) {
            case binlog::RowsKind::kWrite:
              p.kind = mapping::RowKind::kInsert;
              p.after = arena.Add(cursor_.after());
              break;
            case binlog::RowsKind::kUpdate:
              p.kind = mapping::RowKind::kUpdate;
              p.before = arena.Add(cursor_.before());
              p.after = arena.Add(cursor_.after());
              break;
            case binlog::RowsKind::kDelete:
              p.kind = mapping::RowKind::kDelete;
              p.before = arena.Add(cursor_.before());
              break;
          }
          pending.push_back(p);
        }
      }
    }
    // Artificial events (the stream's first ROTATE, a re-sent FORMAT_DESCRIPTION) have no
    // position; every real event moves us to its end.
    if (event.header.log_pos != 0 && (event.header.flags & binlog::kEventFlagArtificial) == 0 &&
        !event.in_payload) {
      at_ = {std::string(event.file), event.end_offset};
    } else if (type == binlog::EventType::kRotate && !event.file.empty()) {
      // A rotation to the next file: the stream continues at its start.
      if (at_.file != event.file) at_ = {std::string(event.file), 4};
    }
  }
  if (to < at_) {
    Fail(ErrorCode::kInternal, "binlog window of {} passed {} (at {}): not a transaction boundary",
         label_, to.ToString(), at_.ToString());
  }
  out.reserve(pending.size());
  for (const Pending& p : pending) {
    WindowChange c;
    c.kind = p.kind;
    if (p.before != SIZE_MAX) c.before = arena.Row(p.before);
    if (p.after != SIZE_MAX) c.after = arena.Row(p.after);
    out.push_back(c);
  }
}

void BinlogWindow::CheckStatement(const binlog::Event& event) {
  const binlog::QueryEvent query = binlog::ParseQueryEvent(event, events_->format(), scratch_);
  const schema::ParseOptions parse =
      schema::ParseOptions::ForQuery(query.database, query.sql_mode.value_or(0));
  tables::StatementTables st;
  try {
    st = tables::ClassifyStatement(query.sql, query.database, parse.lex());
  } catch (const Error& e) {
    // Unreadable, so it may have changed the table: copying again is safe, going on is not.
    Fail(ErrorCode::kSourceChanged,
         "a statement at {} that cannot be read ({}) may have changed {} while it was being "
         "copied; the copy of this table runs again",
         at_.ToString(), e.what(), label_);
  }
  if (!st.changes) return;
  for (const tables::SourceTableName& name : st.tables) {
    // Names compared without case: a false match only costs a copy run again.
    if (strcasecmp(name.database.c_str(), database_.c_str()) == 0 &&
        strcasecmp(name.table.c_str(), table_.c_str()) == 0) {
      Fail(ErrorCode::kSourceChanged,
           "{} changed while it was being copied ({} at {}, which the copy cannot apply to the "
           "rows it holds); the copy of this table runs again",
           label_, st.verb, at_.ToString());
    }
  }
}

}  // namespace rowbridge::snapshot
