// The copy of one table, unit by unit (table_copy.h): the loop over its reads, and each unit's
// parts handed to the table's writer, recorded in flight and ended.
#include "snapshot/table_copy.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.h"
#include "common/log_fields.h"

namespace rowbridge::snapshot {

using binlog::Cell;
using binlog::ColumnDef;

mapping::TargetBlock TakeBlock(CopiedTable& t, const mapping::ConversionPlan& plan) {
  {
    std::lock_guard lock(t.mutex);
    if (!t.spare_blocks.empty()) {
      mapping::TargetBlock block = std::move(t.spare_blocks.back());
      t.spare_blocks.pop_back();
      return block;
    }
  }
  return plan.NewBlock();
}

// A table's writer takes its jobs in order: the parts of a unit, each sent as the next block of

SnapshotRunner::Impl::TableCopy::TableCopy(Impl& impl, CopiedTable& t, uint32_t reader,
                                           const TableProgress& cursor)
    : impl_(impl),
      t_(t),
      cursor_(cursor),
      sql_(impl.ChunkConnection()),
      window_(impl.SourceOptions(), impl.config.source.server_id + 1 + reader,
              t.source->name.database, t.source->name.table, t.source->known->columns),
      reconciler_(t.key, KeyCollator()),
      encoder_(t.text_columns, t.label),
      text_plan_(PlansFor(t, plans_)),
      limit_(std::max<uint64_t>(1, impl.config.snapshot.chunk_rows)),
      fetchers_(t.key.empty() ? 1 : impl.ReadersPerTable()),
      one_read_units_(!impl.config.target.cluster.empty() && !t.key.empty()),
      sizer_(impl.ReadBytesPerTable(fetchers_), limit_),
      next_lo_(cursor.last_key),
      lo_storage_(t.key.size()),
      hi_storage_(t.key.size()) {}

void SnapshotRunner::Impl::TableCopy::Run() {
  bool last = false;
  while (!last && !impl_.stopping()) {
    Unit u;
    u.first_seq = u.seq = cursor_.next_seq;
    // The unit's reads; a stop ends the unit early, whole.
    for (bool more = true; more;) {
      Read r = NewRead(u);
      if (fetchers_ > 1) {
        TakeReadAhead(r);
      } else {
        ReadChunk(u, r);
      }
      ReconcileWindow(r);
      FillPart(u, r);
      u.last = r.last;
      more = !one_read_units_ && !r.last && !impl_.stopping() && u.bytes < kMaxUnitBytes &&
             (fetchers_ > 1 ? !r.ends_unit : u.chunk_rows < limit_);
      if (one_read_units_) RecordInFlight(u, r.part->block->rows());
      SendPart(u, r);
      if (r.fetched) spare_chunks_.push_back(std::move(r.fetched));
    }
    EndUnit(u);
    last = u.last;
  }
  if (part_sent_.valid()) part_sent_.get();
  if (previous_.valid()) previous_.get();
}

mapping::ConversionPlan& SnapshotRunner::Impl::TableCopy::PlansFor(CopiedTable& t, Plans& plans) {
  plans.options = &t.plan_options;
  plans.target = &t.source->target->columns;
  plans.Add(t.text_columns.data(),
            mapping::ConversionPlan::Build(t.text_columns, *plans.target, t.plan_options));
  return *plans.plans[0].second;
}

TextCollator SnapshotRunner::Impl::TableCopy::KeyCollator() {
  for (size_t i = 0; i < t_.key.size(); ++i)
    collation_of_[t_.text_columns[t_.key[i]].name] = t_.collations[i];
  return [this](const ColumnDef& c, std::string_view a, std::string_view b) {
    const KeyCollation& k = collation_of_.at(c.name);
    std::string q = "SELECT STRCMP(";
    Cell ca, cb;
    ca.column = cb.column = &c;
    ca.data = reinterpret_cast<const uint8_t*>(a.data());
    ca.size = a.size();
    cb.data = reinterpret_cast<const uint8_t*>(b.data());
    cb.size = b.size();
    AppendKeyLiteral(ca, k, q);
    q += " COLLATE " + k.collation + ", ";
    AppendKeyLiteral(cb, k, q);
    q += " COLLATE " + k.collation + ")";
    return std::stoi(sql_->QueryValue(q).value_or("0"));
  };
}

SnapshotRunner::Impl::TableCopy::Read SnapshotRunner::Impl::TableCopy::NewRead(const Unit& u) {
  Read r;
  r.part = std::make_unique<WriteJob>();
  r.part->table = &t_;
  r.part->block.emplace(TakeBlock(t_, text_plan_));
  r.chunk_version = t_.base + u.seq;
  r.packets = &chunk_;
  r.columns = &chunk_columns_;
  lo_.clear();
  hi_.clear();
  return r;
}

void SnapshotRunner::Impl::TableCopy::SendPart(Unit& u, Read& r) {
  WriteJob& job = *r.part;
  if (job.block->rows() == 0) {
    std::lock_guard lock(t_.mutex);
    t_.spare_blocks.push_back(std::move(*job.block));
    job.block.reset();
    return;
  }
  if (part_sent_.valid()) part_sent_.get();
  u.rows += job.block->rows();
  job.unit.first_version = t_.base + u.first_seq;
  part_sent_ = impl_.Submit(std::move(r.part));
  r.part = std::make_unique<WriteJob>();
  r.part->table = &t_;
}

UnitRecord SnapshotRunner::Impl::TableCopy::RecordOf(const Unit& u, uint64_t rows) const {
  UnitRecord record;
  record.first_version = t_.base + u.first_seq;
  record.last_version = t_.base + u.seq - 1;
  record.rows = rows;
  record.chunk_rows = u.chunk_rows;
  record.high = cursor_.high;
  record.last = u.last;
  record.last_key = u.last_key;
  return record;
}

void SnapshotRunner::Impl::TableCopy::RecordInFlight(Unit& u, uint64_t rows) {
  if (previous_.valid()) previous_.get();
  if (rows == 0) return;
  SaveInFlight(RecordOf(u, rows));
  u.recorded = true;
}

void SnapshotRunner::Impl::TableCopy::SaveInFlight(const UnitRecord& record) {
  std::lock_guard lock(t_.mutex);
  t_.progress.in_flight = record;
  impl_.store->SaveTable(t_.progress);
}

void SnapshotRunner::Impl::TableCopy::EndUnit(Unit& u) {
  if (previous_.valid()) previous_.get();
  const UnitRecord record = RecordOf(u, u.rows);
  if (record.rows == 0) {
    impl_.Finish(t_, record, 0, 0, 0);
  } else {
    if (!u.recorded) SaveInFlight(record);
    if (impl_.options.before_insert) impl_.options.before_insert(t_.label, cursor_.chunks_done);
    auto end = std::make_unique<WriteJob>();
    end->table = &t_;
    end->end = true;
    end->unit = record;
    end->inserted = u.inserted;
    end->updated = u.updated;
    end->deleted = u.deleted;
    previous_ = impl_.Submit(std::move(end));
  }
  cursor_.chunks_done += 1;
}

void SnapshotRunner::Impl::Copy(CopiedTable& t, uint32_t reader) {
  LogFields log_fields;
  log_fields.Table(t.source->name.database, t.source->name.table);
  SettleInFlight(t);
  TableProgress cursor;
  {
    std::lock_guard lock(t.mutex);
    cursor = t.progress;
  }
  if (cursor.state == "copied" || cursor.state == "done") return;
  const bool one_read_units = !config.target.cluster.empty() && !t.key.empty();
  spdlog::info(
      "snapshot {}: copying{} (INSERTs of {}, reads of at most {} KiB, key {})", t.label,
      cursor.chunks_done ? fmt::format(" from chunk {}", cursor.chunks_done + 1) : "",
      one_read_units ? std::string("one read each: a cluster")
                     : fmt::format("{} rows", config.snapshot.chunk_rows),
      ReadBytesPerTable(t.key.empty() ? 1 : ReadersPerTable()) >> 10,
      t.key.empty() ? "none: one chunk" : fmt::format("({})", fmt::join(t.key_quoted, ", ")));
  TableCopy(*this, t, reader, cursor).Run();
}

}  // namespace rowbridge::snapshot
