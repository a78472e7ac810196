#include "pipeline/cascade_repairs.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/retry.h"
#include "endpoints/connection_options.h"
#include "tables/source_foreign_keys.h"

namespace rowbridge::pipeline {

namespace {

const binlog::Cell* CellAt(std::span<const binlog::Cell> cells, uint32_t index) {
  if (index < cells.size() && cells[index].index == index) return &cells[index];
  for (const binlog::Cell& c : cells)
    if (c.index == index) return &c;
  return nullptr;
}

// The value's text as both servers print it: an integer in decimal, a string's bytes.
void CellText(const binlog::Cell& cell, std::string& out) {
  out.clear();
  if (!tables::IsCascadeIntegerKey(cell.column->type)) {
    out.assign(reinterpret_cast<const char*>(cell.data), cell.size);
    return;
  }
  uint64_t raw = 0;
  for (size_t i = 0; i < cell.size && i < 8; ++i) raw |= uint64_t{cell.data[i]} << (8 * i);
  if (cell.column->is_unsigned || cell.size >= 8) {
    if (!cell.column->is_unsigned && cell.size >= 8) {
      out = fmt::format("{}", static_cast<int64_t>(raw));
    } else {
      out = fmt::format("{}", raw);
    }
    return;
  }
  const unsigned bits = static_cast<unsigned>(cell.size * 8);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const int64_t value = static_cast<int64_t>((raw ^ sign) - sign);
  out = fmt::format("{}", value);
}

}  // namespace

CascadeContext SessionCascadeContext(const config::Config& config, TableRouter& router,
                                     BatchBuffers& buffers, CheckpointTracker& tracker,
                                     server::MetricsRegistry& registry,
                                     const std::atomic<bool>* stop,
                                     std::function<uint64_t()> written_below) {
  CascadeContext c;
  c.config = &config;
  c.router = &router;
  c.buffers_mutex = &buffers.mutex();
  c.tracker = &tracker;
  c.written_below = std::move(written_below);
  c.on_failure = [&buffers](const Error& error) { buffers.Abort(error); };
  c.repairs = &registry
                   .AddCounter("rowbridge_cascade_repairs_total",
                               "Repairs of child tables for foreign-key actions the source did "
                               "not log (one per relation and transaction)")
                   .Get();
  c.connect_source = [&config] {
    return mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
  };
  c.stop = stop;
  return c;
}

CascadeRepairs::CascadeRepairs(CascadeContext context) : ctx_(std::move(context)) {
  ReadGraph();
}

CascadeRepairs::~CascadeRepairs() {
  Stop();
}

void CascadeRepairs::ReadGraph() {
  std::unique_ptr<mysql::Connection> source = ctx_.connect_source();
  logged_ = tables::SourceLogsCascades(*source, &how_);
  graph_ = std::make_shared<const tables::ForeignKeyGraph>(tables::ReadForeignKeys(*source));
  ++epoch_;
  stale_ = false;
  size_t cascading = 0;
  for (const tables::ForeignKey& key : graph_->keys()) cascading += key.cascades() ? 1 : 0;
  if (cascading > 0) {
    spdlog::info("{} foreign key(s) with cascading actions on the source: {}", cascading,
                 logged_ ? how_ + "; nothing to repair"
                         : how_ + "; rowbridge repairs the children they change");
  }
}

std::vector<StreamedTable*> CascadeRepairs::Reached(const tables::ForeignKey& key) {
  std::vector<StreamedTable*> out;
  std::set<const tables::ForeignKey*> seen;
  std::vector<const tables::ForeignKey*> todo{&key};
  while (!todo.empty()) {
    const tables::ForeignKey* k = todo.back();
    todo.pop_back();
    if (!seen.insert(k).second) continue;
    auto it = ctx_.router->tables().find(k->child);
    if (it != ctx_.router->tables().end() && it->second->target != nullptr) {
      out.push_back(it->second.get());
    }
    for (const tables::ForeignKey* next : graph_->CascadingChildren(k->child)) todo.push_back(next);
  }
  return out;
}

const CascadeParent* CascadeRepairs::PlanFor(StreamedTable& table) {
  if (table.cascade_epoch == epoch_ && !stale_) return table.cascades;
  if (stale_) ReadGraph();
  table.cascade_epoch = epoch_;
  table.cascades = nullptr;
  if (logged_ || !table.known) return nullptr;
  auto plan = std::make_unique<CascadeParent>();
  plan->graph = graph_;
  for (const tables::ForeignKey* key : graph_->CascadingChildren(table.name)) {
    if (Reached(*key).empty()) continue;  // no replicated table below it
    CascadeParent::Relation r;
    r.key = key;
    r.on_delete = tables::ChangesChildren(key->on_delete);
    r.on_update = tables::ChangesChildren(key->on_update);
    for (const std::string& name : key->parent_columns) {
      const auto& columns = table.known->columns;
      auto it = std::find_if(columns.begin(), columns.end(),
                             [&](const binlog::ColumnDef& c) { return c.name == name; });
      if (it == columns.end()) {
        r.unsupported = fmt::format("{} has no column {}", table.name.ToString(), name);
        break;
      }
      if (!tables::IsCascadeIntegerKey(it->type) && !tables::IsCascadeStringKey(it->type)) {
        r.unsupported = fmt::format(
            "column {}.{} is neither an integer nor a string, so the child rows the cascade "
            "changed cannot be addressed",
            table.name.ToString(), name);
      }
      r.columns.push_back(static_cast<uint32_t>(it - columns.begin()));
    }
    // The repair addresses the children by their primary keys too.
    for (const StreamedTable* child : Reached(*key)) {
      if (!r.unsupported.empty() || !child->known) break;
      for (uint32_t k : child->known->primary_key) {
        const binlog::ColumnDef& c = child->known->columns[k];
        if (tables::IsCascadeIntegerKey(c.type) || tables::IsCascadeStringKey(c.type)) continue;
        r.unsupported = fmt::format(
            "primary-key column {}.{} is neither an integer nor a string, so the rows a cascade "
            "changed cannot be addressed",
            child->name.ToString(), c.name);
        break;
      }
    }
    plan->relations.push_back(std::move(r));
  }
  if (plan->relations.empty()) return nullptr;
  for (const auto& r : plan->relations)
    spdlog::info("{}: its changes cascade ({}); rowbridge repairs the children",
                 table.name.ToString(), r.key->Describe());
  table.cascades = plan.get();
  parents_.push_back(std::move(plan));
  return table.cascades;
}

CascadeParent::Relation* CascadeRepairs::Collect(const CascadeParent& parent, binlog::RowsKind kind,
                                                 std::span<const binlog::Cell> before,
                                                 std::span<const binlog::Cell> after,
                                                 uint64_t version) {
  if (kind == binlog::RowsKind::kWrite) return nullptr;
  for (const CascadeParent::Relation& const_r : parent.relations) {
    auto& r = const_cast<CascadeParent::Relation&>(const_r);
    if (kind == binlog::RowsKind::kDelete ? !r.on_delete : !r.on_update) continue;
    if (r.children_stopped) continue;
    // An update matters only if it changes a referenced column (absent from the after image:
    // unchanged).
    bool changed = kind == binlog::RowsKind::kDelete;
    bool known = r.unsupported.empty();
    for (uint32_t c : r.columns) {
      const binlog::Cell* old = CellAt(before, c);
      if (old == nullptr) known = false;
      if (kind != binlog::RowsKind::kUpdate) continue;
      const binlog::Cell* now = CellAt(after, c);
      if (now == nullptr || old == nullptr) continue;
      if (old->is_null != now->is_null || old->size != now->size ||
          (old->size != 0 && std::memcmp(old->data, now->data, old->size) != 0)) {
        changed = true;
      }
    }
    if (!r.unsupported.empty() && kind == binlog::RowsKind::kUpdate && !changed) continue;
    if (!known) {
      if (kind == binlog::RowsKind::kUpdate && r.unsupported.empty()) {
        // A MINIMAL before image lacks a referenced column: whether it changed is unknown.
        bool all_after = true;
        for (uint32_t c : r.columns) all_after = all_after && CellAt(after, c) != nullptr;
        if (!all_after) continue;  // absent from the after image: unchanged
      }
      return &r;
    }
    if (!changed) continue;
    auto it = std::find_if(pending_.begin(), pending_.end(),
                           [&](const auto& p) { return p.first == r.key; });
    if (it == pending_.end()) {
      pending_.emplace_back(r.key, check::KeyTuples{});
      it = pending_.end() - 1;
      it->second.width = r.columns.size();
    }
    for (std::span<const binlog::Cell> image : {before, after}) {
      if (image.data() == after.data() && kind != binlog::RowsKind::kUpdate) break;
      bool has_null = false;
      for (uint32_t c : r.columns) {
        const binlog::Cell* cell = CellAt(image, c);
        has_null = has_null || cell == nullptr || cell->is_null;
      }
      if (has_null) continue;
      for (uint32_t c : r.columns) {
        CellText(*CellAt(image, c), text_);
        it->second.values.push_back(text_);
      }
    }
    if (pending_hold_ == 0) pending_hold_ = version;
  }
  return nullptr;
}

void CascadeRepairs::StopChildren(CascadeParent::Relation& relation, const std::string& position,
                                  const std::string& why) {
  relation.children_stopped = true;
  const std::string reason = fmt::format(
      "a change of {} cascades into it ({}) and the source does not log cascades, but {}; fix: {}",
      relation.key->parent.ToString(), relation.key->Describe(), why,
      relation.unsupported.empty()
          ? "set binlog_row_image=FULL on the source (the before image must carry the referenced "
            "columns), then `rowbridge resnapshot` the table"
          : "`rowbridge resnapshot` the table after each such change, or replace the cascade by "
            "explicit changes of the children");
  for (StreamedTable* table : Reached(*relation.key)) {
    ctx_.router->Stop(*table, position, reason);
  }
}

void CascadeRepairs::AtBoundary(uint64_t next_version) {
  if (pending_.empty()) return;
  Job job;
  job.graph = graph_;
  job.hold = pending_hold_;
  job.version = next_version - 1;
  job.end_version = next_version;
  job.work = std::move(pending_);
  pending_.clear();
  pending_hold_ = 0;
  for (const auto& [name, table] : ctx_.router->tables()) {
    if (table->stopped) job.skipped.insert(name.ToString());
  }
  ctx_.tracker->AddHold(job.hold);
  std::lock_guard lock(mutex_);
  if (stopping_) return;  // the hold stays: this session saves no checkpoint past it
  if (ctx_.repairs != nullptr) ctx_.repairs->Increment(job.work.size());
  jobs_.push_back(std::move(job));
  if (!thread_.joinable()) thread_ = std::thread([this] { Work(); });
  changed_.notify_all();
}

void CascadeRepairs::Work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job job = jobs_.front();
    running_ = true;
    lock.unlock();
    // The repair compares with a target that holds the transaction's rows.
    bool written = false;
    while (!written) {
      {
        std::lock_guard buffers(*ctx_.buffers_mutex);
        written = ctx_.written_below() >= job.end_version;
      }
      if (written) break;
      std::unique_lock wait(mutex_);
      if (changed_.wait_for(wait, std::chrono::milliseconds(20), [&] { return stopping_; })) return;
    }
    try {
      RunJob(job);
    } catch (const Error& e) {
      spdlog::error("cascade repair failed: {}", e.what());
      lock.lock();
      running_ = false;
      failure_ = e;
      changed_.notify_all();
      lock.unlock();
      if (ctx_.on_failure) ctx_.on_failure(e);
      return;
    }
    {
      std::lock_guard buffers(*ctx_.buffers_mutex);
      ctx_.tracker->ReleaseHold(job.hold);
    }
    lock.lock();
    jobs_.pop_front();
    running_ = false;
    changed_.notify_all();
  }
}

void CascadeRepairs::RunJob(const Job& job) {
  RetryOptions retry;
  retry.policy.initial = ctx_.config->source.reconnect.initial_backoff;
  retry.policy.max = ctx_.config->source.reconnect.max_backoff;
  retry.stop = ctx_.stop;
  retry.before_retry = [&](const Error&) { repairer_.reset(); };
  Retry("a cascade repair", retry, [&] {
    if (repairer_ == nullptr || repairer_graph_ != job.graph.get()) {
      repairer_ = std::make_unique<check::CascadeRepairer>(*ctx_.config, *job.graph);
      repairer_graph_ = job.graph.get();
    }
    const check::CascadeCounts before = repairer_->counts();
    for (const auto& [key, values] : job.work) {
      repairer_->Repair(*key, values, job.version, job.skipped);
    }
    const check::CascadeCounts& after = repairer_->counts();
    spdlog::info("cascade repair at version {}: {} rows written, {} keys deleted", job.version,
                 after.rows_written - before.rows_written,
                 after.keys_deleted - before.keys_deleted);
  });
}

void CascadeRepairs::Finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || failure_ || jobs_.empty(); });
  if (failure_) throw *failure_;
}

void CascadeRepairs::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace rowbridge::pipeline
