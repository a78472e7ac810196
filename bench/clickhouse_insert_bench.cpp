// Our ClickHouse client inserting the seed rows (all rows of the seed binlog, converted into the
// seed's ClickHouse table types as the pipeline does; see seed_block.h) into a real server, one
// INSERT of kBatchRows-row LZ4 blocks per iteration. The blocks are built before timing, so the
// figure is the client and server insert path alone, comparable with clickhouse-client
// `INSERT ... FORMAT Native` of the same rows (bench/clickhouse_insert_vs_client.sh runs both).
//
// Needs a server: ROWBRIDGE_BENCH_CH_HOST/ROWBRIDGE_BENCH_CH_PORT (or the test servers'
// ROWBRIDGE_TEST_CH_HOST/PORT) and an existing table ROWBRIDGE_BENCH_CH_TABLE (default
// default.seed_insert_bench) with the seed's columns. Skips with a message otherwise.
// With ROWBRIDGE_BENCH_NATIVE_OUT=FILE it also writes the same rows as one FORMAT Native stream
// (what clickhouse-client reads from stdin).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "binlog/binlog_event_reader.h"
#include "binlog/event_type.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "clickhouse/block.h"
#include "clickhouse/client.h"
#include "clickhouse/wire.h"
#include "common/error.h"
#include "memory_event_source.h"
#include "seed_binlog.h"
#include "seed_block.h"

namespace rowbridge::bench {
namespace {

constexpr size_t kBatchRows = 100000;

std::string Env(const char* name, const char* fallback_name = nullptr) {
  const char* v = std::getenv(name);
  if ((v == nullptr || *v == '\0') && fallback_name != nullptr) v = std::getenv(fallback_name);
  return v == nullptr ? std::string() : std::string(v);
}

struct SeedBlocks {
  std::vector<clickhouse::Block> blocks;
  uint64_t rows = 0;
  std::string error;
};

// Every seed row as blocks of kBatchRows rows.
const SeedBlocks& AllSeedBlocks() {
  static const SeedBlocks result = [] {
    SeedBlocks out;
    const SeedBinlog& seed = LoadSeedBinlog();
    if (!seed.error.empty()) {
      out.error = seed.error;
      return out;
    }
    MemoryEventSource source(seed.bytes, "seed binlog");
    binlog::BinlogEventReader reader(source);
    binlog::RowCursor cursor;
    std::string scratch;
    binlog::Event event;
    std::unique_ptr<SeedBlockBuilder> builder;
    auto flush = [&] {
      out.blocks.push_back(std::move(builder->block()));
      builder.reset();
    };
    while (reader.Next(event)) {
      if (!binlog::IsRowsEvent(event.type())) continue;
      const binlog::RowsEvent rows = binlog::ParseRowsEvent(event, reader.format(), scratch);
      const binlog::TableInfo* table = reader.tables().Find(rows.table_id);
      if (table == nullptr) continue;
      cursor.Reset(rows, *table);
      while (cursor.Next()) {
        if (!builder) builder = std::make_unique<SeedBlockBuilder>(*table);
        builder->AddRow(cursor.after(), static_cast<int64_t>(out.rows++));
        if (builder->rows() == kBatchRows) flush();
      }
    }
    if (builder && builder->rows() > 0) flush();
    return out;
  }();
  return result;
}

void WriteNativeFile(const SeedBlocks& seed, const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                       &std::fclose);
  if (!file) Fail(ErrorCode::kIo, "cannot create {}", path);
  clickhouse::WireWriter out;
  for (const clickhouse::Block& block : seed.blocks) {
    out.Clear();
    clickhouse::WriteBlock(out, block, 0);  // revision 0: exactly FORMAT Native
    if (std::fwrite(out.data().data(), 1, out.size(), file.get()) != out.size())
      Fail(ErrorCode::kIo, "cannot write {}", path);
  }
}

void BM_SeedInsertOurClient(benchmark::State& state) {
  clickhouse::ClientOptions options;
  options.host = Env("ROWBRIDGE_BENCH_CH_HOST", "ROWBRIDGE_TEST_CH_HOST");
  const std::string port = Env("ROWBRIDGE_BENCH_CH_PORT", "ROWBRIDGE_TEST_CH_PORT");
  std::string table = Env("ROWBRIDGE_BENCH_CH_TABLE");
  if (table.empty()) table = "default.seed_insert_bench";
  if (options.host.empty() || port.empty()) {
    state.SkipWithError("no ClickHouse server: set ROWBRIDGE_BENCH_CH_HOST/PORT");
    return;
  }
  options.port = static_cast<uint16_t>(std::stoi(port));
  options.compression = clickhouse::CompressionMethod::kLz4;
  const SeedBlocks& seed = AllSeedBlocks();
  if (!seed.error.empty()) {
    state.SkipWithError(seed.error.c_str());
    return;
  }
  const std::string native_out = Env("ROWBRIDGE_BENCH_NATIVE_OUT");
  try {
    if (!native_out.empty()) WriteNativeFile(seed, native_out);
    clickhouse::Client client(options);
    for (auto _ : state) {
      client.BeginInsert("INSERT INTO " + table + " VALUES");
      for (const clickhouse::Block& block : seed.blocks) client.SendBlock(block);
      client.EndInsert();
    }
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.counters["rows_per_second"] = benchmark::Counter(
      static_cast<double>(seed.rows * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["rows_per_insert"] = static_cast<double>(seed.rows);
}
BENCHMARK(BM_SeedInsertOurClient)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace rowbridge::bench
