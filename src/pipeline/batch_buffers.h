// BatchBuffers: the per-target-table batches between the reader and the writers, the flush policy
// and the memory bound.
//
// Each TargetGroup (one target table and one INSERT column list; several source tables may share
// it: many-to-one merges) has two batches: one being filled by the reader, and at most one sealed
// (queued for or being written by a writer). So the batches of one target are written one after
// another, in version order, while different targets are written in parallel.
//
// A filling batch is sealed as soon as it reaches batch.max_rows or batch.max_bytes (by the
// reader), when its first row is batch.max_delay old (by the ticker, SealDue), or when the writer
// of its predecessor finishes and it is already due. While the stream is caught up (no binlog
// bytes wait to be read at a transaction boundary) a batch is due at once, but no sooner than
// batch.min_interval after its group's previous batch was sealed: the lag is the time to read and
// write a transaction, not max_delay, and ClickHouse gets at most one insert per table per
// min_interval (it wants few inserts per table). Under a backlog batches fill up to their bounds.
// When the rows buffered in total reach memory.max_buffered_bytes, the reader seals the largest
// batches and waits for writers (back-pressure): memory never grows without bound.
//
// Memory held counts two things: the rows buffered or in flight (estimates: cell payload sizes
// plus a per-value overhead) and the capacity an emptied batch keeps for reuse (measured). Both
// count against memory.max_buffered_bytes and both show in the buffered_bytes metric. A written
// batch keeps its buffers only if it was not an outlier among its group's recent batches
// (common/retain_policy.h: one 100 MB row must not pin 100 MB for the rest of the run) and the
// capacity kept in total stays under half the bound; otherwise they are freed at once. Kept
// buffers that no row has used for a while (idle_release: 5 s, or twice max_delay if longer) are
// freed by the ticker: a table that had one burst of big rows and then went quiet holds nothing.
//
// A batch is one INSERT, but its rows are held in parts of at most BatchLimits::part_rows rows /
// part_bytes bytes: the reader appends to the batch's current part (Batch::block), and a full part
// is closed (Batch::closed). Once a batch has a closed part and its group nothing in flight, a
// writer may take it while it still fills: it begins the INSERT (all or nothing: ClickHouse
// writes none of it unless it ends) and sends each closed part as a block as soon as it is
// closed, handing the part's emptied columns back for the reader to fill again. So under a
// backlog a batch of 100,000 rows lives in a few parts' worth of memory that stays warm instead
// of 100,000 rows of columns touched once (first touches of fresh memory cost more than
// converting the rows on a virtualized host; see BENCHMARKS.md). While a writer holds one of a
// group's batches, the reader waits once Batch::kMaxClosedParts of the group's parts wait to be
// sent (ClickHouse is often the slower side); a batch nobody takes while it fills keeps its closed
// parts until it is sealed, as before: memory is never above the batch bounds. The batch still ends
// as any batch does (full, due, drained, stopping), and the writer then sends the rest and ends the
// INSERT. A writer streaming a batch that has nothing to send seals it when another batch waits and
// no writer is free.
//
// One mutex guards everything here. The reader holds it while it appends one rows event; writers
// take it only to pick up a batch or a part and to return them; a closed part belongs to the
// writer of its batch alone until PartSent(), and a sealed batch until Done().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/retain_policy.h"
#include "mapping/conversion_plan.h"
#include "server/table_stats.h"

namespace rowbridge::pipeline {

using SteadyTime = std::chrono::steady_clock::time_point;

// The rows one source table contributed to a batch (for per-table metrics at flush).
// A source commit time in unix microseconds (BatchShare, Batch) as a clock time.
inline std::chrono::system_clock::time_point CommitTimePoint(uint64_t commit_us) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::microseconds(commit_us)));
}

struct BatchShare {
  server::TableStats* stats = nullptr;
  uint64_t inserted = 0;
  uint64_t updated = 0;
  uint64_t deleted = 0;
  uint64_t bytes = 0;
  uint64_t newest_commit_us = 0;  // source commit time (unix microseconds) of its newest row
  // When the table's first row in the batch was received (TableStatus::MarkUnflushed).
  std::chrono::system_clock::time_point received_at{};
};

struct Batch {
  mapping::TargetBlock block;  // the part being filled
  // Closed parts not yet sent, oldest first. std::deque: a writer sends front() without the lock
  // while the reader adds parts at the back.
  std::deque<mapping::TargetBlock> closed;
  // Emptied parts kept for the next part (at most kSpareParts).
  std::vector<mapping::TargetBlock> spare;
  uint64_t part_rows = 0;   // rows in `block`
  uint64_t part_bytes = 0;  // their bytes (estimates, as `bytes`)
  bool queued = false;      // in the writers' queue
  bool taken = false;       // a writer holds it (streaming it while it fills, or writing it sealed)
  uint64_t rows = 0;
  uint64_t bytes = 0;
  uint64_t retained = 0;  // empty: the capacity its parts keep (counted while kept)
  SteadyTime retained_since{};
  uint64_t first_version = 0;  // lowest version in the batch (its first row)
  uint64_t last_version = 0;
  SteadyTime first_row_at{};
  uint64_t first_commit_us = 0;  // source commit time (unix microseconds) of the first row
  std::vector<BatchShare> shares;

  // Closed parts of a group that a writer holds a batch of, beyond which the reader waits.
  static constexpr size_t kMaxClosedParts = 2;
  // Enough that a steady stream never frees a part to make a new one (fresh memory is what
  // parts are there to avoid).
  static constexpr size_t kSpareParts = kMaxClosedParts + 1;

  void Reset() {
    block.Clear();
    closed.clear();
    rows = bytes = first_version = last_version = part_rows = part_bytes = 0;
    first_commit_us = 0;
    shares.clear();
  }
  // The bytes its parts' buffers hold.
  uint64_t HeldBytes() const {
    uint64_t held = block.HeldBytes();
    for (const auto& part : closed) held += part.HeldBytes();
    for (const auto& part : spare) held += part.HeldBytes();
    return held;
  }
  // Frees the buffers of its empty parts (the current one keeps its columns, empty).
  void ReleaseMemory() {
    block.ReleaseMemory();
    spare.clear();
  }
  BatchShare& ShareOf(server::TableStats* stats) {
    if (shares.empty() || shares.back().stats != stats) {
      for (BatchShare& s : shares)
        if (s.stats == stats) return s;
      // Once per table and batch: the table has changes waiting from now on (/healthz judges
      // how long), until the writer clears it after the flush.
      const auto now = std::chrono::system_clock::now();
      shares.push_back({.stats = stats, .received_at = now});
      if (stats != nullptr) stats->status.MarkUnflushed(now);
    }
    return shares.back();
  }
};

struct TargetGroup {
  std::string database;
  std::string table;
  std::string label;       // db.table
  std::string insert_sql;  // INSERT INTO ... (columns) VALUES
  Batch batches[2];
  Batch* filling = &batches[0];
  Batch* sealed = nullptr;  // queued or being written; at most one
  // The batch a writer took (NextSealed): `sealed`, or `filling` while it is streamed.
  Batch* writing = nullptr;
  // Where the writer of `writing` waits for its next part (NextPart): its own, so that a part
  // closed for one writer wakes no other thread.
  std::condition_variable part_ready;
  // When the previous batch was sealed (BatchLimits::min_interval); the zero time point: never.
  SteadyTime last_sealed_at{};
  // Whether a written batch keeps its capacity; its uses are the batches' payload bytes.
  RetainPolicy retain{size_t{1} << 20, std::chrono::seconds(5)};
};

struct BatchLimits {
  uint64_t max_rows = 100000;
  uint64_t max_bytes = 64ULL << 20;
  std::chrono::milliseconds max_delay{1000};
  std::chrono::milliseconds min_interval{500};
  uint64_t max_buffered_bytes = 1ULL << 30;
  // The parts a batch is held and sent in (see above): small enough to stay in a few MB,
  // large enough that a block's fixed costs do not count.
  uint64_t part_rows = 8192;
  uint64_t part_bytes = 2ULL << 20;
};

class BatchBuffers {
 public:
  explicit BatchBuffers(BatchLimits limits);

  std::mutex& mutex() { return mutex_; }
  const BatchLimits& limits() const { return limits_; }

  // Takes ownership of a new group (made by the reader when it routes a table to a target with a
  // new column list). Lock held.
  TargetGroup& AddGroup(std::unique_ptr<TargetGroup> group);

  // Reader, lock held: makes room for one more row in `group` (seals a full batch, waits for the
  // writers while the group's previous batch is still being written, while a writer holding one
  // of its batches has Batch::kMaxClosedParts parts to send, or while the memory bound is reached).
  // Returns the batch to append to, or nullptr when the pipeline is stopping.
  Batch* Reserve(std::unique_lock<std::mutex>& lock, TargetGroup& group);
  // Reader, lock held: one row of `bytes` with `version` went into `batch` (from Reserve).
  void Appended(Batch& batch, uint64_t bytes, uint64_t version, SteadyTime now) {
    if (batch.rows == 0) {
      batch.first_version = version;
      batch.first_row_at = now;
      // From now on its rows are counted instead of the capacity it kept.
      retained_bytes_ -= batch.retained;
      batch.retained = 0;
    }
    batch.last_version = version;
    ++batch.rows;
    batch.bytes += bytes;
    ++batch.part_rows;
    batch.part_bytes += bytes;
    total_bytes_ += bytes;
  }

  // Reader, lock held, after the Appended rows of one change: seals the group's filling batch at
  // once if it is full and nothing of the group is in flight (otherwise Done seals it). Without
  // this a full batch waited for the next row's Reserve, and when no row came (the end of a
  // backlog, a pause) for max_delay.
  // Also closes the current part when it is full, which lets a writer take the batch (see above).
  void SealIfFull(TargetGroup& group);

  // Reader, lock held, at a transaction boundary: whether the stream has caught up (no binlog
  // bytes wait). When it has, the batches that are due (min_interval since their group's last
  // seal) are sealed at once, and the ticker seals the others as their interval passes.
  void StreamCaughtUp(bool caught_up, SteadyTime now);

  // Reader, lock held: seals the batches of `groups` and waits until none of their rows is
  // buffered or in flight (before a schema change is applied to their target table). False when
  // the pipeline is stopping.
  bool Drain(std::unique_lock<std::mutex>& lock, const std::vector<TargetGroup*>& groups);

  // Ticker, lock held: seals the batches that are due (max_delay old, or min_interval after their
  // group's last seal while the stream is caught up), and frees the buffers kept by batches idle
  // for idle_release. Returns when the next batch falls due (or now +
  // max_delay when nothing is waiting).
  SteadyTime SealDue(SteadyTime now);
  // Lock held: seals every non-empty batch whose group has nothing in flight (for a clean stop;
  // call repeatedly until Idle()).
  void SealAll();
  // Lock held: nothing is buffered, queued or in flight.
  bool Idle() const;

  // Writer: waits for the next batch to write and returns its group (the batch is
  // group->writing: sealed, or still filling with a closed part), or nullptr once the buffers are
  // aborted, or closed and drained.
  TargetGroup* NextSealed();
  // Writer of group->writing: waits for its next part to send and returns it (the oldest closed
  // part), or nullptr once every part is sent and the batch is sealed, or the buffers are aborted
  // (aborted() tells). Seals the batch when it waits for rows while another batch waits for a
  // writer and none is free, or when the buffers are closing.
  const mapping::TargetBlock* NextPart(TargetGroup& group);
  // Writer: the part NextPart returned was sent; its columns are emptied for reuse.
  void PartSent(TargetGroup& group);
  // Writer: the group's sealed batch was written; it is emptied and may be reused. The tables
  // of the batch filling meanwhile are marked unflushed again (the writer cleared them at the
  // flush) with the time their rows there were received.
  void Done(TargetGroup& group);

  // Stops everything: Reserve and NextSealed return nullptr from now on, waiters wake up. `error`
  // (if set) is kept for the supervisor.
  void Abort(std::optional<Error> error = std::nullopt);
  // Writers finish what is queued, then NextSealed returns nullptr.
  void Close();
  bool aborted() const;
  bool aborted_locked() const { return aborted_; }  // lock held
  std::optional<Error> error() const;

  // Lock held: the lowest version that is buffered or in flight; `reader_next_version` when
  // nothing is.
  uint64_t LowestUnflushed(uint64_t reader_next_version) const;
  // Lock held: the bytes of buffered and in-flight rows, and those plus the capacity kept by
  // emptied batches (what memory.max_buffered_bytes bounds and the buffered_bytes metric shows).
  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t held_bytes() const { return total_bytes_ + retained_bytes_; }
  // Lock held: every group, for status.
  const std::vector<std::unique_ptr<TargetGroup>>& groups() const { return groups_; }
  // The ticker's and supervisor's wait: notified when a batch is done and when the buffers are
  // closed or aborted (not at every part, which only the reader waits for).
  std::condition_variable& changed() { return changed_; }

 private:
  void Seal(TargetGroup& group);
  // Moves the batch's current part, if it has rows, to its closed parts and starts a new one.
  void ClosePart(Batch& batch);
  // Makes a kept part the batch's current one; false when it keeps none.
  static bool TakeSpare(Batch& batch);
  void Enqueue(TargetGroup& group, Batch& batch);
  // Wakes the writers streaming a batch (NextPart), for what concerns them all: a batch waiting
  // for a writer while none is idle, a close, an abort.
  void WakeStreamingWriters();
  // Every wait, for what concerns every thread: a close, an abort.
  void WakeEveryone();
  // Frees the capacity kept by the empty batches that no writer holds, kept since before
  // `kept_before` (by default all of them).
  void ReleaseRetained(SteadyTime kept_before = SteadyTime::max());
  // When the filling batch of `group` (not empty) falls due.
  SteadyTime DueAt(const TargetGroup& group) const;
  bool Full(const Batch& batch) const {
    return batch.rows >= limits_.max_rows || batch.bytes >= limits_.max_bytes;
  }

  BatchLimits limits_;
  std::chrono::milliseconds idle_release_;
  mutable std::mutex mutex_;
  // Separate waits, so that each notification wakes only threads it concerns: with one variable
  // every part closed or sent woke every writer and the ticker, which then queued on the mutex
  // the reader holds while it converts rows (thousands of futex calls a second in a catch-up).
  std::condition_variable changed_;  // the ticker / supervisor
  std::condition_variable room_;     // the reader (Reserve, Drain)
  std::condition_variable queued_;   // idle writers (NextSealed)
  std::vector<std::unique_ptr<TargetGroup>> groups_;
  std::deque<std::pair<TargetGroup*, Batch*>> queue_;
  size_t in_flight_ = 0;     // batches taken by writers and not Done
  size_t idle_writers_ = 0;  // writers waiting in NextSealed
  uint64_t total_bytes_ = 0;
  uint64_t retained_bytes_ = 0;
  bool aborted_ = false;
  bool closed_ = false;
  bool caught_up_ = false;  // StreamCaughtUp
  std::optional<Error> error_;
};

}  // namespace rowbridge::pipeline
