// Per-value cost of the typed value decoders and formatters. Each benchmark decodes a batch of
// kBatch cells per iteration and reports items/s; ns per value = 1e9 / items_per_second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "binlog/cell.h"
#include "binlog/decimal.h"
#include "binlog/json_binary.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "binlog/value_format.h"

namespace rowbridge::binlog {
namespace {

constexpr size_t kBatch = 1024;

// kBatch values of `width` random bytes each, laid out back to back like a row image.
struct Batch {
  ColumnDef column;
  std::vector<uint8_t> bytes;
  std::vector<Cell> cells;

  Batch(ColumnType type, size_t width, uint32_t meta = 0, uint8_t precision = 0, uint8_t scale = 0,
        uint8_t first_byte_or = 0) {
    column.type = type;
    column.meta = meta;
    column.precision = precision;
    column.scale = scale;
    std::mt19937 rng(42);
    bytes.resize(kBatch * width);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    cells.resize(kBatch);
    for (size_t i = 0; i < kBatch; ++i) {
      bytes[i * width] |= first_byte_or;
      cells[i].column = &column;
      cells[i].data = bytes.data() + i * width;
      cells[i].size = width;
    }
  }
};

// Random valid DECIMAL(p,s) encodings: random bytes would hold out-of-range digit groups.
Batch DecimalBatch(int precision, int scale) {
  const size_t width = DecimalBinarySize(precision, scale);
  Batch batch(ColumnType::kNewDecimal, width, 0, static_cast<uint8_t>(precision),
              static_cast<uint8_t>(scale));
  std::mt19937 rng(7);
  static constexpr int kBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  static constexpr uint32_t kPow[10] = {1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000};
  for (size_t i = 0; i < kBatch; ++i) {
    uint8_t* p = batch.bytes.data() + i * width;
    size_t pos = 0;
    auto put = [&](int digits) {
      const uint32_t v = static_cast<uint32_t>(rng() % kPow[digits]);
      const int n = digits == 9 ? 4 : kBytes[digits];
      for (int k = n - 1; k >= 0; --k) p[pos++] = static_cast<uint8_t>(v >> (8 * k));
    };
    const int int_digits = precision - scale;
    if (int_digits % 9) put(int_digits % 9);
    for (int k = 0; k < int_digits / 9; ++k) put(9);
    for (int k = 0; k < scale / 9; ++k) put(9);
    if (scale % 9) put(scale % 9);
    p[0] ^= 0x80;
    if (rng() % 2) {
      for (size_t k = 0; k < width; ++k) p[k] = static_cast<uint8_t>(~p[k]);
    }
  }
  return batch;
}

void BM_Int32(benchmark::State& state) {
  Batch batch(ColumnType::kLong, 4);
  for (auto _ : state) {
    int64_t sum = 0;
    for (const Cell& c : batch.cells) sum += CellInt32(c);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Int32);

void BM_Int24SignExtended(benchmark::State& state) {
  Batch batch(ColumnType::kInt24, 3);
  for (auto _ : state) {
    int64_t sum = 0;
    for (const Cell& c : batch.cells) sum += CellSignedInteger(c);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Int24SignExtended);

void BM_Double(benchmark::State& state) {
  Batch batch(ColumnType::kDouble, 8, 8);
  for (auto _ : state) {
    double sum = 0;
    for (const Cell& c : batch.cells) sum += CellDouble(c);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Double);

void BM_DecodeDecimal(benchmark::State& state) {
  const int precision = static_cast<int>(state.range(0));
  const int scale = static_cast<int>(state.range(1));
  Batch batch = DecimalBatch(precision, scale);
  for (auto _ : state) {
    for (const Cell& c : batch.cells) {
      benchmark::DoNotOptimize(DecodeDecimal(c.data, c.size, precision, scale));
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_DecodeDecimal)->Args({10, 2})->Args({18, 6})->Args({38, 10})->Args({65, 30});

void BM_DecimalText(benchmark::State& state) {
  const int precision = static_cast<int>(state.range(0));
  const int scale = static_cast<int>(state.range(1));
  Batch batch = DecimalBatch(precision, scale);
  std::string out;
  for (auto _ : state) {
    for (const Cell& c : batch.cells) {
      out.clear();
      AppendDecimalText(c.data, c.size, precision, scale, out);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_DecimalText)->Args({10, 2})->Args({65, 30});

void BM_DateTime2(benchmark::State& state) {
  Batch batch(ColumnType::kDateTime2, 8, 6, 0, 0, 0x80);
  for (auto _ : state) {
    for (const Cell& c : batch.cells) benchmark::DoNotOptimize(DecodeDateTime2(c.data, c.size, 6));
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_DateTime2);

void BM_Time2(benchmark::State& state) {
  Batch batch(ColumnType::kTime2, 5, 3);
  for (auto _ : state) {
    for (const Cell& c : batch.cells) benchmark::DoNotOptimize(DecodeTime2(c.data, c.size, 3));
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Time2);

void BM_Timestamp2(benchmark::State& state) {
  Batch batch(ColumnType::kTimestamp2, 7, 6);
  for (auto _ : state) {
    for (const Cell& c : batch.cells) benchmark::DoNotOptimize(DecodeTimestamp2(c.data, c.size, 6));
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Timestamp2);

void BM_MysqlbinlogInt(benchmark::State& state) {
  Batch batch(ColumnType::kLong, 4);
  std::string out;
  for (auto _ : state) {
    for (const Cell& c : batch.cells) {
      out.clear();
      AppendMysqlbinlogValue(c, out);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_MysqlbinlogInt);

void BM_JsonBinaryText(benchmark::State& state) {
  // json.binlog.000001: {"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}
  static const uint8_t kDoc[] = {0x00, 0x03, 0x00, 0x33, 0x00, 0x19, 0x00, 0x03, 0x00, 0x1c, 0x00,
                                 0x04, 0x00, 0x20, 0x00, 0x04, 0x00, 0x05, 0x18, 0x00, 0x0c, 0x24,
                                 0x00, 0x0c, 0x2f, 0x00, 0x61, 0x67, 0x65, 0x64, 0x61, 0x74, 0x61,
                                 0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78,
                                 0x78, 0x78, 0x78, 0x78, 0x03, 0x4a, 0x6f, 0x65};
  std::string out;
  for (auto _ : state) {
    out.clear();
    AppendJsonBinaryText(kDoc, sizeof kDoc, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_JsonBinaryText);

}  // namespace
}  // namespace rowbridge::binlog
