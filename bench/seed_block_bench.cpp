// Building and LZ4-compressing ClickHouse native blocks from real seed rows (the seed binlog of
// seed_binlog.h) into the seed's ClickHouse table types, the way the pipeline does it: cells go
// through the mapping converters into reusable columns (SeedBlockBuilder), the block is
// serialized as a Data packet body (WriteBlock at our protocol revision) straight into LZ4 frames
// with checksums (FrameStream + FrameCodec), as Client::SendData does: column buffers are
// compressed where they lie, the body is never assembled in one buffer. Batches of kBatchRows
// rows, the pipeline's default batch.max_rows.
//
//   BM_SeedBlockBuild           convert only (cells already decoded)
//   BM_SeedBlockBuildLz4        convert + serialize + LZ4: the per-batch work of an INSERT
//   BM_SeedBinlogToLz4Blocks    the whole file end to end: decode + convert + serialize + LZ4, rows
//                               converted as they are decoded (ConversionPlan::AppendNext), as the
//                               pipeline does with full images
//
// rows_per_second is per CPU-second of the single benchmark thread. allocs_per_row counts the
// global operator new in the timed loop (alloc_counter.h); steady state must be ~0.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "binlog/binlog_event_reader.h"
#include "binlog/event_type.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "clickhouse/block.h"
#include "clickhouse/compression.h"
#include "clickhouse/protocol.h"
#include "clickhouse/wire.h"
#include "common/error.h"
#include "memory_event_source.h"
#include "seed_binlog.h"
#include "seed_block.h"

namespace rowbridge::bench {
namespace {

constexpr size_t kBatchRows = 100000;

// The first kBatchRows rows of the seed binlog as decoded cells (pointing into the in-memory
// file, which lives as long as the process).
struct DecodedBatch {
  std::shared_ptr<const binlog::TableInfo> table;
  std::vector<binlog::Cell> cells;  // columns per row, row after row
  size_t columns = 0;
  size_t rows = 0;
  std::string error;
};

const DecodedBatch& FirstBatch() {
  static const DecodedBatch batch = [] {
    DecodedBatch b;
    const SeedBinlog& seed = LoadSeedBinlog();
    if (!seed.error.empty()) {
      b.error = seed.error;
      return b;
    }
    MemoryEventSource source(seed.bytes, "seed binlog");
    binlog::BinlogEventReader reader(source);
    binlog::RowCursor cursor;
    std::string scratch;
    binlog::Event event;
    while (b.rows < kBatchRows && reader.Next(event)) {
      if (!binlog::IsRowsEvent(event.type())) continue;
      const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, reader.format(), scratch);
      if (rows.compressed) Fail(ErrorCode::kUnsupported, "seed binlog: compressed rows events");
      auto table = reader.tables().FindShared(rows.table_id);
      if (!table) continue;
      if (!b.table) {
        b.table = table;
        b.columns = table->map.columns.size();
      }
      cursor.Reset(rows, *table);
      while (b.rows < kBatchRows && cursor.Next()) {
        if (cursor.after().size() != b.columns)
          Fail(ErrorCode::kCorruption, "seed binlog: a row image without every column");
        b.cells.insert(b.cells.end(), cursor.after().begin(), cursor.after().end());
        ++b.rows;
      }
    }
    if (b.rows < kBatchRows) b.error = "the seed binlog holds fewer rows than one batch";
    return b;
  }();
  return batch;
}

void Report(benchmark::State& state, uint64_t rows, uint64_t allocations, uint64_t block_bytes,
            uint64_t compressed_bytes) {
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
  const double per_row = static_cast<double>(allocations) / static_cast<double>(rows);
  state.counters["allocs_per_row"] = per_row;
  if (block_bytes > 0) {
    state.SetBytesProcessed(static_cast<int64_t>(block_bytes));
    state.counters["lz4_ratio"] =
        static_cast<double>(block_bytes) / static_cast<double>(compressed_bytes);
    state.counters["block_bytes_per_row"] =
        static_cast<double>(block_bytes) / static_cast<double>(rows);
  }
  // Buffers reach their batch size on the warm-up batch; a handful of allocations per batch
  // (one per frame of output, say) is fine, one per 10,000 rows is not.
  if (per_row > 1e-4) {
    const std::string message =
        "heap allocations in the steady state: " + std::to_string(per_row) + " per row";
    state.SkipWithError(message.c_str());
  }
}

// Takes the frames as Client::SendData's socket does, one by one as they are made, and counts
// them: the block bytes they hold (from their headers) and their compressed size.
struct FrameCounter {
  uint64_t block_bytes = 0;
  uint64_t compressed = 0;
  clickhouse::FrameStream::Drain Drain() {
    return [this](std::string& pending, std::string_view frame) {
      pending.clear();
      block_bytes +=
          clickhouse::ParseFrameHeader(frame, clickhouse::FrameLimits{}, "seed block frame")
              .uncompressed_size;
      compressed += frame.size();
    };
  }
};

void BM_SeedBlockBuild(benchmark::State& state) {
  const DecodedBatch& batch = FirstBatch();
  if (!batch.error.empty()) {
    state.SkipWithError(batch.error.c_str());
    return;
  }
  SeedBlockBuilder builder(*batch.table);
  auto fill = [&] {
    builder.Clear();
    for (size_t r = 0; r < batch.rows; ++r)
      builder.AddRow({batch.cells.data() + r * batch.columns, batch.columns},
                     static_cast<int64_t>(r));
  };
  fill();  // warm-up: buffers reach their batch size
  uint64_t rows = 0;
  const uint64_t before = HeapAllocations();
  for (auto _ : state) {
    fill();
    benchmark::ClobberMemory();
    rows += batch.rows;
  }
  Report(state, rows, HeapAllocations() - before, 0, 0);
}
BENCHMARK(BM_SeedBlockBuild)->Unit(benchmark::kMillisecond);

void BM_SeedBlockBuildLz4(benchmark::State& state) {
  const DecodedBatch& batch = FirstBatch();
  if (!batch.error.empty()) {
    state.SkipWithError(batch.error.c_str());
    return;
  }
  SeedBlockBuilder builder(*batch.table);
  clickhouse::WireWriter scratch;
  clickhouse::FrameCodec codec(clickhouse::CompressionMethod::kLz4);
  clickhouse::FrameStream stream;
  std::string pending;
  FrameCounter counter;
  auto run = [&] {
    builder.Clear();
    for (size_t r = 0; r < batch.rows; ++r)
      builder.AddRow({batch.cells.data() + r * batch.columns, batch.columns},
                     static_cast<int64_t>(r));
    // As Client::SendData does it: columns go into the LZ4 frames without an assembled body,
    // each frame leaves as soon as it is made.
    stream.Start(codec, pending, counter.Drain());
    clickhouse::WriteBlock(stream, builder.block(), clickhouse::kClientRevision, scratch);
    stream.Finish();
  };
  run();  // warm-up
  counter = FrameCounter{};
  uint64_t rows = 0;
  const uint64_t before = HeapAllocations();
  for (auto _ : state) {
    run();
    rows += batch.rows;
  }
  Report(state, rows, HeapAllocations() - before, counter.block_bytes, counter.compressed);
}
BENCHMARK(BM_SeedBlockBuildLz4)->Unit(benchmark::kMillisecond);

void BM_SeedBinlogToLz4Blocks(benchmark::State& state) {
  const SeedBinlog& seed = LoadSeedBinlog();
  const DecodedBatch& batch = FirstBatch();
  if (!batch.error.empty()) {
    state.SkipWithError(batch.error.c_str());
    return;
  }
  SeedBlockBuilder builder(*batch.table);
  clickhouse::WireWriter body;
  clickhouse::FrameCodec codec(clickhouse::CompressionMethod::kLz4);
  clickhouse::FrameStream stream;
  std::string pending;
  FrameCounter counter;
  binlog::RowCursor cursor;
  std::string scratch;
  auto flush = [&] {
    stream.Start(codec, pending, counter.Drain());
    clickhouse::WriteBlock(stream, builder.block(), clickhouse::kClientRevision, body);
    stream.Finish();
    builder.Clear();
  };
  auto pass = [&] {
    MemoryEventSource source(seed.bytes, "seed binlog");
    binlog::BinlogEventReader reader(source);
    binlog::Event event;
    uint64_t rows = 0;
    while (reader.Next(event)) {
      if (!binlog::IsRowsEvent(event.type())) continue;
      const binlog::RowsEvent ev = binlog::ParseRowsEvent(event, reader.format(), scratch);
      const binlog::TableInfo* table = reader.tables().Find(ev.table_id);
      if (table == nullptr) continue;
      cursor.Reset(ev, *table);
      if (!cursor.full_images()) Fail(ErrorCode::kUnsupported, "seed binlog: partial row images");
      while (!cursor.AtEnd()) {
        builder.AddNext(cursor, static_cast<int64_t>(rows++));
        if (builder.rows() == kBatchRows) flush();
      }
    }
    if (builder.rows() > 0) flush();
    return rows;
  };
  pass();  // warm-up
  counter = FrameCounter{};
  uint64_t rows = 0;
  const uint64_t before = HeapAllocations();
  for (auto _ : state) rows += pass();
  Report(state, rows, HeapAllocations() - before, counter.block_bytes, counter.compressed);
}
BENCHMARK(BM_SeedBinlogToLz4Blocks)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rowbridge::bench
