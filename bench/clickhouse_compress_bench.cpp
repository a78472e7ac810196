// Cost of putting native blocks on the wire compressed: LZ4 and ZSTD(1) compression of a
// serialized (UInt64, String, DateTime-like UInt32) block of 65536 rows, the matching
// decompression with checksum verification, and CityHash128 alone.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "clickhouse/block.h"
#include "clickhouse/cityhash.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/compression.h"
#include "clickhouse/protocol.h"

namespace rowbridge::clickhouse {
namespace {

// A block shaped like replicated rows: increasing ids, short repetitive strings, timestamps.
std::string SerializedBlock() {
  Block block;
  auto& ids = block.AddColumn("id", std::make_unique<ColumnUInt64>());
  auto& names = block.AddColumn("name", std::make_unique<ColumnString>());
  auto& times = block.AddColumn("ts", std::make_unique<ColumnUInt32>());
  std::mt19937_64 rng(1);
  for (uint64_t i = 0; i < 65536; ++i) {
    ids.Append(1000000 + i);
    names.Append("customer-" + std::to_string(rng() % 5000) + "@example.com");
    times.Append(static_cast<uint32_t>(1700000000 + i / 10));
  }
  WireWriter out;
  WriteBlock(out, block, kClientRevision);
  return out.data();
}

void BM_Compress(benchmark::State& state, CompressionMethod method) {
  const std::string data = SerializedBlock();
  FrameCodec codec(method, 1);
  std::string out;
  for (auto _ : state) {
    out.clear();
    codec.Compress(data, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
  state.counters["ratio"] = static_cast<double>(data.size()) / static_cast<double>(out.size());
}

void BM_Decompress(benchmark::State& state, CompressionMethod method) {
  const std::string data = SerializedBlock();
  FrameCodec codec(method, 1);
  std::string frames;
  codec.Compress(data, frames);
  std::string out;
  for (auto _ : state) {
    out.clear();
    codec.DecompressAll(frames, out, FrameLimits{}, "bench");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

void BM_CityHash128(benchmark::State& state) {
  const std::string data = SerializedBlock();
  for (auto _ : state) benchmark::DoNotOptimize(CityHash128(data.data(), data.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

BENCHMARK_CAPTURE(BM_Compress, lz4, CompressionMethod::kLz4);
BENCHMARK_CAPTURE(BM_Compress, zstd1, CompressionMethod::kZstd);
BENCHMARK_CAPTURE(BM_Compress, none, CompressionMethod::kNone);
BENCHMARK_CAPTURE(BM_Decompress, lz4, CompressionMethod::kLz4);
BENCHMARK_CAPTURE(BM_Decompress, zstd1, CompressionMethod::kZstd);
BENCHMARK(BM_CityHash128);

}  // namespace
}  // namespace rowbridge::clickhouse
