// Pipeline::Session::Threads: the binlog reader's thread beside the writers, for one session.
// Internal to the pipeline module (session.cpp).
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/error.h"
#include "config/config.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/binlog_reader.h"
#include "pipeline/session.h"
#include "pipeline/writer_pool.h"

namespace rowbridge::pipeline {

// The reader thread beside the writers, and how the two end: drained at a clean stop, cut at an
// error. The reader's own failure aborts the buffers, which wakes the ticker.
class Pipeline::Session::Threads {
 public:
  Threads(BinlogReader& reader, WriterPool& writers, BatchBuffers& buffers,
          const config::SourceConfig& source)
      : reader_(reader), writers_(writers), buffers_(buffers), source_(source) {
    writers_.Start();
    thread_ = std::thread([this] { ReadBinlog(); });
  }
  ~Threads() {
    if (thread_.joinable()) Stop(false);
  }

  // Ends both; on an error path (drain false) nothing more is written.
  void Stop(bool drain) {
    shutting_down_ = true;
    if (drain) {
      // Let the reader finish the transaction it is in, so nothing beyond the final checkpoint
      // reaches ClickHouse; an idle reader is woken by closing its socket.
      reader_.StopAtBoundary();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!reader_done_ && std::chrono::steady_clock::now() < deadline && !buffers_.aborted()) {
        if (!reader_.in_transaction()) reader_.Interrupt();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    reader_.Interrupt();
    if (!drain) buffers_.Abort();
    thread_.join();
    if (drain) buffers_.Close();
    writers_.Join();
  }

  bool source_failed() const { return source_failed_; }

 private:
  void ReadBinlog() {
    struct Done {
      std::atomic<bool>& done;
      ~Done() { done = true; }
    } done{reader_done_};
    try {
      reader_.Run();
      if (!shutting_down_) {
        source_failed_ = true;
        buffers_.Abort(
            Error(ErrorCode::kNetwork,
                  fmt::format("source {}:{} ended the binlog stream", source_.host, source_.port)));
      }
    } catch (const Error& e) {
      if (!shutting_down_) {
        source_failed_ = true;
        buffers_.Abort(e.WithMessage(
            fmt::format("reading the binlog of {}:{}: {}", source_.host, source_.port, e.what())));
      }
    } catch (...) {
      source_failed_ = true;
      buffers_.Abort(CurrentExceptionAsError(
          fmt::format("binlog reader thread of {}:{}", source_.host, source_.port)));
    }
  }

  BinlogReader& reader_;
  WriterPool& writers_;
  BatchBuffers& buffers_;
  const config::SourceConfig& source_;
  std::atomic<bool> source_failed_{false};
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> reader_done_{false};
  std::thread thread_;
};

}  // namespace rowbridge::pipeline
