// Decoder throughput on real rows of the seed table (30 columns; see seed_binlog.h for where the
// binlog comes from): every event of the file is framed and checksummed (EventDecoder, through
// BinlogEventReader), every rows event parsed, every row walked with RowCursor, and every Cell
// read through its typed value decoder, as the pipeline does before converting. The file is in
// memory, so the figure is the decoder's alone.
//
// Counters: rows_per_second and MB_per_second are per CPU-second of the one benchmark thread
// (Google Benchmark divides by CPU time), i.e. per core. allocs_per_row counts calls of the
// global operator new (alloc_counter.h) during the timed iterations; the benchmark fails if the
// steady state allocates anything per row.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "alloc_counter.h"
#include "binlog/binlog_event_reader.h"
#include "binlog/checksum.h"
#include "binlog/decimal.h"
#include "binlog/event_type.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "binlog/temporal.h"
#include "binlog/value_decoder.h"
#include "memory_event_source.h"
#include "seed_binlog.h"

namespace rowbridge::bench {
namespace {

using binlog::Cell;
using binlog::ColumnType;

// Decodes one cell with the decoder its type needs; returns something that depends on the value
// so the compiler cannot drop the work.
inline uint64_t DecodeCell(const Cell& c) {
  if (c.is_null) return 1;
  const binlog::ColumnDef& col = *c.column;
  switch (col.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
      return col.is_unsigned ? binlog::CellUnsignedInteger(c)
                             : static_cast<uint64_t>(binlog::CellSignedInteger(c));
    case ColumnType::kFloat:
      return static_cast<uint64_t>(binlog::CellFloat(c) * 100.0f);
    case ColumnType::kDouble:
      return static_cast<uint64_t>(binlog::CellDouble(c) * 100.0);
    case ColumnType::kNewDecimal:
      return binlog::DecodeDecimal(c.data, c.size, col.precision, col.scale).unscaled.limbs[0];
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      return binlog::DecodeDate(c.data, c.size).day;
    case ColumnType::kTime:
      return binlog::DecodeTime(c.data, c.size).second;
    case ColumnType::kTime2:
      return binlog::DecodeTime2(c.data, c.size, col.meta).second;
    case ColumnType::kDateTime:
      return binlog::DecodeDateTime(c.data, c.size).minute;
    case ColumnType::kDateTime2:
      return binlog::DecodeDateTime2(c.data, c.size, col.meta).minute;
    case ColumnType::kTimestamp:
      return static_cast<uint64_t>(binlog::DecodeTimestamp(c.data, c.size).seconds);
    case ColumnType::kTimestamp2:
      return static_cast<uint64_t>(binlog::DecodeTimestamp2(c.data, c.size, col.meta).seconds);
    case ColumnType::kYear:
      return binlog::CellYear(c);
    case ColumnType::kBit:
      return binlog::CellBit(c);
    case ColumnType::kEnum:
      return binlog::CellEnumIndex(c);
    case ColumnType::kSet:
      return binlog::CellSetBits(c);
    default: {
      // Strings, BLOBs, JSON, GEOMETRY: the value is the byte span itself.
      const std::string_view bytes = binlog::CellBytes(c);
      return bytes.size() + (bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]));
    }
  }
}

struct PassTotals {
  uint64_t rows = 0;
  uint64_t cells = 0;
  uint64_t checksum = 0;
};

// One pass over the whole file. `cursor` and `scratch` are reused between passes, as the
// pipeline reuses them between events.
PassTotals DecodeFile(const SeedBinlog& seed, binlog::RowCursor& cursor, std::string& scratch) {
  MemoryEventSource source(seed.bytes, "seed binlog");
  binlog::BinlogEventReader reader(source);
  PassTotals totals;
  binlog::Event event;
  while (reader.Next(event)) {
    if (!binlog::IsRowsEvent(event.type())) continue;
    const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, reader.format(), scratch);
    const binlog::TableInfo* table = reader.tables().Find(rows.table_id);
    if (table == nullptr) continue;  // an end-of-statement dummy without a TABLE_MAP
    cursor.Reset(rows, *table);
    while (cursor.Next()) {
      ++totals.rows;
      for (const Cell& c : cursor.before()) totals.checksum += DecodeCell(c);
      for (const Cell& c : cursor.after()) totals.checksum += DecodeCell(c);
      totals.cells += cursor.before().size() + cursor.after().size();
    }
  }
  return totals;
}

void BM_SeedBinlogDecode(benchmark::State& state) {
  const SeedBinlog& seed = LoadSeedBinlog();
  if (!seed.error.empty()) {
    state.SkipWithError(seed.error.c_str());
    return;
  }
  binlog::RowCursor cursor;
  std::string scratch;
  // Warm-up pass: sizes the cursor's cell arrays, as the first events of a table do in the
  // pipeline. Everything after this is steady state.
  const PassTotals expected = DecodeFile(seed, cursor, scratch);
  if (expected.rows == 0) {
    state.SkipWithError("the seed binlog holds no rows");
    return;
  }
  uint64_t rows = 0;
  uint64_t cells = 0;
  const uint64_t allocations_before = HeapAllocations();
  for (auto _ : state) {
    const PassTotals totals = DecodeFile(seed, cursor, scratch);
    benchmark::DoNotOptimize(totals.checksum);
    rows += totals.rows;
    cells += totals.cells;
  }
  const uint64_t allocations = HeapAllocations() - allocations_before;
  const double per_row = static_cast<double>(allocations) / static_cast<double>(rows);
  state.SetBytesProcessed(static_cast<int64_t>(seed.bytes.size() * state.iterations()));
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
  state.counters["MB_per_second"] =
      benchmark::Counter(static_cast<double>(seed.bytes.size() * state.iterations()) / 1e6,
                         benchmark::Counter::kIsRate);
  state.counters["rows_per_pass"] = static_cast<double>(expected.rows);
  state.counters["cells_per_row"] = static_cast<double>(cells) / static_cast<double>(rows);
  state.counters["allocs_per_row"] = per_row;
  state.counters["allocs_per_pass"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
  // A pass may allocate a fixed handful of times (the reader's own state, the FORMAT_DESCRIPTION
  // and TABLE_MAP parsed once per file); one allocation per 10,000 rows already means something
  // allocates per event or per row.
  if (per_row > 1e-4) {
    const std::string message =
        "heap allocations in the steady state: " + std::to_string(per_row) + " per row";
    state.SkipWithError(message.c_str());
  }
}
BENCHMARK(BM_SeedBinlogDecode)->Unit(benchmark::kMillisecond);

// The share of the above that is CRC32 verification alone: the checksum of every event of the
// file, as EventDecoder computes it (binlog/checksum.h), nothing else.
void BM_SeedBinlogChecksumOnly(benchmark::State& state) {
  const SeedBinlog& seed = LoadSeedBinlog();
  if (!seed.error.empty()) {
    state.SkipWithError(seed.error.c_str());
    return;
  }
  for (auto _ : state) {
    MemoryEventSource source(seed.bytes, "seed binlog");
    binlog::RawEvent event;
    uint32_t acc = 0;
    while (source.Next(event)) {
      acc ^= binlog::Crc32(reinterpret_cast<const uint8_t*>(event.bytes.data()),
                           event.bytes.size() - 4);
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(seed.bytes.size() * state.iterations()));
}
BENCHMARK(BM_SeedBinlogChecksumOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rowbridge::bench
