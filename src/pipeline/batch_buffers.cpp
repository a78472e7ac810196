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
  group.last_sealed_at = std::chrono::steady_clock::now();
  group.sealed = group.filling;
  group.filling = group.filling == &group.batches[0] ? &group.batches[1] : &group.batches[0];
  queue_.push_back(&group);
  ready_.notify_one();
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
      changed_.wait(lock);
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
      changed_.wait(lock);
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
    changed_.wait(lock);
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
      if (b.retained == 0 || b.rows > 0 || &b == g->sealed) continue;
      if (b.retained_since >= kept_before) continue;
      b.block.ReleaseMemory();
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
  ready_.wait(lock, [&] { return aborted_ || !queue_.empty() || (closed_ && Idle()); });
  if (aborted_ || queue_.empty()) return nullptr;
  TargetGroup* group = queue_.front();
  queue_.pop_front();
  ++in_flight_;
  return group;
}

void BatchBuffers::Done(TargetGroup& group) {
  std::lock_guard lock(mutex_);
  --in_flight_;
  Batch& batch = *group.sealed;
  total_bytes_ -= std::min(total_bytes_, batch.bytes);
  const uint64_t used = batch.bytes;
  batch.Reset();
  const uint64_t capacity = batch.block.HeldBytes();
  if (group.retain.ReleaseAfter(used, capacity) ||
      retained_bytes_ + capacity > limits_.max_buffered_bytes / 2) {
    batch.block.ReleaseMemory();
  } else {
    batch.retained = capacity;
    batch.retained_since = std::chrono::steady_clock::now();
    retained_bytes_ += capacity;
  }
  group.sealed = nullptr;
  const Batch& next = *group.filling;
  for (const BatchShare& share : next.shares) {
    if (share.stats != nullptr) share.stats->status.MarkUnflushed(share.received_at);
  }
  if (next.rows > 0 &&
      (Full(next) || closed_ || std::chrono::steady_clock::now() >= DueAt(group))) {
    Seal(group);
  }
  changed_.notify_all();
  if (closed_) ready_.notify_all();
}

void BatchBuffers::Abort(std::optional<Error> error) {
  std::lock_guard lock(mutex_);
  if (!aborted_) {
    aborted_ = true;
    if (error && !error_) error_ = std::move(error);
  }
  changed_.notify_all();
  ready_.notify_all();
}

void BatchBuffers::Close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  SealAll();
  changed_.notify_all();
  ready_.notify_all();
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
