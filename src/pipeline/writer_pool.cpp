#include "pipeline/writer_pool.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

namespace rowbridge::pipeline {

WriterPool::WriterPool(size_t count, clickhouse::ClientOptions options, BatchBuffers& buffers,
                       std::string query_id_prefix, server::Counter& batches_written)
    : count_(count == 0 ? 1 : count),
      options_(std::move(options)),
      buffers_(buffers),
      prefix_(std::move(query_id_prefix)),
      batches_written_(batches_written) {}

WriterPool::~WriterPool() {
  buffers_.Abort();
  Join();
}

void WriterPool::Start() {
  for (size_t i = 0; i < count_; ++i) threads_.emplace_back([this, i] { Run(i); });
}

void WriterPool::Join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void WriterPool::Run(size_t index) {
  std::unique_ptr<clickhouse::Client> client;
  uint64_t sequence = 0;
  while (TargetGroup* group = buffers_.NextSealed()) {
    // The batch may still be filling (streamed): its rows and shares are read once it is sealed,
    // that is once NextPart has returned nullptr. Its first version is set with its first row.
    Batch& batch = *group->writing;
    const uint64_t first_version = batch.first_version;
    try {
      if (before_insert_) before_insert_(group->label);
      if (client == nullptr) {
        client = std::make_unique<clickhouse::Client>(options_);
      } else if (!client->connected()) {
        client->Reconnect();
      }
      clickhouse::QueryOptions query;
      query.query_id = fmt::format("{}w{}-{}", prefix_, index, ++sequence);
      // Several blocks, and the end may never come (a stop, a failure): ClickHouse must write
      // all of them or none.
      query.all_or_nothing = true;
      // Time spent talking to ClickHouse only, not waiting for a streamed batch's rows.
      std::chrono::steady_clock::duration sending{};
      auto started = std::chrono::steady_clock::now();
      client->BeginInsert(group->insert_sql, query);
      sending += std::chrono::steady_clock::now() - started;
      while (const mapping::TargetBlock* part = buffers_.NextPart(*group)) {
        started = std::chrono::steady_clock::now();
        client->SendBlock(part->block());
        sending += std::chrono::steady_clock::now() - started;
        buffers_.PartSent(*group);
      }
      // Aborted: the connection ends with this thread inside the INSERT, which ClickHouse then
      // drops whole.
      if (buffers_.aborted()) return;
      started = std::chrono::steady_clock::now();
      client->EndInsert();
      sending += std::chrono::steady_clock::now() - started;
      const double seconds = std::chrono::duration<double>(sending).count();
      const auto now = std::chrono::system_clock::now();
      const double now_seconds = std::chrono::duration<double>(now.time_since_epoch()).count();
      for (const BatchShare& share : batch.shares) {
        server::TableStats& s = *share.stats;
        s.inserted.Increment(share.inserted);
        s.updated.Increment(share.updated);
        s.deleted.Increment(share.deleted);
        s.bytes.Increment(share.bytes);
        s.flush_seconds.Observe(seconds);
        s.flush_rows.Observe(static_cast<double>(share.inserted + share.updated + share.deleted));
        s.last_flush_time.Set(now_seconds);
        const auto newest = CommitTimePoint(share.newest_commit_us);
        s.lag.Set(std::max(0.0, now_seconds - static_cast<double>(share.newest_commit_us) / 1e6));
        s.status.AddRows(share.inserted, share.updated, share.deleted);
        s.status.RecordFlush(now, newest);
        // Done() marks the table again if the batch filling meanwhile holds its rows.
        s.status.ClearUnflushed();
      }
      batches_written_.Increment();
      spdlog::debug("wrote {} rows (versions {}..{}) to {} in {:.3f}s", batch.rows,
                    batch.first_version, batch.last_version, group->label, seconds);
      buffers_.Done(*group);
    } catch (...) {
      // Whatever escapes (a server error, std::bad_alloc, a bug) takes the one error path: the
      // buffers are aborted with it and the pipeline decides, instead of std::terminate.
      buffers_.Abort(CurrentExceptionAsError(
          fmt::format("writer thread {} writing the batch from version {} to {} on ClickHouse "
                      "{}:{}",
                      index, first_version, group->label, options_.host, options_.port)));
      return;
    }
  }
}

}  // namespace rowbridge::pipeline
