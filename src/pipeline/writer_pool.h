// WriterPool: target.writers threads, each with its own ClickHouse connection, writing one batch
// at a time as one INSERT of its parts' blocks (compressed per target.compression), all or
// nothing; a batch still filling is streamed part by part (see batch_buffers.h).
//
// A writer does not retry: any failure (an Error, or any other exception, turned into an Error
// naming the thread and the table) aborts the buffers with the error, and the pipeline's
// soft restart resumes from the last checkpoint, skipping the rows ClickHouse already has. So an
// INSERT whose outcome is unknown (the connection broke after the data was sent) is never sent
// twice blindly. Each INSERT carries a query_id starting with `query_id_prefix`, which lets the
// next session wait until no INSERT of this one still runs on the server.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "clickhouse/client.h"
#include "pipeline/batch_buffers.h"
#include "server/status.h"

namespace rowbridge::pipeline {

class WriterPool {
 public:
  WriterPool(size_t count, clickhouse::ClientOptions options, BatchBuffers& buffers,
             std::string query_id_prefix, server::Counter& batches_written);
  ~WriterPool();
  // Test hook: called on the writer thread before each batch is sent, with the target's label;
  // whatever it throws is handled like a failed INSERT. Set before Start().
  void SetBeforeInsertForTesting(std::function<void(const std::string&)> hook) {
    before_insert_ = std::move(hook);
  }
  void Start();
  // Waits for every writer to finish (after the buffers were closed or aborted).
  void Join();

 private:
  void Run(size_t index);

  size_t count_;
  clickhouse::ClientOptions options_;
  BatchBuffers& buffers_;
  std::string prefix_;
  server::Counter& batches_written_;
  std::vector<std::thread> threads_;
  std::function<void(const std::string&)> before_insert_;
};

}  // namespace rowbridge::pipeline
