// Building ClickHouse blocks from seed-table-like rows: 30 columns of integers, strings (plain,
// Nullable, LowCardinality), decimals given as text, dates and times. Reports rows/s for filling
// the columns alone and for filling plus serializing the block (what an INSERT does per batch).
// Input values are prepared up front so only the column code is measured.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "clickhouse/block.h"
#include "clickhouse/columns/civil_time.h"
#include "clickhouse/columns/date.h"
#include "clickhouse/columns/decimal.h"
#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"

namespace rowbridge::clickhouse {
namespace {

constexpr size_t kRows = 8192;

struct SeedRows {
  std::vector<uint64_t> ids;
  std::vector<int64_t> ints;
  std::vector<std::string> names, emails, comments, statuses, countries;
  std::vector<std::string> prices, amounts, rates;
  std::vector<int64_t> days, seconds, micros;
  std::vector<double> scores;
};

SeedRows MakeRows() {
  std::mt19937_64 rng(42);
  SeedRows s;
  const char* statuses[] = {"new", "paid", "shipped", "cancelled", "returned"};
  const char* countries[] = {"DE", "FR", "US", "JP", "BR", "IN", "NL", "SE"};
  for (size_t i = 0; i < kRows; ++i) {
    s.ids.push_back(1'000'000 + i);
    s.ints.push_back(static_cast<int64_t>(rng() % 2'000'000) - 1'000'000);
    s.names.push_back("customer-" + std::to_string(rng() % 100000));
    s.emails.push_back("user" + std::to_string(rng() % 1000000) + "@example.com");
    s.comments.push_back(std::string(rng() % 120, 'c'));
    s.statuses.push_back(statuses[rng() % 5]);
    s.countries.push_back(countries[rng() % 8]);
    s.prices.push_back(std::to_string(rng() % 100000) + "." + std::to_string(1000 + rng() % 9000));
    s.amounts.push_back("-" + std::to_string(rng() % 10000000) + "." +
                        std::to_string(10 + rng() % 90));
    s.rates.push_back("0." + std::to_string(1000000000 + rng() % 9000000000));
    s.days.push_back(DaysFromCivil(2020, 1, 1) + static_cast<int64_t>(rng() % 2000));
    s.seconds.push_back(1'600'000'000 + static_cast<int64_t>(rng() % 100'000'000));
    s.micros.push_back(s.seconds.back() * 1'000'000 + static_cast<int64_t>(rng() % 1'000'000));
    s.scores.push_back(static_cast<double>(rng() % 100000) / 7.0);
  }
  return s;
}

struct SeedBlock {
  Block block;
  std::vector<ColumnUInt64*> u64;
  std::vector<ColumnInt64*> i64;
  std::vector<ColumnInt32*> i32;
  ColumnUInt8* u8;
  ColumnInt16* i16;
  ColumnNullable* nullable_i64;
  std::vector<ColumnString*> strings;
  ColumnNullable* nullable_string;
  std::vector<ColumnLowCardinalityString*> low_cardinality;
  std::vector<ColumnDecimal64*> dec64;
  ColumnDecimal32* dec32;
  ColumnDecimal128* dec128;
  ColumnDate* date;
  ColumnDateTime* datetime;
  ColumnDateTime64* datetime64;
  ColumnNullable* nullable_date;
  ColumnFloat64* score;
  ColumnEnum8* kind;
};

SeedBlock MakeBlock() {
  SeedBlock b;
  int n = 0;
  auto name = [&n] { return "c" + std::to_string(n++); };
  for (int i = 0; i < 3; ++i)
    b.u64.push_back(&b.block.AddColumn(name(), std::make_unique<ColumnUInt64>()));
  for (int i = 0; i < 3; ++i)
    b.i64.push_back(&b.block.AddColumn(name(), std::make_unique<ColumnInt64>()));
  for (int i = 0; i < 2; ++i)
    b.i32.push_back(&b.block.AddColumn(name(), std::make_unique<ColumnInt32>()));
  b.u8 = &b.block.AddColumn(name(), std::make_unique<ColumnUInt8>());
  b.i16 = &b.block.AddColumn(name(), std::make_unique<ColumnInt16>());
  b.nullable_i64 =
      &b.block.AddColumn(name(), std::make_unique<ColumnNullable>(std::make_unique<ColumnInt64>()));
  for (int i = 0; i < 4; ++i)
    b.strings.push_back(&b.block.AddColumn(name(), std::make_unique<ColumnString>()));
  b.nullable_string = &b.block.AddColumn(
      name(), std::make_unique<ColumnNullable>(std::make_unique<ColumnString>()));
  b.low_cardinality.push_back(
      &b.block.AddColumn(name(), std::make_unique<ColumnLowCardinalityString>(false)));
  b.low_cardinality.push_back(
      &b.block.AddColumn(name(), std::make_unique<ColumnLowCardinalityString>(true)));
  for (int i = 0; i < 4; ++i)
    b.dec64.push_back(&b.block.AddColumn(name(), std::make_unique<ColumnDecimal64>(18, 4)));
  b.dec32 = &b.block.AddColumn(name(), std::make_unique<ColumnDecimal32>(9, 2));
  b.dec128 = &b.block.AddColumn(name(), std::make_unique<ColumnDecimal128>(38, 10));
  b.date = &b.block.AddColumn(name(), std::make_unique<ColumnDate>());
  b.datetime = &b.block.AddColumn(name(), std::make_unique<ColumnDateTime>());
  b.datetime64 = &b.block.AddColumn(name(), std::make_unique<ColumnDateTime64>(6));
  b.nullable_date =
      &b.block.AddColumn(name(), std::make_unique<ColumnNullable>(std::make_unique<ColumnDate>()));
  b.score = &b.block.AddColumn(name(), std::make_unique<ColumnFloat64>());
  b.kind = &b.block.AddColumn(
      name(), std::make_unique<ColumnEnum8>(EnumItems{{"retail", 1}, {"wholesale", 2}}));
  return b;
}

void FillBlock(SeedBlock& b, const SeedRows& s) {
  b.block.Clear();
  for (size_t r = 0; r < kRows; ++r) {
    for (auto* c : b.u64) c->Append(s.ids[r]);
    for (auto* c : b.i64) c->Append(s.ints[r]);
    for (auto* c : b.i32) c->Append(static_cast<int32_t>(s.ints[r]));
    b.u8->Append(static_cast<uint8_t>(r));
    b.i16->Append(static_cast<int16_t>(r));
    if (r % 10 == 0) {
      b.nullable_i64->AppendNull();
    } else {
      b.nullable_i64->AppendNotNull();
      b.nullable_i64->nested_as<ColumnInt64>().Append(s.ints[r]);
    }
    b.strings[0]->Append(s.names[r]);
    b.strings[1]->Append(s.emails[r]);
    b.strings[2]->Append(s.comments[r]);
    b.strings[3]->Append(s.names[r]);
    if (r % 7 == 0) {
      b.nullable_string->AppendNull();
    } else {
      b.nullable_string->AppendNotNull();
      b.nullable_string->nested_as<ColumnString>().Append(s.emails[r]);
    }
    b.low_cardinality[0]->Append(s.statuses[r]);
    if (r % 5 == 0) {
      b.low_cardinality[1]->AppendNull();
    } else {
      b.low_cardinality[1]->Append(s.countries[r]);
    }
    for (auto* c : b.dec64) c->AppendParsed(s.prices[r]);
    b.dec32->AppendParsed(s.amounts[r].substr(0, 9));
    b.dec128->AppendParsed(s.rates[r]);
    b.date->AppendDays(s.days[r]);
    b.datetime->AppendSeconds(s.seconds[r]);
    b.datetime64->AppendTicks(s.micros[r]);
    if (r % 3 == 0) {
      b.nullable_date->AppendNull();
    } else {
      b.nullable_date->AppendNotNull();
      b.nullable_date->nested_as<ColumnDate>().AppendDays(s.days[r]);
    }
    b.score->Append(s.scores[r]);
    b.kind->Append(static_cast<int16_t>(1 + r % 2));
  }
}

void BM_FillSeedBlock(benchmark::State& state) {
  SeedRows rows = MakeRows();
  SeedBlock b = MakeBlock();
  for (auto _ : state) {
    FillBlock(b, rows);
    benchmark::DoNotOptimize(b.block.At(0).Size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRows));
  state.counters["columns"] = static_cast<double>(b.block.ColumnCount());
}
BENCHMARK(BM_FillSeedBlock)->Unit(benchmark::kMicrosecond);

void BM_FillAndWriteSeedBlock(benchmark::State& state) {
  SeedRows rows = MakeRows();
  SeedBlock b = MakeBlock();
  WireWriter out;
  for (auto _ : state) {
    FillBlock(b, rows);
    out.Clear();
    WriteBlock(out, b.block, 54429);
    benchmark::DoNotOptimize(out.data().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRows));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_FillAndWriteSeedBlock)->Unit(benchmark::kMicrosecond);

// Decoding the same block, as a SELECT result would be.
void BM_ReadSeedBlock(benchmark::State& state) {
  SeedRows rows = MakeRows();
  SeedBlock b = MakeBlock();
  FillBlock(b, rows);
  WireWriter out;
  WriteBlock(out, b.block, 54429);
  for (auto _ : state) {
    BufferWireReader in(out.data());
    Block back = ReadBlock(in, 54429);
    benchmark::DoNotOptimize(back.ColumnCount());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRows));
}
BENCHMARK(BM_ReadSeedBlock)->Unit(benchmark::kMicrosecond);

// A LowCardinality(String) column of `state.range(0)` rows that are all distinct (a user's
// LowCardinality target fed with high-cardinality values, e.g. order ids): the dictionary grows
// with every row, so its cost per new entry must stay constant.
void BM_FillLowCardinalityAllDistinct(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<std::string> values;
  values.reserve(n);
  for (size_t i = 0; i < n; ++i) values.push_back("order-" + std::to_string(i * 7919));
  ColumnLowCardinalityString column(false);
  for (auto _ : state) {
    column.Clear();
    for (const std::string& v : values) column.Append(v);
    benchmark::DoNotOptimize(column.Size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_FillLowCardinalityAllDistinct)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rowbridge::clickhouse
