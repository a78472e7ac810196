#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "clickhouse/columns/string.h"
#include "pipeline/batch_buffers.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"
#include "server/table_stats.h"

namespace rowbridge::pipeline {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<TargetGroup> Group(const std::string& name) {
  auto g = std::make_unique<TargetGroup>();
  g->label = name;
  return g;
}

// The row that fills a batch gets it written at once: the end of a backlog must not wait for
// another row or for max_delay (1 h here).
TEST(PipelineBatchBuffers, AFullBatchIsSealedWithoutWaitingForAnotherRow) {
  BatchLimits limits;
  limits.max_rows = 2;
  limits.max_delay = 1h;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& g = buffers.AddGroup(Group("t"));
  const auto now = std::chrono::steady_clock::now();
  uint64_t version = 1;
  auto append = [&] {
    Batch* b = buffers.Reserve(lock, g);
    ASSERT_NE(b, nullptr);
    buffers.Appended(*b, 10, version++, now);
    buffers.SealIfFull(g);
  };
  append();
  EXPECT_EQ(g.sealed, nullptr);  // one row of two: still filling
  append();
  ASSERT_NE(g.sealed, nullptr);
  EXPECT_EQ(g.sealed->rows, 2u);
  EXPECT_EQ(g.filling->rows, 0u);
  lock.unlock();
  EXPECT_EQ(buffers.NextSealed(), &g);
  lock.lock();

  // While that batch is in flight the next one fills up: it waits, and the writer's Done seals it.
  append();
  append();
  EXPECT_EQ(g.filling->rows, 2u);
  lock.unlock();
  buffers.Done(g);
  lock.lock();
  ASSERT_NE(g.sealed, nullptr);
  EXPECT_EQ(g.sealed->rows, 2u);
  EXPECT_EQ(g.sealed->first_version, 3u);
}

TEST(PipelineBatchBuffers, SealsAFullBatchAndWaitsForTheOneInFlight) {
  BatchLimits limits;
  limits.max_rows = 2;
  limits.max_delay = 1h;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& g = buffers.AddGroup(Group("t"));
  const auto now = std::chrono::steady_clock::now();
  uint64_t version = 1;
  for (int i = 0; i < 2; ++i) {
    Batch* b = buffers.Reserve(lock, g);
    ASSERT_NE(b, nullptr);
    buffers.Appended(*b, 10, version++, now);
  }
  EXPECT_EQ(g.sealed, nullptr);
  Batch* b = buffers.Reserve(lock, g);  // the first batch is full: sealed, a new one fills
  ASSERT_NE(g.sealed, nullptr);
  EXPECT_EQ(g.sealed->rows, 2u);
  EXPECT_EQ(b->rows, 0u);
  buffers.Appended(*b, 10, version++, now);
  buffers.Appended(*b, 10, version++, now);
  EXPECT_EQ(buffers.LowestUnflushed(version), 1u);
  lock.unlock();

  // The second batch is full too; the reader must wait until the writer is done with the first.
  std::atomic<bool> reserved{false};
  std::thread reader([&] {
    std::unique_lock l(buffers.mutex());
    Batch* next = buffers.Reserve(l, g);
    reserved = next != nullptr;
  });
  TargetGroup* writing = buffers.NextSealed();
  ASSERT_EQ(writing, &g);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(reserved.load());
  buffers.Done(g);
  reader.join();
  EXPECT_TRUE(reserved.load());
  lock.lock();
  EXPECT_EQ(buffers.LowestUnflushed(version), 3u);  // versions 1 and 2 are written
  EXPECT_EQ(buffers.total_bytes(), 20u);
}

TEST(PipelineBatchBuffers, SealsAfterMaxDelay) {
  BatchLimits limits;
  limits.max_delay = 100ms;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& g = buffers.AddGroup(Group("t"));
  const auto start = std::chrono::steady_clock::now();
  buffers.Appended(*buffers.Reserve(lock, g), 5, 7, start);
  EXPECT_EQ(buffers.SealDue(start + 50ms), start + 100ms);
  EXPECT_EQ(g.sealed, nullptr);
  buffers.SealDue(start + 100ms);
  ASSERT_NE(g.sealed, nullptr);
  EXPECT_EQ(g.sealed->first_version, 7u);
  EXPECT_FALSE(buffers.Idle());
}

// Caught up, a table's rows are written at once (no max_delay wait), but no sooner than
// min_interval after its previous batch; under a backlog only the bounds and max_delay count.
TEST(PipelineBatchBuffers, ACaughtUpStreamIsWrittenAtOnceButAtMostOncePerMinInterval) {
  BatchLimits limits;
  limits.max_delay = 3h;
  limits.min_interval = 1h;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& g = buffers.AddGroup(Group("t"));
  const auto start = std::chrono::steady_clock::now();
  buffers.Appended(*buffers.Reserve(lock, g), 5, 1, start);
  buffers.StreamCaughtUp(false, start);
  EXPECT_EQ(g.sealed, nullptr);  // a backlog: the batch keeps filling
  buffers.StreamCaughtUp(true, start);
  ASSERT_NE(g.sealed, nullptr);  // caught up: written at once
  lock.unlock();
  ASSERT_EQ(buffers.NextSealed(), &g);
  buffers.Done(g);
  lock.lock();

  const auto later = std::chrono::steady_clock::now();
  buffers.Appended(*buffers.Reserve(lock, g), 5, 2, later);
  buffers.StreamCaughtUp(true, later);
  EXPECT_EQ(g.sealed, nullptr);  // one batch went in less than min_interval ago
  const auto due = buffers.SealDue(later);
  EXPECT_EQ(due, g.last_sealed_at + 1h);  // before max_delay (3 h) runs out
  EXPECT_EQ(g.sealed, nullptr);
  buffers.SealDue(due);
  ASSERT_NE(g.sealed, nullptr);
  EXPECT_EQ(g.sealed->first_version, 2u);

  // Behind again: a new batch waits for max_delay, not min_interval.
  buffers.StreamCaughtUp(false, due);
  lock.unlock();
  ASSERT_EQ(buffers.NextSealed(), &g);
  buffers.Done(g);
  lock.lock();
  buffers.Appended(*buffers.Reserve(lock, g), 5, 3, due);
  EXPECT_EQ(buffers.SealDue(due + 2h), due + 3h);
  EXPECT_EQ(g.sealed, nullptr);
}

TEST(PipelineBatchBuffers, MemoryBoundMakesTheReaderWait) {
  BatchLimits limits;
  limits.max_rows = 1000;
  limits.max_bytes = 1000;
  limits.max_buffered_bytes = 100;
  limits.max_delay = 1h;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& a = buffers.AddGroup(Group("a"));
  TargetGroup& b = buffers.AddGroup(Group("b"));
  const auto now = std::chrono::steady_clock::now();
  buffers.Appended(*buffers.Reserve(lock, a), 70, 1, now);
  buffers.Appended(*buffers.Reserve(lock, b), 40, 2, now);
  lock.unlock();
  std::atomic<bool> reserved{false};
  std::thread reader([&] {
    std::unique_lock l(buffers.mutex());
    reserved = buffers.Reserve(l, b) != nullptr;
  });
  // The largest batch is handed to the writers; the reader waits until it is written.
  TargetGroup* writing = buffers.NextSealed();
  ASSERT_EQ(writing, &a);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(reserved.load());
  buffers.Done(a);
  reader.join();
  EXPECT_TRUE(reserved.load());
}

// A group whose batches have one String column, so a test can put real bytes in them.
std::unique_ptr<TargetGroup> GroupWithText(const std::string& name) {
  auto g = Group(name);
  for (Batch& b : g->batches)
    b.block.block().AddColumn("s", std::make_unique<clickhouse::ColumnString>());
  return g;
}

// Reader side: one row of `value` into `group`; then a writer writes the batch (sends its parts).
void WriteOneRowBatch(BatchBuffers& buffers, TargetGroup& group, const std::string& value,
                      uint64_t version) {
  {
    std::unique_lock lock(buffers.mutex());
    Batch* batch = buffers.Reserve(lock, group);
    ASSERT_NE(batch, nullptr);
    dynamic_cast<clickhouse::ColumnString&>(batch->block.block().At(0)).Append(value);
    buffers.Appended(*batch, value.size(), version, std::chrono::steady_clock::now());
    buffers.SealAll();
  }
  ASSERT_EQ(buffers.NextSealed(), &group);
  while (buffers.NextPart(group) != nullptr) buffers.PartSent(group);
  buffers.Done(group);
}

// One 64 MiB row must not pin 64 MiB once it is written; batches of a steady size keep their
// buffers, and what they keep is counted.
TEST(PipelineBatchBuffers, AnOutsizedBatchGivesItsMemoryBackAndKeptBuffersAreCounted) {
  BatchLimits limits;
  limits.max_delay = 1h;
  BatchBuffers buffers(limits);
  TargetGroup* g;
  {
    std::lock_guard lock(buffers.mutex());
    g = &buffers.AddGroup(GroupWithText("t"));
  }
  const std::string small(2 << 20, 's');
  uint64_t version = 1;
  for (int i = 0; i < 4; ++i) WriteOneRowBatch(buffers, *g, small, version++);
  {
    std::lock_guard lock(buffers.mutex());
    EXPECT_EQ(buffers.total_bytes(), 0u);  // nothing waits to be written
    // Both batches keep their ~2 MiB, and the gauge's figure says so.
    EXPECT_GE(buffers.held_bytes(), 2 * small.size());
    EXPECT_EQ(buffers.held_bytes(), g->batches[0].HeldBytes() + g->batches[1].HeldBytes());
  }
  const std::string big(64 << 20, 'b');
  WriteOneRowBatch(buffers, *g, big, version++);
  {
    std::lock_guard lock(buffers.mutex());
    const uint64_t held = g->batches[0].HeldBytes() + g->batches[1].HeldBytes();
    EXPECT_LT(held, 8u << 20) << "the 64 MiB batch kept its buffers";
    EXPECT_EQ(buffers.held_bytes(), held);
    // No row for a while: the ticker frees what the group still keeps.
    buffers.SealDue(std::chrono::steady_clock::now() + 1s);
    EXPECT_EQ(buffers.held_bytes(), held);
    buffers.SealDue(std::chrono::steady_clock::now() + 3h);  // idle_release: 2 x max_delay
    EXPECT_EQ(buffers.held_bytes(), 0u);
    EXPECT_EQ(g->batches[0].HeldBytes() + g->batches[1].HeldBytes(), 0u);
  }
}

// Kept buffers count against memory.max_buffered_bytes: a reader over the bound frees them
// rather than waiting for writers that have nothing to write.
TEST(PipelineBatchBuffers, KeptBuffersAreFreedFirstWhenTheBoundIsReached) {
  BatchLimits limits;
  limits.max_delay = 1h;
  limits.max_buffered_bytes = 16 << 20;
  BatchBuffers buffers(limits);
  TargetGroup *a, *b;
  {
    std::lock_guard lock(buffers.mutex());
    a = &buffers.AddGroup(GroupWithText("a"));
    b = &buffers.AddGroup(GroupWithText("b"));
  }
  const std::string row(3 << 20, 'r');
  uint64_t version = 1;
  for (int i = 0; i < 3; ++i) WriteOneRowBatch(buffers, *a, row, version++);
  std::unique_lock lock(buffers.mutex());
  const uint64_t kept = buffers.held_bytes();
  ASSERT_GT(kept, 0u);
  ASSERT_LE(kept, limits.max_buffered_bytes / 2);  // never more than half the bound is kept
  // Fill b up to the bound: the next Reserve frees a's kept buffers instead of blocking.
  Batch* batch = buffers.Reserve(lock, *b);
  ASSERT_NE(batch, nullptr);
  buffers.Appended(*batch, limits.max_buffered_bytes - kept, version++,
                   std::chrono::steady_clock::now());
  ASSERT_GE(buffers.held_bytes(), limits.max_buffered_bytes);
  Batch* again = buffers.Reserve(lock, *b);
  EXPECT_EQ(again, batch);
  EXPECT_EQ(a->batches[0].HeldBytes() + a->batches[1].HeldBytes(), 0u);
  EXPECT_EQ(buffers.held_bytes(), limits.max_buffered_bytes - kept);
}

TEST(PipelineBatchBuffers, AbortWakesEveryone) {
  BatchLimits limits;
  limits.max_rows = 1;
  BatchBuffers buffers(limits);
  TargetGroup* g;
  {
    std::unique_lock lock(buffers.mutex());
    g = &buffers.AddGroup(Group("t"));
    buffers.Appended(*buffers.Reserve(lock, *g), 1, 1, std::chrono::steady_clock::now());
    buffers.Reserve(lock, *g);  // seals the first
    buffers.Appended(*g->filling, 1, 2, std::chrono::steady_clock::now());
  }
  std::thread reader([&] {
    std::unique_lock l(buffers.mutex());
    EXPECT_EQ(buffers.Reserve(l, *g), nullptr);
  });
  std::this_thread::sleep_for(20ms);
  buffers.Abort(Error(ErrorCode::kNetwork, "gone"));
  reader.join();
  EXPECT_EQ(buffers.NextSealed(), nullptr);
  ASSERT_TRUE(buffers.error().has_value());
  EXPECT_STREQ(buffers.error()->what(), "gone");
}

TEST(PipelineBatchBuffers, CloseDrainsThenEnds) {
  BatchBuffers buffers(BatchLimits{});
  TargetGroup* g;
  {
    std::unique_lock lock(buffers.mutex());
    g = &buffers.AddGroup(Group("t"));
    buffers.Appended(*buffers.Reserve(lock, *g), 1, 1, std::chrono::steady_clock::now());
  }
  buffers.Close();
  EXPECT_EQ(buffers.NextSealed(), g);
  buffers.Done(*g);
  EXPECT_EQ(buffers.NextSealed(), nullptr);
  std::lock_guard lock(buffers.mutex());
  EXPECT_TRUE(buffers.Idle());
  EXPECT_EQ(buffers.LowestUnflushed(9), 9u);
}

}  // namespace
}  // namespace rowbridge::pipeline

namespace rowbridge::pipeline {
namespace {

// The feed of /healthz's rule on changes waiting unflushed: a table is marked when a batch takes
// its first row (not per row), the writer clears it at the flush, and Done marks it again with
// the time of its rows in the batch that filled meanwhile.
TEST(PipelineBatchBuffers, TablesAreMarkedUnflushedFromTheirFirstRowInABatchToItsFlush) {
  server::MetricsRegistry registry;
  server::PipelineMetrics metrics(registry);
  server::StatusBoard board;
  server::TableStats orders(metrics, board, "shop", "orders", "a", "orders");
  server::TableStats items(metrics, board, "shop", "items", "a", "items");
  BatchLimits limits;
  limits.max_rows = 100;
  limits.max_delay = 1h;
  BatchBuffers buffers(limits);
  std::unique_lock lock(buffers.mutex());
  TargetGroup& g = buffers.AddGroup(Group("t"));
  uint64_t version = 1;
  auto append = [&](server::TableStats& stats) {
    Batch* b = buffers.Reserve(lock, g);
    ASSERT_NE(b, nullptr);
    buffers.Appended(*b, 10, version++, std::chrono::steady_clock::now());
    b->ShareOf(&stats);
  };
  EXPECT_EQ(orders.status.unflushed_since(), std::nullopt);
  append(orders);
  const auto first = orders.status.unflushed_since();
  ASSERT_TRUE(first.has_value());
  // Kept in milliseconds.
  EXPECT_EQ(*first,
            std::chrono::floor<std::chrono::milliseconds>(g.filling->shares.at(0).received_at));
  append(orders);  // the same batch: the mark stays the first row's
  EXPECT_EQ(orders.status.unflushed_since(), first);
  EXPECT_EQ(items.status.unflushed_since(), std::nullopt);

  buffers.SealAll();
  lock.unlock();
  ASSERT_EQ(buffers.NextSealed(), &g);
  lock.lock();
  std::this_thread::sleep_for(2ms);
  append(items);  // while the first batch is written, the next fills with items only
  const auto items_since = items.status.unflushed_since();
  ASSERT_TRUE(items_since.has_value());
  EXPECT_GT(*items_since, *first);
  lock.unlock();

  // The writer: the flushed batch's tables are cleared, then Done marks the filling batch's.
  for (const BatchShare& share : g.sealed->shares) share.stats->status.ClearUnflushed();
  EXPECT_EQ(orders.status.unflushed_since(), std::nullopt);
  buffers.Done(g);
  EXPECT_EQ(orders.status.unflushed_since(), std::nullopt);
  EXPECT_EQ(items.status.unflushed_since(), items_since);

  lock.lock();
  buffers.SealAll();
  lock.unlock();
  ASSERT_EQ(buffers.NextSealed(), &g);
  for (const BatchShare& share : g.sealed->shares) share.stats->status.ClearUnflushed();
  buffers.Done(g);
  EXPECT_EQ(items.status.unflushed_since(), std::nullopt);
}

}  // namespace
}  // namespace rowbridge::pipeline

namespace rowbridge::pipeline {
namespace {

// Parts of a batch: a writer streams a batch while it fills, one closed part after another, in
// order, and the batch ends like any other.
class PipelineBatchParts : public ::testing::Test {
 protected:
  PipelineBatchParts() {
    limits_.max_rows = 10;
    limits_.part_rows = 3;
    limits_.max_delay = std::chrono::hours(1);
    buffers_ = std::make_unique<BatchBuffers>(limits_);
    std::lock_guard lock(buffers_->mutex());
    group_ = &buffers_->AddGroup(GroupWithText("t"));
  }

  // Reader: one row holding its version as text.
  void Append() {
    std::unique_lock lock(buffers_->mutex());
    Batch* batch = buffers_->Reserve(lock, *group_);
    ASSERT_NE(batch, nullptr);
    const std::string value = std::to_string(version_);
    dynamic_cast<clickhouse::ColumnString&>(batch->block.block().At(0)).Append(value);
    buffers_->Appended(*batch, value.size(), version_++, std::chrono::steady_clock::now());
    buffers_->SealIfFull(*group_);
  }

  // The versions a part holds, in order.
  static std::vector<std::string> Values(const mapping::TargetBlock& part) {
    const auto& column = dynamic_cast<const clickhouse::ColumnString&>(part.block().At(0));
    std::vector<std::string> values;
    for (size_t i = 0; i < column.Size(); ++i) values.emplace_back(column.At(i));
    return values;
  }

  BatchLimits limits_;
  std::unique_ptr<BatchBuffers> buffers_;
  TargetGroup* group_ = nullptr;
  uint64_t version_ = 1;
};

TEST_F(PipelineBatchParts, AWriterStreamsAFillingBatchPartByPartThenItsRest) {
  Append();
  Append();
  {
    std::lock_guard lock(buffers_->mutex());
    EXPECT_TRUE(group_->filling->closed.empty());
  }
  Append();  // the third row closes the first part: the batch may stream
  ASSERT_EQ(buffers_->NextSealed(), group_);
  Batch* batch = group_->writing;
  {
    std::lock_guard lock(buffers_->mutex());
    EXPECT_EQ(batch, group_->filling);  // taken while it fills
    EXPECT_EQ(group_->sealed, nullptr);
  }
  const mapping::TargetBlock* part = buffers_->NextPart(*group_);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(Values(*part), (std::vector<std::string>{"1", "2", "3"}));
  buffers_->PartSent(*group_);

  // Nothing closed yet: the writer waits for the next part.
  std::atomic<bool> got{false};
  std::thread writer([&] {
    const mapping::TargetBlock* next = buffers_->NextPart(*group_);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(Values(*next), (std::vector<std::string>{"4", "5", "6"}));
    got = true;
  });
  Append();
  Append();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(got.load());
  Append();
  writer.join();
  EXPECT_TRUE(got.load());
  buffers_->PartSent(*group_);
  {
    std::lock_guard lock(buffers_->mutex());
    // The sent part's columns were reused for the part being filled: no third part was made.
    EXPECT_LE(batch->closed.size() + batch->spare.size(), 1u);
  }

  // Full at 10 rows: the rest (7-9, then 10) goes, and the batch ends there.
  for (int i = 0; i < 4; ++i) Append();
  {
    std::lock_guard lock(buffers_->mutex());
    EXPECT_EQ(group_->sealed, batch);
    EXPECT_EQ(batch->rows, 10u);
  }
  std::vector<std::string> rest;
  while (const mapping::TargetBlock* p = buffers_->NextPart(*group_)) {
    for (const auto& v : Values(*p)) rest.push_back(v);
    buffers_->PartSent(*group_);
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"7", "8", "9", "10"}));
  EXPECT_FALSE(buffers_->aborted());
  buffers_->Done(*group_);
  std::lock_guard lock(buffers_->mutex());
  EXPECT_TRUE(buffers_->Idle());
  EXPECT_EQ(buffers_->total_bytes(), 0u);
}

// A streaming writer with nothing to send ends its batch when another batch waits and no writer
// is free (it would otherwise hold it until max_delay).
TEST_F(PipelineBatchParts, AWaitingStreamEndsWhenAnotherBatchNeedsTheWriter) {
  for (int i = 0; i < 3; ++i) Append();
  ASSERT_EQ(buffers_->NextSealed(), group_);
  ASSERT_NE(buffers_->NextPart(*group_), nullptr);
  buffers_->PartSent(*group_);
  Append();  // part of the streamed batch, not closed
  TargetGroup* other;
  {
    std::unique_lock lock(buffers_->mutex());
    other = &buffers_->AddGroup(GroupWithText("u"));
    buffers_->Appended(*buffers_->Reserve(lock, *other), 1, version_++,
                       std::chrono::steady_clock::now());
    buffers_->SealAll();  // seals `other` (queued) and the streamed batch alike
  }
  // The streamed one was sealed too by SealAll; even had it not been, the queued batch would
  // have ended it. Its last row still goes.
  const mapping::TargetBlock* last = buffers_->NextPart(*group_);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(Values(*last), (std::vector<std::string>{"4"}));
  buffers_->PartSent(*group_);
  EXPECT_EQ(buffers_->NextPart(*group_), nullptr);
  buffers_->Done(*group_);
  EXPECT_EQ(buffers_->NextSealed(), other);
}

TEST_F(PipelineBatchParts, AStreamedBatchWithNothingToSendIsSealedForAQueuedBatch) {
  for (int i = 0; i < 3; ++i) Append();
  ASSERT_EQ(buffers_->NextSealed(), group_);
  ASSERT_NE(buffers_->NextPart(*group_), nullptr);
  buffers_->PartSent(*group_);
  Append();  // row 4: in the streamed batch's open part
  // The only writer waits for the streamed batch's next part.
  std::vector<std::string> rest;
  bool ended = false;
  std::thread writer([&] {
    while (const mapping::TargetBlock* p = buffers_->NextPart(*group_)) {
      for (const auto& v : Values(*p)) rest.push_back(v);
      buffers_->PartSent(*group_);
    }
    ended = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  // Another table's batch fills up and waits for a writer: the streamed batch ends for it.
  TargetGroup* other;
  {
    std::lock_guard lock(buffers_->mutex());
    other = &buffers_->AddGroup(GroupWithText("u"));
  }
  for (int i = 0; i < 10; ++i) {
    std::unique_lock lock(buffers_->mutex());
    Batch* b = buffers_->Reserve(lock, *other);
    ASSERT_NE(b, nullptr);
    buffers_->Appended(*b, 1, version_++, std::chrono::steady_clock::now());
    buffers_->SealIfFull(*other);
  }
  writer.join();
  EXPECT_TRUE(ended);
  EXPECT_EQ(rest, (std::vector<std::string>{"4"}));
  {
    std::lock_guard lock(buffers_->mutex());
    EXPECT_EQ(group_->sealed, group_->writing);
    EXPECT_EQ(group_->sealed->rows, 4u);
  }
  buffers_->Done(*group_);
  EXPECT_EQ(buffers_->NextSealed(), other);
}

// While a writer holds the group's batch, parts do not pile up behind a slow ClickHouse: the
// reader waits once Batch::kMaxClosedParts of them wait to be sent.
TEST_F(PipelineBatchParts, TheReaderWaitsWhileItsWriterHasPartsToSend) {
  for (int i = 0; i < 3; ++i) Append();
  ASSERT_EQ(buffers_->NextSealed(), group_);
  for (int i = 0; i < 3; ++i) Append();
  {
    std::lock_guard lock(buffers_->mutex());
    ASSERT_EQ(group_->filling->closed.size(), Batch::kMaxClosedParts);
  }
  std::atomic<bool> appended{false};
  std::thread reader([&] {
    Append();
    appended = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(appended.load());
  ASSERT_NE(buffers_->NextPart(*group_), nullptr);
  buffers_->PartSent(*group_);
  reader.join();
  EXPECT_TRUE(appended.load());
}

// While a group's batch is written, its next batch may close parts but is not offered to a
// second writer: one target's batches are written one after another, in version order.
TEST_F(PipelineBatchParts, TheNextBatchStreamsOnlyOnceItsPredecessorIsDone) {
  for (int i = 0; i < 10; ++i) Append();  // full: sealed and queued
  ASSERT_EQ(buffers_->NextSealed(), group_);
  // Its parts are sent (they would hold the reader up otherwise), but the INSERT has not ended.
  while (buffers_->NextPart(*group_) != nullptr) buffers_->PartSent(*group_);
  for (int i = 0; i < 3; ++i) Append();  // the next batch closes a part
  {
    std::lock_guard lock(buffers_->mutex());
    EXPECT_EQ(group_->filling->closed.size(), 1u);
    EXPECT_FALSE(group_->filling->queued);
  }
  buffers_->Done(*group_);
  ASSERT_EQ(buffers_->NextSealed(), group_);
  const mapping::TargetBlock* part = buffers_->NextPart(*group_);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(Values(*part), (std::vector<std::string>{"11", "12", "13"}));
}

}  // namespace
}  // namespace rowbridge::pipeline
