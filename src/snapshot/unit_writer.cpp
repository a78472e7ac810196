// The writer threads (SnapshotRunner::Impl::Writer, runner_impl.h), snapshot.writers of them, and
// the records of units. A table's jobs go to one writer, in order: the blocks of a unit are sent
// as one all-or-nothing INSERT (its query id names the job and the unit's first version), and its
// end ends the INSERT and moves the table's progress past the unit (Finish), so the progress moves
// by whole units. A unit a crash left in flight is settled by its versions in the target
// (SettleInFlight): all there is done, none is copied again, some stops the copy for a person.
// After an error every job fails until the queue closes. Table copies and the catch-up submit the
// jobs; snapshot_runner.cpp starts and joins the threads.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <thread>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "snapshot/runner_impl.h"

namespace rowbridge::snapshot {

SnapshotRunner::Impl::WriterThreads::WriterThreads(Impl& impl) : impl_(impl) {
  const uint32_t writer_count = std::max<uint32_t>(1, impl.config.snapshot.writers);
  try {
    for (uint32_t i = 0; i < writer_count; ++i)
      threads_.emplace_back([&impl, i] { impl.Writer(i); });
  } catch (...) {
    Stop();  // the ones started, since no destructor runs for a constructor that throws
    throw;
  }
}

void SnapshotRunner::Impl::WriterThreads::Stop() {
  {
    std::lock_guard lock(impl_.queue_mutex);
    impl_.queue_closed = true;
  }
  impl_.queue_cv.notify_all();
  for (auto& w : threads_)
    if (w.joinable()) w.join();
  impl_.progress.Stop();
}

// A unit a crash left in flight: in the target (all its rows) = done; absent = redo it.
void SnapshotRunner::Impl::SettleInFlight(CopiedTable& t) {
  if (!t.progress.in_flight) return;
  const UnitRecord unit = *t.progress.in_flight;
  const tables::TargetTable& target = *t.source->target;
  uint64_t present = 0;
  // Reader threads settle their tables at the same time; the catalog has one connection.
  std::lock_guard catalog_lock(catalog_mutex);
  if (!config.target.cluster.empty()) {
    // Every replica's rows, not one replica per shard as the Distributed table would read: the
    // one it picks may not have fetched the unit's part yet.
    present = catalog->VersionsFrom(target, unit.first_version, unit.last_version).size();
  } else {
    catalog->client().Select(
        fmt::format("SELECT toUInt64(count()) FROM {} WHERE {} BETWEEN {} AND {}",
                    clickhouse::QuoteQualified(target.database, target.table),
                    clickhouse::QuoteIdentifier(target.version_column), unit.first_version,
                    unit.last_version),
        [&](clickhouse::Block& block) {
          if (block.RowCount() > 0)
            present = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).At(0);
          return true;
        });
  }
  if (present == unit.rows) {
    spdlog::info("snapshot {}: the chunk in flight at the last stop is in {} ({} rows)", t.label,
                 target.label, present);
    Finish(t, unit, 0, 0, 0);
  } else if (present == 0) {
    spdlog::info("snapshot {}: the chunk in flight at the last stop is not in {}; copying it again",
                 t.label, target.label);
    std::lock_guard lock(t.mutex);
    t.progress.in_flight.reset();
    store->SaveTable(t.progress);
  } else {
    Fail(ErrorCode::kCorruption,
         "snapshot {}: {} holds {} of the {} rows of the chunk that was in flight (versions "
         "{}..{}); "
         "a partial INSERT needs a person: delete those versions from {} and run again",
         t.label, target.label, present, unit.rows, unit.first_version, unit.last_version,
         target.label);
  }
}

// The writer finished a unit (or it had no rows): the table's progress moves past it.
void SnapshotRunner::Impl::Finish(CopiedTable& t, const UnitRecord& unit, uint64_t inserted,
                                  uint64_t updated, uint64_t deleted) {
  std::lock_guard lock(t.mutex);
  TableProgress& p = t.progress;
  p.in_flight.reset();
  if (unit.last_version >= unit.first_version && unit.rows > 0)
    p.next_seq = unit.last_version - t.base + 1;
  p.rows_done += unit.chunk_rows;
  p.chunks_done += 1;
  p.high = unit.high;
  if (!unit.last_key.empty()) p.last_key = unit.last_key;
  if (unit.last && p.state != "done") p.state = "copied";
  store->SaveTable(p);
  t.counters->rows_done = p.rows_done;
  if (unit.last) t.counters->done = true;
  rows_this_run += unit.chunk_rows;
  // Every row the copy writes (its chunks and the binlog window's changes folded into them) is
  // counted as copied, apart from the stream's rows.
  const uint64_t written = inserted + updated + deleted;
  t.copied_rows->Increment(written);
  t.stats->status.AddCopiedRows(written);
  t.stats->status.SetCopyProgress(p.rows_done);
  if (unit.last) t.stats->status.FinishCopy();
}

std::future<void> SnapshotRunner::Impl::Submit(std::unique_ptr<WriteJob> job) {
  std::future<void> f = job->done.get_future();
  {
    std::lock_guard lock(queue_mutex);
    queue.push_back(std::move(job));
  }
  queue_cv.notify_all();
  return f;
}

void SnapshotRunner::Impl::Writer(uint32_t number) {
  // A connection per table with a unit open (tables that share this writer may each have one);
  // dropping one with its INSERT open writes nothing of it (all_or_nothing).
  std::map<const CopiedTable*, std::unique_ptr<clickhouse::Client>> clients;
  uint64_t n = 0;
  for (;;) {
    std::unique_ptr<WriteJob> job;
    {
      std::unique_lock lock(queue_mutex);
      auto mine = queue.end();
      queue_cv.wait(lock, [&] {
        mine = std::find_if(queue.begin(), queue.end(),
                            [&](const auto& j) { return j->table->writer == number; });
        return mine != queue.end() || queue_closed;
      });
      // After an error the writer stays until the queue closes: a unit submitted meanwhile is
      // failed below rather than left waiting for ever.
      if (mine == queue.end()) return;
      job = std::move(*mine);
      queue.erase(mine);
    }
    CopiedTable& table = *job->table;
    try {
      if (error) Fail(ErrorCode::kInternal, "the copy is stopping after an error");
      std::unique_ptr<clickhouse::Client>& client = clients[&table];
      if (!client)
        client =
            std::make_unique<clickhouse::Client>(endpoints::TargetClientOptions(config.target));
      if (job->block && job->block->rows() > 0) {
        if (!client->inserting()) {
          clickhouse::QueryOptions qo;
          qo.query_id =
              fmt::format("{}{}-{}-{}", insert_prefix,
                          std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000, n++,
                          job->unit.first_version);
          qo.all_or_nothing = true;
          client->BeginInsert(table.insert_sql, qo);
        }
        client->SendBlock(job->block->block());
        job->block->Clear();
        std::lock_guard lock(table.mutex);
        table.spare_blocks.push_back(std::move(*job->block));
        job->block.reset();
      }
      if (job->end) {
        if (client->inserting()) client->EndInsert();
        Finish(table, job->unit, job->inserted, job->updated, job->deleted);
        if (clients.size() > 1) clients.erase(&table);
      }
      job->done.set_value();
    } catch (const Error& e) {
      clients.erase(&table);
      SetError(e);
      job->done.set_exception(std::current_exception());
    } catch (...) {
      clients.erase(&table);
      SetError(
          CurrentExceptionAsError(fmt::format("snapshot writer thread writing {}", table.label)));
      job->done.set_exception(std::current_exception());
    }
  }
}

}  // namespace rowbridge::snapshot
