#include "pipeline/batch_buffers.h"

#include <algorithm>

namespace rowbridge::pipeline {

BatchBuffers::BatchBuffers(BatchLimits limits)
    : limits_(limits),
      idle_release_(
          std::max<std::chrono::milliseconds>(std::chrono::seconds(5), 2 * limits.max_delay)) {
  if (limits_.max_rows == 0) limits_.max_rows = 1;
  if (limits_.max_bytes == 0) limits_.max_bytes = 1;
}

TargetGroup& BatchBuffers::AddGroup(std::unique_ptr<TargetGroup> group) {
  groups_.push_back(std::move(group));
  return *groups_.back();
}

void BatchBuffers::Seal(TargetGroup& group) {
  Batch& batch = *group.filling;
  // Its last part; the batch gets a part to fill again when it is done (from the parts sent).
  if (batch.part_rows > 0) {
    batch.closed.push_back(std::move(batch.block));
    batch.part_rows = batch.part_bytes = 0;
  }
  group.last_sealed_at = std::chrono::steady_clock::now();
  group.sealed = &batch;
  group.filling = &batch == &group.batches[0] ? &group.batches[1] : &group.batches[0];
  Enqueue(group, batch);
  // Also wakes the writer streaming it, if one is: the rest of it can go.
  group.part_ready.notify_all();
}

void BatchBuffers::ClosePart(Batch& batch) {
  if (batch.part_rows == 0) return;
  batch.closed.push_back(std::move(batch.block));
  if (!TakeSpare(batch)) batch.block = batch.closed.back().EmptyLike();
  batch.part_rows = batch.part_bytes = 0;
}

bool BatchBuffers::TakeSpare(Batch& batch) {
  if (batch.spare.empty()) return false;
  batch.block = std::move(batch.spare.back());
  batch.spare.pop_back();
  return true;
}

void BatchBuffers::Enqueue(TargetGroup& group, Batch& batch) {
  if (batch.queued || batch.taken) return;
  batch.queued = true;
  queue_.emplace_back(&group, &batch);
  // Any idle writer takes it, so one is enough.
  queued_.notify_one();
  if (idle_writers_ == 0) WakeStreamingWriters();
}

void BatchBuffers::WakeStreamingWriters() {
  for (auto& g : groups_) {
    if (g->writing != nullptr) g->part_ready.notify_all();
  }
}

void BatchBuffers::SealIfFull(TargetGroup& group) {
  Batch& filling = *group.filling;
  if (group.sealed == nullptr && Full(filling)) {
    Seal(group);
    return;
  }
  if (filling.part_rows < limits_.part_rows && filling.part_bytes < limits_.part_bytes) return;
  ClosePart(filling);
  // A writer may stream it only while nothing of the group is in flight (batches of one target
  // are written one after another); otherwise Done offers it.
  if (group.sealed == nullptr) Enqueue(group, filling);
  if (filling.taken) group.part_ready.notify_all();
}

Batch* BatchBuffers::Reserve(std::unique_lock<std::mutex>& lock, TargetGroup& group) {
  for (;;) {
    if (aborted_) return nullptr;
    Batch& filling = *group.filling;
    if (Full(filling)) {
      if (group.sealed == nullptr) {
        Seal(group);
        continue;
      }
      room_.wait(lock);
      continue;
    }
    if (group.writing != nullptr &&
        filling.closed.size() + (group.sealed != nullptr ? group.sealed->closed.size() : 0) >=
            Batch::kMaxClosedParts) {
      // A writer holds this group's batch and sends these parts without us: wait for it rather
      // than let parts pile up while ClickHouse is the slower side.
      room_.wait(lock);
      continue;
    }
    if (held_bytes() >= limits_.max_buffered_bytes && retained_bytes_ > 0) {
      // Kept capacity is the first thing to give up: nothing waits for it.
      ReleaseRetained();
      continue;
    }
    if (held_bytes() >= limits_.max_buffered_bytes) {
      // Writers are behind: hand them the largest batches that can go and wait for room.
      TargetGroup* largest = nullptr;
      for (auto& g : groups_) {
        if (g->sealed == nullptr && g->filling->rows > 0 &&
            (largest == nullptr || g->filling->bytes > largest->filling->bytes)) {
          largest = g.get();
        }
      }
      if (largest != nullptr) Seal(*largest);
      room_.wait(lock);
      continue;
    }
    return &filling;
  }
}

bool BatchBuffers::Drain(std::unique_lock<std::mutex>& lock,
                         const std::vector<TargetGroup*>& groups) {
  for (;;) {
    if (aborted_) return false;
    bool empty = true;
    for (TargetGroup* g : groups) {
      if (g->sealed == nullptr && g->filling->rows > 0) Seal(*g);
      if (g->sealed != nullptr || g->filling->rows > 0) empty = false;
    }
    if (empty) return true;
    room_.wait(lock);
  }
}

SteadyTime BatchBuffers::DueAt(const TargetGroup& group) const {
  const SteadyTime first_row_at = group.filling->first_row_at;
  const SteadyTime oldest = first_row_at + limits_.max_delay;
  if (!caught_up_) return oldest;
  // A group's first batch has no predecessor to keep its distance from. (The zero time point plus
  // min_interval is no bound: the steady clock starts at boot, so on a machine up for less than
  // min_interval it held the first batch back.)
  if (group.last_sealed_at == SteadyTime{}) return first_row_at;
  return std::min(oldest, std::max(first_row_at, group.last_sealed_at + limits_.min_interval));
}

void BatchBuffers::StreamCaughtUp(bool caught_up, SteadyTime now) {
  caught_up_ = caught_up;
  if (!caught_up) return;
  for (auto& g : groups_) {
    if (g->sealed == nullptr && g->filling->rows > 0 && DueAt(*g) <= now) Seal(*g);
  }
}

SteadyTime BatchBuffers::SealDue(SteadyTime now) {
  SteadyTime next = now + limits_.max_delay;
  if (retained_bytes_ > 0) ReleaseRetained(now - idle_release_);
  for (auto& g : groups_) {
    const Batch& f = *g->filling;
    if (f.rows == 0) continue;
    const SteadyTime due = DueAt(*g);
    if (due <= now) {
      if (g->sealed == nullptr) Seal(*g);  // else Done() seals it
    } else {
      next = std::min(next, due);
    }
  }
  return next;
}

void BatchBuffers::ReleaseRetained(SteadyTime kept_before) {
  for (auto& g : groups_) {
    for (Batch& b : g->batches) {
      if (b.retained == 0 || b.rows > 0 || &b == g->sealed || b.taken) continue;
      if (b.retained_since >= kept_before) continue;
      b.ReleaseMemory();
      retained_bytes_ -= b.retained;
      b.retained = 0;
    }
  }
}

void BatchBuffers::SealAll() {
  for (auto& g : groups_) {
    if (g->sealed == nullptr && g->filling->rows > 0) Seal(*g);
  }
}

bool BatchBuffers::Idle() const {
  if (!queue_.empty() || in_flight_ > 0) return false;
  for (const auto& g : groups_) {
    if (g->sealed != nullptr || g->filling->rows > 0) return false;
  }
  return true;
}

TargetGroup* BatchBuffers::NextSealed() {
  std::unique_lock lock(mutex_);
  ++idle_writers_;
  queued_.wait(lock, [&] { return aborted_ || !queue_.empty() || (closed_ && Idle()); });
  --idle_writers_;
  if (aborted_ || queue_.empty()) return nullptr;
  auto [group, batch] = queue_.front();
  queue_.pop_front();
  // Another batch still waits and this was the last idle writer: a streaming writer may end its
  // batch for it (NextPart).
  if (!queue_.empty() && idle_writers_ == 0) WakeStreamingWriters();
  batch->queued = false;
  batch->taken = true;
  group->writing = batch;
  ++in_flight_;
  return group;
}

const mapping::TargetBlock* BatchBuffers::NextPart(TargetGroup& group) {
  std::unique_lock lock(mutex_);
  Batch& batch = *group.writing;
  for (;;) {
    if (aborted_) return nullptr;
    if (!batch.closed.empty()) return &batch.closed.front();
    if (group.sealed == &batch) return nullptr;
    // Streaming a batch that is still filling, with nothing to send: it ends now if it would
    // keep another batch from a writer, or if the buffers are closing.
    if (closed_ || (!queue_.empty() && idle_writers_ == 0)) {
      Seal(group);
      continue;
    }
    group.part_ready.wait(lock);
  }
}

void BatchBuffers::PartSent(TargetGroup& group) {
  std::lock_guard lock(mutex_);
  Batch& batch = *group.writing;
  mapping::TargetBlock part = std::move(batch.closed.front());
  batch.closed.pop_front();
  if (batch.spare.size() < Batch::kSpareParts) {
    part.Clear();
    batch.spare.push_back(std::move(part));
  }
  room_.notify_all();  // a reader waiting for parts to go (Reserve)
}

void BatchBuffers::Done(TargetGroup& group) {
  std::lock_guard lock(mutex_);
  --in_flight_;
  Batch& batch = *group.sealed;
  batch.taken = false;
  group.writing = nullptr;
  total_bytes_ -= std::min(total_bytes_, batch.bytes);
  const uint64_t used = batch.bytes;
  if (batch.block.block().ColumnCount() == 0) {
    // Seal took its part: the next fill goes into a part that was sent, which has its buffers.
    if (!TakeSpare(batch) && !batch.closed.empty()) {
      batch.block = std::move(batch.closed.front());
      batch.closed.pop_front();
    }
  }
  batch.Reset();
  const uint64_t capacity = batch.HeldBytes();
  if (group.retain.ReleaseAfter(used, capacity) ||
      retained_bytes_ + capacity > limits_.max_buffered_bytes / 2) {
    batch.ReleaseMemory();
  } else {
    batch.retained = capacity;
    batch.retained_since = std::chrono::steady_clock::now();
    retained_bytes_ += capacity;
  }
  group.sealed = nullptr;
  Batch& next = *group.filling;
  for (const BatchShare& share : next.shares) {
    if (share.stats != nullptr) share.stats->status.MarkUnflushed(share.received_at);
  }
  if (next.rows > 0 &&
      (Full(next) || closed_ || std::chrono::steady_clock::now() >= DueAt(group))) {
    Seal(group);
  } else if (!next.closed.empty()) {
    Enqueue(group, next);  // parts closed while its predecessor was written: it may stream
  }
  room_.notify_all();
  changed_.notify_all();
  if (closed_) queued_.notify_all();
}

void BatchBuffers::Abort(std::optional<Error> error) {
  std::lock_guard lock(mutex_);
  if (!aborted_) {
    aborted_ = true;
    if (error && !error_) error_ = std::move(error);
  }
  WakeEveryone();
}

void BatchBuffers::Close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  SealAll();
  WakeEveryone();
}

void BatchBuffers::WakeEveryone() {
  changed_.notify_all();
  room_.notify_all();
  queued_.notify_all();
  WakeStreamingWriters();
}

bool BatchBuffers::aborted() const {
  std::lock_guard lock(mutex_);
  return aborted_;
}

std::optional<Error> BatchBuffers::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

uint64_t BatchBuffers::LowestUnflushed(uint64_t reader_next_version) const {
  uint64_t lowest = reader_next_version;
  for (const auto& g : groups_) {
    if (g->sealed != nullptr && g->sealed->rows > 0)
      lowest = std::min(lowest, g->sealed->first_version);
    if (g->filling->rows > 0) lowest = std::min(lowest, g->filling->first_version);
  }
  return lowest;
}

}  // namespace rowbridge::pipeline
