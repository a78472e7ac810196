#include "pipeline/binlog_reader.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <cstring>

#include "binlog/control_events.h"
#include "binlog/event_source.h"
#include "binlog/gtid_events.h"
#include "binlog/query_event.h"
#include "binlog/rows_event.h"
#include "common/byte_reader.h"
#include "common/log_fields.h"
#include "common/retain_policy.h"
#include "endpoints/connection_options.h"
#include "mysql/replication_event_source.h"
#include "mysql/source_check.h"

namespace rowbridge::pipeline {

using binlog::EventType;

namespace {

mapping::RowKind RowKindOf(binlog::RowsKind kind) {
  switch (kind) {
    case binlog::RowsKind::kWrite:
      return mapping::RowKind::kInsert;
    case binlog::RowsKind::kUpdate:
      return mapping::RowKind::kUpdate;
    case binlog::RowsKind::kDelete:
      break;
  }
  return mapping::RowKind::kDelete;
}

// The scratch buffers hold a MariaDB compressed event's decompressed bytes until the next such
// event; one large one (a 100 MB row) is not kept for the rest of the run.
constexpr size_t kKeptScratchBytes = size_t{4} << 20;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) || s.front() == ';'))
    s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';'))
    s.remove_suffix(1);
  return s;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return s.size() == prefix.size() || !std::isalnum(static_cast<unsigned char>(s[prefix.size()]));
}

// The table id that starts the post-header of TABLE_MAP and rows events (4 bytes in the 5.0-era
// layout whose post-header is 6 bytes long, else 6 bytes).
uint64_t TableIdOf(const binlog::Event& event, const binlog::FormatDescription& format) {
  ByteReader r = event.BodyReader();
  return format.PostHeaderLength(event.type()) == 6 ? r.U32("table id") : r.U48("table id");
}

// The bytes a row adds to a batch, for the batch and memory bounds: its values plus the meta
// columns and per-value overhead.
size_t RowBytes(std::span<const binlog::Cell> cells) {
  size_t bytes = 16;  // meta columns
  for (const binlog::Cell& c : cells) bytes += c.size + 8;
  return bytes;
}
// The same from the bytes of a full image in the event (values with their length prefixes and
// the NULL bitmap), which the one-pass path has instead of cells.
size_t EstimatedRowBytes(size_t image_bytes, size_t columns) {
  return 16 + image_bytes + 8 * columns;
}

bool SameCell(const binlog::Cell* a, const binlog::Cell* b) {
  if (a == nullptr || b == nullptr) return true;  // absent from an image: unchanged
  if (a->is_null != b->is_null) return false;
  return a->size == b->size && (a->size == 0 || std::memcmp(a->data, b->data, a->size) == 0);
}

const binlog::Cell* CellFor(std::span<const binlog::Cell> cells, uint32_t index) {
  if (index < cells.size() && cells[index].index == index) return &cells[index];
  for (const binlog::Cell& c : cells)
    if (c.index == index) return &c;
  return nullptr;
}

}  // namespace

BinlogReader::BinlogReader(ReaderContext context) : ctx_(std::move(context)) {
  next_version_ = ctx_.start.next_version;
  read_file_ = ctx_.start.file;
  read_position_ = ctx_.start.position;
  tracked_file_ = ctx_.start.file;
}

void BinlogReader::StopAtBoundary() {
  stop_at_boundary_ = true;
}

void BinlogReader::Interrupt() {
  stopping_ = true;
  std::lock_guard lock(interrupt_mutex_);
  if (socket_ != nullptr) socket_->Interrupt();
}

std::string BinlogReader::Position(const binlog::Event& event) const {
  return fmt::format("{}:{}", event.file, event.offset);
}

schema::BinlogPosition BinlogReader::SchemaPosition(const binlog::Event& event) const {
  return {std::string(event.file), event.offset};
}

void BinlogReader::Run() {
  const config::SourceConfig& source = ctx_.config->source;
  auto connection = mysql::Connection::Connect(endpoints::SourceConnectOptions(source));
  const bool mariadb = connection->is_mariadb();

  mysql::BinlogStreamOptions options;
  options.server_id = source.server_id;
  options.report_host = endpoints::SourceReportHost(*ctx_.config);
  options.heartbeat_period = source.heartbeat_period;
  const auto period = std::max<int64_t>(1, source.heartbeat_period.count());
  options.silence_multiple =
      static_cast<int>(std::max<int64_t>(2, (source.read_timeout.count() + period - 1) / period));
  const state::Checkpoint& start = ctx_.start;
  std::string how;
  if (mariadb && start.gtid_flavor == state::GtidFlavor::kMariadb && !start.gtid.empty()) {
    options.mode = mysql::BinlogStartMode::kMariadbGtid;
    options.mariadb_gtids = mysql::MariadbGtidPosition::Parse(start.gtid);
    how = "GTID position " + start.gtid;
  } else if (!mariadb && start.gtid_flavor == state::GtidFlavor::kMysql && !start.gtid.empty()) {
    options.mode = mysql::BinlogStartMode::kMysqlGtid;
    options.mysql_gtids = mysql::MysqlGtidSet::Parse(start.gtid);
    how = "GTID set " + start.gtid;
  } else {
    options.mode = mysql::BinlogStartMode::kFilePosition;
    options.file = start.file;
    options.position = start.position;
    how = fmt::format("{}:{}", start.file, start.position);
  }
  const std::string peer = connection->peer();
  auto stream = mysql::BinlogStream::Start(std::move(connection), options);
  {
    std::lock_guard lock(interrupt_mutex_);
    socket_ = &stream->connection().tcp();
  }
  struct Unregister {
    BinlogReader* self;
    ~Unregister() {
      std::lock_guard lock(self->interrupt_mutex_);
      self->socket_ = nullptr;
      self->connected_ = false;
      self->ctx_.metrics->source_connected.Set(0);
    }
  } unregister{this};
  if (stopping_) return;
  connected_ = true;
  ctx_.metrics->source_connected.Set(1);
  {
    LogFields fields;
    fields.Position(start.file, start.position,
                    start.gtid_flavor == state::GtidFlavor::kNone ? "" : start.gtid);
    spdlog::info("reading the binlog of {} from {} (next version {})", peer, how, next_version_);
  }

  mysql::ReplicationEventSource events_source(*stream);
  binlog::BinlogEventReader events(events_source);
  events.decoder().SetChecksumBeforeFormat(events_source.checksum());
  binlog::Event event;
  try {
    while (!stopping_) {
      if (!events.Next(event)) break;
      // A clean stop ends at a transaction boundary: no transaction starts once it was asked for.
      if (stop_at_boundary_ && !in_transaction_) break;
      Handle(event, events);
    }
  } catch (const Error& e) {
    if (!IsStartGone(e)) throw;
    if (ctx_.start_gone != nullptr) *ctx_.start_gone = true;
    Fail(ErrorCode::kConfig,
         "the source {} no longer has the binlog the checkpoint resumes from ({}; {} says: {}), so "
         "the changes since then can no longer be read. To go on: `source.on_purged_position: "
         "recopy` copies every table again alongside the stream, or `rowbridge run --start-at now "
         "--move-checkpoint` streams from now on (the changes in between are missed; `rowbridge "
         "check` lists the differences, `rowbridge resnapshot` copies a table again), or start "
         "over and copy every table again (docs/running.md, \"Starting over\"). Keep binlogs "
         "longer than rowbridge may be stopped (rowbridge_binlog_retention_* metrics)",
         peer, how, peer, e.what());
  }
}

bool BinlogReader::IsStartGone(const Error& error) {
  // ER_MASTER_FATAL_ERROR_READING_BINLOG, worded for a file missing from the index (MariaDB and
  // MySQL: "Could not find first log file name in binary log index file") or for GTIDs the source
  // purged (MySQL: "...purged required binary logs...", MariaDB: "...has been purged...").
  constexpr int kFatalReadingBinlog = 1236;
  if (error.server_code() != kFatalReadingBinlog) return false;
  const std::string_view text = error.what();
  return text.find("first log file") != std::string_view::npos ||
         text.find("purged") != std::string_view::npos;
}

void BinlogReader::CountEvent(const binlog::Event& event) {
  const EventType type = event.type();
  server::Counter*& counter = event_counters_[static_cast<uint8_t>(type)];
  if (counter == nullptr) {
    std::string name(binlog::EventTypeName(type));
    if (name == "Unknown") name = fmt::format("unknown_{}", static_cast<unsigned>(type));
    counter = &ctx_.metrics->source_events.WithLabels({name});
  }
  counter->Increment();
  ctx_.metrics->source_bytes.Increment(event.bytes.size());
}

void BinlogReader::OnHeartbeat() {
  ctx_.status->RecordHeartbeat();
  {
    std::lock_guard lock(ctx_.buffers->mutex());
    caught_up_ = true;
    if (!in_transaction_) ctx_.buffers->StreamCaughtUp(true, std::chrono::steady_clock::now());
  }
  if (!in_transaction_) ServeHandOver();
}

void BinlogReader::RecordCommitTime(const binlog::Event& event) {
  const uint64_t commit_us = CommitTimeUs(event);
  ctx_.status->RecordSourceEvent(CommitTimePoint(commit_us));
  ctx_.metrics->source_last_event_time.Set(static_cast<double>(commit_us) / 1e6);
  if (event.header.log_pos != 0) {
    std::lock_guard lock(ctx_.buffers->mutex());
    last_commit_us_ = commit_us;
    last_event_received_ = std::chrono::steady_clock::now();
    caught_up_ = false;
  }
}

void BinlogReader::Handle(const binlog::Event& event, binlog::BinlogEventReader& events) {
  const EventType type = event.type();
  CountEvent(event);
  if (type == EventType::kHeartbeat || type == EventType::kHeartbeatV2) {
    OnHeartbeat();
    return;
  }
  if (type == EventType::kGtid || type == EventType::kGtidTagged ||
      type == EventType::kAnonymousGtid) {
    // Before the time below, which is then this transaction's commit time.
    OnMysqlGtid(event);
  }
  if (event.header.timestamp != 0 && !event.in_payload) RecordCommitTime(event);

  switch (type) {
    case EventType::kFormatDescription:
      if (!event.in_payload) ctx_.router->ResetRoutes();
      break;
    case EventType::kPreviousGtids:
      if (!event.in_payload) {
        std::string whole = binlog::FormatGtidSet(binlog::ParsePreviousGtids(event));
        std::lock_guard lock(ctx_.buffers->mutex());
        ctx_.tracker->SetFileGtidState(state::GtidFlavor::kMysql, std::move(whole));
      }
      break;
    case EventType::kMariaGtidList:
      if ((event.header.flags & binlog::kEventFlagArtificial) == 0) {
        // The last GTID of each domain and server; a domain's position is its newest one.
        mysql::MariadbGtidPosition whole;
        for (const binlog::MariaGtid& g : binlog::ParseMariaGtidList(event)) {
          const auto known = whole.Find(g.domain_id);
          if (!known || known->sequence < g.seq_no)
            whole.Update({g.domain_id, g.server_id, g.seq_no});
        }
        std::lock_guard lock(ctx_.buffers->mutex());
        ctx_.tracker->SetFileGtidState(state::GtidFlavor::kMariadb, whole.ToString());
      }
      break;
    case EventType::kMariaGtid: {
      binlog::MariaGtidEvent g = binlog::ParseMariaGtidEvent(event);
      transaction_gtid_ = {};
      transaction_gtid_.flavor = state::GtidFlavor::kMariadb;
      transaction_gtid_.mariadb = {g.gtid.domain_id, g.gtid.server_id, g.gtid.seq_no};
      in_transaction_ = !g.standalone;
      break;
    }
    case EventType::kQuery:
    case EventType::kMariaQueryCompressed:
    case EventType::kExecuteLoadQuery:  // statement-based LOAD DATA (its file came before it)
      OnQuery(event, events.format());
      break;
    case EventType::kXid:
    case EventType::kXaPrepare:
      Boundary(event);
      break;
    case EventType::kTableMap: {
      const uint64_t id = TableIdOf(event, events.format());
      auto map = events.tables().FindShared(id);
      if (map == nullptr) {
        Fail(ErrorCode::kInternal, "{}: TABLE_MAP for table id {} is not in the cache",
             Position(event), id);
      }
      ctx_.router->OnTableMap(id, map, SchemaPosition(event));
      break;
    }
    default:
      if (binlog::IsRowsEvent(type)) OnRows(event, events);
      break;
  }
}

void BinlogReader::OnMysqlGtid(const binlog::Event& event) {
  const binlog::GtidEvent g = binlog::ParseGtidEvent(event);
  transaction_gtid_ = {};
  if (!g.anonymous) {
    transaction_gtid_.flavor = state::GtidFlavor::kMysql;
    std::memcpy(transaction_gtid_.uuid.bytes.data(), g.sid.data(), 16);
    transaction_gtid_.tag = g.tag;
    transaction_gtid_.gno = static_cast<uint64_t>(g.gno);
  }
  transaction_commit_us_ = g.immediate_commit_timestamp.value_or(0);
}

void BinlogReader::OnQuery(const binlog::Event& event, const binlog::FormatDescription& format) {
  ReleaseIfLarger(query_scratch_, kKeptScratchBytes);
  binlog::QueryEvent q = binlog::ParseQueryEvent(event, format, query_scratch_);
  const std::string_view sql = Trim(q.sql);
  if (StartsWithNoCase(sql, "BEGIN") || StartsWithNoCase(sql, "START TRANSACTION") ||
      StartsWithNoCase(sql, "XA START") || StartsWithNoCase(sql, "XA BEGIN")) {
    in_transaction_ = true;
    return;
  }
  if (StartsWithNoCase(sql, "COMMIT") ||
      (StartsWithNoCase(sql, "ROLLBACK") && !StartsWithNoCase(sql, "ROLLBACK TO")) ||
      StartsWithNoCase(sql, "XA COMMIT") || StartsWithNoCase(sql, "XA ROLLBACK")) {
    Boundary(event);
    return;
  }
  if (StartsWithNoCase(sql, "XA END") || StartsWithNoCase(sql, "SAVEPOINT") ||
      StartsWithNoCase(sql, "ROLLBACK TO") || StartsWithNoCase(sql, "RELEASE SAVEPOINT")) {
    return;
  }
  ctx_.schema_changes->OnStatement(sql, q, SchemaPosition(event), transaction_gtid_, next_version_);
  if (ctx_.cascades != nullptr &&
      (StartsWithNoCase(sql, "CREATE") || StartsWithNoCase(sql, "ALTER") ||
       StartsWithNoCase(sql, "DROP") || StartsWithNoCase(sql, "RENAME"))) {
    ctx_.cascades->SchemaChanged();  // foreign keys may have come or gone
  }
  if (!in_transaction_) Boundary(event);
}

void BinlogReader::Boundary(const binlog::Event& event) {
  {
    std::lock_guard lock(ctx_.buffers->mutex());
    if (event.file != tracked_file_) {
      tracked_file_.assign(event.file);
      ctx_.tracker->SetFile(tracked_file_);
      read_file_ = tracked_file_;
    }
    if (ctx_.cascades != nullptr) ctx_.cascades->AtBoundary(next_version_);
    ctx_.tracker->AddBoundary(event.end_offset, next_version_, transaction_gtid_);
    read_position_ = event.end_offset;
    // Nothing more to read now: write what is buffered without waiting for max_delay.
    if (socket_ != nullptr) {
      ctx_.buffers->StreamCaughtUp(!socket_->HasInput(), std::chrono::steady_clock::now());
    }
  }
  in_transaction_ = false;
  transaction_gtid_ = {};
  if (stop_at_boundary_) stopping_ = true;
  ServeHandOver();
}

void BinlogReader::ServeHandOver() {
  if (ctx_.work_pending != nullptr && ctx_.work_pending->load()) {
    ctx_.do_work({read_file_, read_position_});
  }
  if (ctx_.desk == nullptr || !ctx_.desk->pending()) return;
  const schema::BinlogPosition at{read_file_, read_position_};
  ctx_.desk->Serve(at, [&](const HandOverDesk::Offer& offer) { ctx_.take_over(offer, at); });
}

void BinlogReader::OnRows(const binlog::Event& event, binlog::BinlogEventReader& events) {
  // Tables no rule matches cost this lookup only: their rows are never parsed or decompressed.
  const uint64_t table_id = TableIdOf(event, events.format());
  Route* route = ctx_.router->Find(table_id);
  if (route != nullptr && route->table == nullptr) return;
  ReleaseIfLarger(rows_scratch_, kKeptScratchBytes);
  const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, events.format(), rows_scratch_);
  if (route == nullptr) {
    if (rows.rows.empty()) return;  // the dummy statement-end event of old servers
    Fail(ErrorCode::kCorruption, "{}: rows event for table id {} without a TABLE_MAP before it",
         Position(event), rows.table_id);
  }
  StreamedTable& table = *route->table;
  if (table.starts_at) {
    // A table copied after the stream began: its changes before the copy's end are in the copy,
    // and take no versions (which tables are copied is in the checkpoint until it passes there,
    // so a replay hands out the same versions).
    // A resnapshot's table (counts_before_start) was streamed into its replaced target before:
    // those changes took versions then, and take them again in a replay.
    if (SchemaPosition(event) < *table.starts_at) {
      if (table.counts_before_start) CountWithoutWriting(rows, table_id, events);
      return;
    }
    table.starts_at.reset();
  }
  if (!table.stopped && table.map != route->map) {
    ctx_.router->Use(table, events.tables().FindShared(table_id), SchemaPosition(event));
  }
  if (table.stopped) {
    // A stopped table's changes still take their versions: whether a table is stopped depends
    // on more than the binlog (information_schema when it was first seen), and it must never
    // change the versions of the other tables' changes, which a replay has to hand out again.
    CountWithoutWriting(rows, table_id, events);
    return;
  }
  cursor_.Reset(rows, *table.decoded);
  const CascadeParent* cascades =
      ctx_.cascades != nullptr ? ctx_.cascades->PlanFor(table) : nullptr;
  AppendRows(table, rows.kind, CommitTimeUs(event), SchemaPosition(event), cascades);
}

void BinlogReader::CountWithoutWriting(const binlog::RowsEvent& rows, uint64_t table_id,
                                       binlog::BinlogEventReader& events) {
  const binlog::TableInfo* info = events.tables().Find(table_id);
  if (info == nullptr) return;
  cursor_.Reset(rows, *info);
  uint64_t changes = 0;
  while (cursor_.Next()) ++changes;
  std::lock_guard lock(ctx_.buffers->mutex());
  next_version_ += changes;
}

bool BinlogReader::KeyChanged(const StreamedTable& table,
                              std::span<const binlog::Cell> after) const {
  for (uint32_t k : table.key_columns) {
    const binlog::Cell* now = CellFor(after, k);
    if (now != nullptr && !SameCell(CellFor(cursor_.before(), k), now)) return true;
  }
  return false;
}

std::span<const binlog::Cell> BinlogReader::AfterWithKey(const StreamedTable& table) {
  const std::span<const binlog::Cell> after = cursor_.after();
  if (cursor_.full_images()) return after;
  bool completed = false;
  for (uint32_t k : table.key_columns) {
    if (CellFor(after, k) != nullptr) continue;
    const binlog::Cell* old = CellFor(cursor_.before(), k);
    if (old == nullptr) continue;
    if (!completed) keyed_after_.assign(after.begin(), after.end());
    completed = true;
    keyed_after_.push_back(*old);
  }
  return completed ? std::span<const binlog::Cell>(keyed_after_) : after;
}

bool BinlogReader::AppendImages(StreamedTable& table, binlog::RowsKind kind, uint64_t commit_us,
                                SteadyTime now, std::unique_lock<std::mutex>& lock) {
  TargetState& target = *table.target_state;
  const mapping::RowKind row_kind = RowKindOf(kind);
  while (!cursor_.AtEnd()) {
    const uint64_t version = next_version_++;
    if (target.PresentOf(version).rows != 0) {
      cursor_.Next();  // replayed after a restart: already in the target
      continue;
    }
    Batch* batch = ctx_.buffers->Reserve(lock, *table.group);
    if (batch == nullptr) return false;
    const size_t image_bytes = table.plan->AppendNext(cursor_, batch->block, {row_kind, version});
    Appended(table, *batch, row_kind, version,
             EstimatedRowBytes(image_bytes, table.decoded->map.columns.size()), commit_us, now);
  }
  return true;
}

bool BinlogReader::AppendChange(StreamedTable& table, binlog::RowsKind kind,
                                std::span<const binlog::Cell> after, uint64_t version, bool moved,
                                uint64_t commit_us, SteadyTime now,
                                std::unique_lock<std::mutex>& lock) {
  bool ok = true;
  TargetState& target = *table.target_state;
  const bool replica = table.target->mode == mapping::TableMode::kReplica;
  switch (kind) {
    case binlog::RowsKind::kWrite:
      if (target.PresentOf(version).rows == 0) {
        ok = Append(table, after, mapping::RowKind::kInsert, version, commit_us, now, lock);
      }
      break;
    case binlog::RowsKind::kUpdate: {
      // A key change deletes the old key (a replica tombstone, a changelog 'delete') before
      // the new key's row (a changelog 'insert': that key did not exist before).
      const TargetState::Present present = target.PresentOf(version);
      if (moved && present.removals == 0) {
        ok = Append(table, cursor_.before(), mapping::RowKind::kDelete, version, commit_us, now,
                    lock);
      }
      if (present.rows == present.removals) {
        const mapping::RowKind new_row =
            moved && !replica ? mapping::RowKind::kInsert : mapping::RowKind::kUpdate;
        ok = ok && Append(table, after, new_row, version, commit_us, now, lock);
      }
      break;
    }
    case binlog::RowsKind::kDelete:
      if (target.PresentOf(version).rows == 0) {
        ok = Append(table, cursor_.before(), mapping::RowKind::kDelete, version, commit_us, now,
                    lock);
      }
      break;
  }
  return ok;
}

void BinlogReader::AppendRows(StreamedTable& table, binlog::RowsKind kind, uint64_t commit_us,
                              const schema::BinlogPosition& at, const CascadeParent* cascades) {
  const bool replica = table.target->mode == mapping::TableMode::kReplica;
  const SteadyTime now = std::chrono::steady_clock::now();
  std::unique_lock lock(ctx_.buffers->mutex());
  // Each change is one row of one image, converted as it is decoded, without cells
  // (ConversionPlan::AppendNext), unless an UPDATE of a table with a key has to compare the keys
  // of both images: a key change is two rows, in either mode.
  const bool compare_keys = kind == binlog::RowsKind::kUpdate && !table.key_columns.empty();
  // A parent whose children cascade unlogged needs its rows' cells (cascade_repairs.h).
  if (cursor_.full_images() && !compare_keys && cascades == nullptr &&
      table.plan->Fits(*table.decoded)) {
    if (!AppendImages(table, kind, commit_us, now, lock)) stopping_ = true;
    return;
  }
  // A replica row replaces the whole previous row: a partial image cannot be written. Which
  // columns an image has is the event's (its column bitmaps), so the first row tells.
  bool images_checked = !replica || cursor_.full_images();
  while (cursor_.Next()) {
    const uint64_t version = next_version_++;
    const std::span<const binlog::Cell> after =
        kind == binlog::RowsKind::kUpdate ? AfterWithKey(table) : cursor_.after();
    if (!images_checked) {
      images_checked = true;
      const std::string why = table.plan->Incomplete(
          kind == binlog::RowsKind::kDelete ? cursor_.before() : after, RowKindOf(kind));
      if (!why.empty()) {
        // The table stops here; its changes from now on still take their versions.
        lock.unlock();
        ctx_.router->Stop(table, at.ToString(), why);
        lock.lock();
        while (cursor_.Next()) ++next_version_;
        return;
      }
    }
    if (cascades != nullptr) {
      if (CascadeParent::Relation* lost =
              ctx_.cascades->Collect(*cascades, kind, cursor_.before(), after, version)) {
        lock.unlock();
        ctx_.cascades->StopChildren(
            *lost, at.ToString(),
            lost->unsupported.empty()
                ? "the binlog's before image lacks the referenced columns (binlog_row_image="
                  "MINIMAL), so the changed parent keys are unknown"
                : lost->unsupported);
        lock.lock();
      }
    }
    const bool ok = AppendChange(table, kind, after, version,
                                 compare_keys && KeyChanged(table, after), commit_us, now, lock);
    if (!ok) {
      stopping_ = true;
      return;
    }
  }
}

bool BinlogReader::Append(StreamedTable& table, std::span<const binlog::Cell> cells,
                          mapping::RowKind kind, uint64_t version, uint64_t commit_us,
                          SteadyTime now, std::unique_lock<std::mutex>& lock) {
  Batch* batch = ctx_.buffers->Reserve(lock, *table.group);
  if (batch == nullptr) return false;
  table.plan->AppendRow(cells, batch->block, {kind, version});
  Appended(table, *batch, kind, version, RowBytes(cells), commit_us, now);
  return true;
}

void BinlogReader::Appended(StreamedTable& table, Batch& batch, mapping::RowKind kind,
                            uint64_t version, uint64_t bytes, uint64_t commit_us, SteadyTime now) {
  if (batch.rows == 0) batch.first_commit_us = commit_us;
  ctx_.buffers->Appended(batch, bytes, version, now);
  BatchShare& share = batch.ShareOf(table.stats.get());
  switch (kind) {
    case mapping::RowKind::kInsert:
      ++share.inserted;
      break;
    case mapping::RowKind::kUpdate:
      ++share.updated;
      break;
    case mapping::RowKind::kDelete:
      ++share.deleted;
      break;
  }
  share.bytes += bytes;
  share.newest_commit_us = std::max(share.newest_commit_us, commit_us);
  ctx_.buffers->SealIfFull(*table.group);
}

}  // namespace rowbridge::pipeline
