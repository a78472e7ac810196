// CRC-32 throughput: rowbridge::Crc32 (carry-less multiplication where the CPU has it),
// its portable slicing-by-8 path, and zlib's crc32, over one buffer of the given size that stays
// in cache. bytes_per_second is per CPU-second of the benchmark thread.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <vector>

#include "common/crc32.h"

namespace rowbridge {
namespace {

std::vector<uint8_t> RandomBuffer(size_t n) {
  std::mt19937 rng(7);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

void BM_Crc32Ours(benchmark::State& state) {
  auto buf = RandomBuffer(static_cast<size_t>(state.range(0)));
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = Crc32(crc, buf.data(), buf.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.SetLabel(Crc32HasHardwarePath() ? "pclmul" : "table");
}

void BM_Crc32Portable(benchmark::State& state) {
  auto buf = RandomBuffer(static_cast<size_t>(state.range(0)));
  uint32_t crc = 0;
  for (auto _ : state) {
    crc = Crc32Portable(crc, buf.data(), buf.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

void BM_Crc32Zlib(benchmark::State& state) {
  auto buf = RandomBuffer(static_cast<size_t>(state.range(0)));
  uLong crc = 0;
  for (auto _ : state) {
    crc = crc32(crc, buf.data(), static_cast<uInt>(buf.size()));
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// Sizes of typical binlog events (small rows events, a seed-row event, a batch) up to 64 KiB.
#define CRC32_SIZES Arg(16)->Arg(64)->Arg(200)->Arg(1024)->Arg(8192)->Arg(65536)
BENCHMARK(BM_Crc32Ours)->CRC32_SIZES;
BENCHMARK(BM_Crc32Portable)->CRC32_SIZES;
BENCHMARK(BM_Crc32Zlib)->CRC32_SIZES;
#undef CRC32_SIZES

}  // namespace
}  // namespace rowbridge
