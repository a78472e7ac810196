// Catching up (runner_impl.h, snapshot_runner.h): once every table is copied, each is brought to
// one common position E by applying its binlog window from its last read's point up to E, every
// change emitted (Impl::CatchUp: one unit, recorded in flight like a copy's). A copy alongside
// the stream then offers its tables at E (SnapshotRunner::HandOver); when the stream has read
// past E, every table is caught up to a later E and offered again. A table recorded "done" is done
// for its E only. snapshot_runner.cpp calls both after the copy.
#include <spdlog/spdlog.h>

#include "common/error.h"
#include "snapshot/binlog_window.h"
#include "snapshot/reconcile.h"
#include "snapshot/row_arena.h"
#include "snapshot/runner_impl.h"

namespace rowbridge::snapshot {

BinlogPoint SnapshotRunner::Impl::FinalPosition() {
  auto admin = mysql::Connection::Connect(SourceOptions());
  BinlogPoint end = PointOf(mysql::CurrentBinlogPosition(*admin));
  for (auto& t : tables) {
    std::lock_guard lock(t->mutex);
    if (end < t->progress.high) end = t->progress.high;
  }
  return end;
}

// After every table is copied: the table's window up to `end`, every change emitted.
void SnapshotRunner::Impl::CatchUp(CopiedTable& t, const BinlogPoint& end, uint32_t reader) {
  SettleInFlight(t);
  TableProgress p;
  {
    std::lock_guard lock(t.mutex);
    p = t.progress;
  }
  // "done" means brought up to the E of the attempt that did it. An attempt that failed after
  // some tables were done (a ClickHouse connection cut in another table's catch-up) is retried
  // with a later E, and those tables' changes up to the new E are still to be applied: a done
  // table is done for this E only if it reached it.
  if (p.state == "done" && !(p.high < end)) return;
  if (p.state != "copied" && p.state != "done")
    Fail(ErrorCode::kInternal, "{} is not copied yet", t.label);
  if (options.before_catch_up) options.before_catch_up(t.label);
  UnitRecord unit;
  unit.high = end;
  unit.last = true;
  if (p.high < end) {
    BinlogWindow window(SourceOptions(), config.source.server_id + 1 + reader,
                        t.source->name.database, t.source->name.table, t.source->known->columns);
    RowArena rows, empty;
    std::vector<WindowChange> changes;
    std::vector<Emitted> emitted;
    window.Read(p.high, end, rows, changes);
    Reconciler reconciler(t.key, nullptr);
    reconciler.Reconcile(empty, changes, {{}, {}, true}, emitted);
    if (!emitted.empty()) {
      Plans plans;
      plans.options = &t.plan_options;
      plans.target = &t.source->target->columns;
      auto job = std::make_unique<WriteJob>();
      job->table = &t;
      uint64_t seq = p.next_seq;
      unit.first_version = t.base + seq;
      for (const Emitted& e : emitted) {
        mapping::ConversionPlan& plan = plans.For(e.row, t.source->known->columns.size());
        if (!job->block) job->block.emplace(plan.NewBlock());
        plan.AppendRow(e.row, *job->block, {e.kind, t.base + seq++});
        (e.kind == mapping::RowKind::kInsert   ? job->inserted
         : e.kind == mapping::RowKind::kUpdate ? job->updated
                                               : job->deleted)++;
      }
      unit.last_version = t.base + seq - 1;
      unit.rows = job->block->rows();
      job->unit = unit;
      job->end = true;
      {
        std::lock_guard lock(t.mutex);
        t.progress.in_flight = unit;
        store->SaveTable(t.progress);
      }
      Submit(std::move(job)).get();
    }
  }
  std::lock_guard lock(t.mutex);
  t.progress.in_flight.reset();
  t.progress.high = end;
  t.progress.state = "done";
  store->SaveTable(t.progress);
}

bool SnapshotRunner::HandOver(Impl& impl, BinlogPoint& end) {
  for (uint32_t offer = 1; !impl.stopping() && !impl.error; ++offer) {
    if (options_.hand_over(end)) return true;
    if (impl.stopping() || impl.error) break;
    // The stream read past E (or could not answer): bring every table to where the source is now,
    // a few transactions on at most when the stream keeps up, and offer again.
    auto admin = mysql::Connection::Connect(impl.SourceOptions());
    const BinlogPoint later = PointOf(mysql::CurrentBinlogPosition(*admin));
    if (end < later) end = later;
    spdlog::info(
        "snapshot: offer {} of the copied tables to the stream declined; catching up to {}", offer,
        end.ToString());
    impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.CatchUp(t, end, r); });
  }
  return false;
}

}  // namespace rowbridge::snapshot
