// A random but reproducible workload for the pipeline tests: SQL scripts of transactions over
// three tables — `items` (replica; inserts, updates, primary-key changes, deletes), `events`
// (changelog; inserts, updates, deletes) and `every_type` (replica; one column of each MariaDB
// type) — with multi-table transactions and some rolled back. The generator tracks which rows
// exist, so every UPDATE/DELETE hits exactly one row and changes it, and it counts the committed
// row changes of each table.
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "integration/pipeline_harness.h"

namespace rowbridge::testing {

class Workload {
 public:
  Workload(uint32_t seed, std::string database);

  // CREATE DATABASE and the three tables.
  std::string Schema() const;
  // `transactions` transactions, each 1..6 row changes over random tables; about 1 in 10 is
  // rolled back.
  std::string Next(size_t transactions);
  // One transaction inserting `rows` rows into `items` and updating as many `events` rows.
  std::string BigTransaction(size_t rows);

  // Committed row changes so far, per table.
  uint64_t changes(const std::string& table) const;

  static std::vector<ColumnCompare> ItemsColumns();
  static std::vector<ColumnCompare> EventsColumns();
  static std::vector<ColumnCompare> EveryTypeColumns();

 private:
  struct State {
    std::set<int64_t> items, events, every;
    int64_t next_item = 1, next_event = 1, next_every = 1;
    uint64_t item_changes = 0, event_changes = 0, every_changes = 0;
    uint64_t counter = 0;
  };

  std::string Transaction(State& s);
  std::string ItemChange(State& s);
  std::string EventChange(State& s);
  std::string EveryChange(State& s);
  std::string EveryValues(State& s, int64_t id);

  int64_t Pick(const std::set<int64_t>& ids);
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  std::string Text(size_t max_length);
  std::string Hex(size_t max_length);
  std::string Date();
  std::string DateTime(int first_year, int last_year, int fsp);

  std::mt19937 rng_;
  std::string db_;
  State state_;
};

// The `tables:` rules for a Workload in `db`: items and every_type as replicas (every_type clamps
// out-of-range values), events as a changelog.
std::string WorkloadRules(const std::string& db);

// Every check of the workload's tables: replicas equal the source, the changelog has every change
// exactly once and replays to the source's rows, and no replica holds two rows of one key with one
// version (a replayed change is skipped). Needs a stream that began before the workload's first
// change (the changelog count is of the changes, not of copied rows).
void ExpectWorkloadReplicated(const MysqlAddress& mysql, const ClickHouseAddress& ch,
                              const std::string& source_db, const std::string& target_db,
                              const Workload& workload);

}  // namespace rowbridge::testing
