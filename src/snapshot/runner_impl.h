// Internal to the snapshot runner (snapshot_runner.h): the state one SnapshotRunner::Run shares
// between its steps, each in a file of its own. Only the runner's files include it:
//
//   snapshot_runner.cpp        Run: the steps in order, the reader threads
//   run_preparation.cpp        Impl::Prepare: stores, source check, tables resolved, run record,
//                              each table planned
//   table_copy.h/.cpp          Impl::TableCopy: one table copied, unit by unit
//   chunk_reading.cpp          TableCopy's reads: one connection, or several reading ahead
//   read_reconciliation.cpp    TableCopy's reads reconciled with the binlog window into blocks
//   unit_writer.cpp            the writer threads: a unit's blocks as one INSERT, its record
//   catch_up.cpp               every table brought to one position E, and the hand-over at E
//   run_completion.cpp         earlier rows deleted, the run recorded done, the schema at E
//
// A CopiedTable is one table of the run (its queries, plan, progress, spare blocks), a WriteJob
// what a reader hands a writer. Impl's members are grouped by the file that defines them.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "binlog/cell.h"
#include "common/error.h"
#include "endpoints/connection_options.h"
#include "mapping/conversion_plan.h"
#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "server/pipeline_metrics.h"
#include "server/table_stats.h"
#include "snapshot/chunk_sql.h"
#include "snapshot/progress.h"
#include "snapshot/read_budget.h"
#include "snapshot/snapshot_runner.h"
#include "snapshot/snapshot_state.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::snapshot {

inline BinlogPoint PointOf(const mysql::BinlogPosition& p) {
  return {p.file, p.position};
}

struct CopiedTable {
  const tables::ReplicatedTable* source = nullptr;
  std::unique_ptr<server::TableStats> stats;  // the table's rows in the metrics and /status
  server::Counter* copied_rows = nullptr;     // rowbridge_snapshot_rows_total
  std::string label;
  std::vector<binlog::ColumnDef> text_columns;
  std::vector<uint32_t> key;  // empty: one chunk (keyless_single_chunk)
  std::vector<std::string> key_quoted;
  std::vector<KeyCollation> collations;
  std::string select_list;      // binary protocol (prepared statements): the chunks
  std::string key_select_list;  // text protocol: the key columns only (chunk ends)
  std::string from;
  std::string chunk_from;  // `from` with the chunk key's index forced
  std::string order_by;
  mapping::PlanOptions plan_options;
  std::string insert_sql;
  uint64_t base = 0;  // first version of the table's band
  // MariaDB and a transactional table: each chunk is read in a consistent snapshot whose binlog
  // position the server reports exactly. Otherwise (MySQL, MyISAM) low/high watermarks.
  bool exact_snapshot = false;

  std::mutex mutex;
  TableProgress progress;  // as saved
  TableProgressCounters* counters = nullptr;
  // Written blocks, emptied, for the next chunks: their buffers are reused rather than grown (and
  // faulted in) again for every chunk.
  std::vector<mapping::TargetBlock> spare_blocks;
  // The writer that sends this table's units. A table has one unit in flight at a time, so one
  // writer per table loses nothing, and only that writer's connection grows buffers the size of
  // this table's blocks.
  uint32_t writer = 0;
};

// A written block of `t`, emptied, or a new one of `plan`.
mapping::TargetBlock TakeBlock(CopiedTable& t, const mapping::ConversionPlan& plan);

// A table's writer takes its jobs in order: the parts of a unit, each sent as the next block of
// the unit's INSERT (begun with the first), then its end, which ends the INSERT and records the
// unit done. A job may be both (the catch-up's one block).
struct WriteJob {
  CopiedTable* table = nullptr;
  std::optional<mapping::TargetBlock> block;  // rows to send, if any
  bool end = false;
  UnitRecord unit;  // the end's record; a part's first_version (the INSERT's query id)
  uint64_t inserted = 0, updated = 0, deleted = 0;  // the end's
  std::promise<void> done;
};

// The cells of a row image that the plan for `columns` accepts.
struct Plans {
  const mapping::PlanOptions* options = nullptr;
  const std::vector<mapping::TargetColumn>* target = nullptr;
  std::string insert_sql;
  std::vector<std::pair<const binlog::ColumnDef*, std::unique_ptr<mapping::ConversionPlan>>> plans;

  void Add(const binlog::ColumnDef* base, mapping::ConversionPlan plan) {
    plans.emplace_back(base, std::make_unique<mapping::ConversionPlan>(std::move(plan)));
  }
  mapping::ConversionPlan& For(std::span<const binlog::Cell> row, size_t column_count) {
    const binlog::ColumnDef* base = row.empty() ? nullptr : row[0].column - row[0].index;
    for (auto& [b, plan] : plans)
      if (b == base) return *plan;
    auto plan = std::make_unique<mapping::ConversionPlan>(mapping::ConversionPlan::Build(
        std::span<const binlog::ColumnDef>(base, column_count), *target, *options));
    if (!plans.empty() && plan->insert_columns().size() != plans[0].second->insert_columns().size())
      Fail(ErrorCode::kInternal, "two plans of one table insert different columns");
    plans.emplace_back(base, std::move(plan));
    return *plans.back().second;
  }
};

struct SnapshotRunner::Impl {
  Impl(SnapshotRunner& owner)
      : runner(owner),
        config(owner.config_),
        options(owner.options_),
        pipeline_metrics(owner.metrics_),
        progress(owner.metrics_) {}

  SnapshotRunner& runner;
  const config::Config& config;
  const SnapshotOptions& options;
  server::PipelineMetrics pipeline_metrics;
  Progress progress;
  std::string job;
  std::unique_ptr<SnapshotStateStore> store;
  RunRecord run;
  std::vector<std::unique_ptr<CopiedTable>> tables;
  std::unique_ptr<tables::TargetCatalog> catalog;
  std::mutex catalog_mutex;  // its connection, once the reader threads run
  std::unique_ptr<tables::TableResolver> resolver;
  std::vector<tables::ReplicatedTable> resolved;
  bool mariadb = false;
  std::string insert_prefix;
  std::atomic<uint64_t> rows_this_run{0};
  // The source's binlog position just before the tables' columns were read (Prepare): each
  // table's first binlog window begins there (TableCopy::ReconcileWindow).
  BinlogPoint columns_read_at;

  // First error of any thread; everything stops when set.
  std::mutex error_mutex;
  std::optional<Error> error;
  void SetError(const Error& e) {
    std::lock_guard lock(error_mutex);
    if (!error) error = e;
    runner.stop_ = true;
    queue_cv.notify_all();
  }
  bool stopping() const {
    return runner.stop_.load() ||
           (options.external_stop != nullptr && options.external_stop->load());
  }

  // The writers' queue.
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<std::unique_ptr<WriteJob>> queue;
  bool queue_closed = false;

  mysql::ConnectOptions SourceOptions() const {
    return endpoints::SourceConnectOptions(config.source);
  }

  // --- The run's preparation (run_preparation.cpp).
  // Everything the copy needs before its first chunk: the stores, the source checked, every
  // table resolved, the run record (new or resumed), and each copied table's queries, plan and
  // progress.
  void Prepare();
  void OpenStores();
  std::unique_ptr<mysql::Connection> ConnectSource();
  void ResolveTables(mysql::Connection& admin, RunRecord& pending);
  // Whether this run copies the table (SnapshotOptions::only_tables).
  bool Copied(const tables::SourceTableName& name) const;
  // A new run: its version band, the targets holding rows already, its start position.
  void StartRun(mysql::Connection& admin, const RunRecord& pending);
  // The largest version any target holds (a first start's copy: nothing streams meanwhile).
  uint64_t MaxTargetVersion();
  void FindEarlierRows();
  void PlanTables(mysql::Connection& admin);
  void BuildQueries(CopiedTable& t, const std::string& index);
  void PlanConversion(CopiedTable& t);
  void StartProgress(CopiedTable& t, mysql::Connection& admin,
                     const std::map<std::string, TableProgress>& saved_tables,
                     uint32_t& next_number);

  // --- The orchestration (snapshot_runner.cpp).
  // The result's fields the plan gives: the tables, created targets, the stream's first version.
  SnapshotResult PlannedResult() const;
  // Runs `work` on every table, snapshot.readers tables at a time; the first error stops them.
  void RunReaders(const std::function<void(CopiedTable&, uint32_t)>& work);
  Error RacedBySchemaChange(const CopiedTable& t, Error error) const;

  // --- The copy of one table (table_copy.h).
  class TableCopy;
  void Copy(CopiedTable& t, uint32_t reader);
  // Source connections that read chunks of one table (snapshot.readers shared by the tables).
  uint32_t ReadersPerTable() const {
    const uint32_t readers = std::max<uint32_t>(1, config.snapshot.readers);
    return std::max<uint32_t>(1, readers / std::max<uint32_t>(1, tables.size()));
  }
  std::unique_ptr<mysql::Connection> ChunkConnection() const;
  // The row packet bytes one read of a table read on `connections` connections may take: the
  // memory budget shared by the tables copied at once (read_budget.h).
  uint64_t ReadBytesPerTable(uint32_t connections) const {
    const uint32_t at_once = std::min<uint32_t>(std::max<uint32_t>(1, config.snapshot.readers),
                                                static_cast<uint32_t>(tables.size()));
    return ReadBytes(config.snapshot.memory_limit, at_once, connections);
  }

  // --- The writers (unit_writer.cpp).
  // snapshot.writers threads running Writer, told to finish and joined by Stop, or, whatever
  // happens on the thread that started them, when destroyed; Stop also stops the progress.
  class WriterThreads {
   public:
    explicit WriterThreads(Impl& impl);
    ~WriterThreads() { Stop(); }
    void Stop();

   private:
    Impl& impl_;
    std::vector<std::thread> threads_;
  };
  void Writer(uint32_t number);
  std::future<void> Submit(std::unique_ptr<WriteJob> job);
  void Finish(CopiedTable& t, const UnitRecord& unit, uint64_t inserted, uint64_t updated,
              uint64_t deleted);
  void SettleInFlight(CopiedTable& t);

  // --- Catching up to the final position E (catch_up.cpp).
  // E: the source's position now, or a later read's point (its window already reached that far).
  BinlogPoint FinalPosition();
  void CatchUp(CopiedTable& t, const BinlogPoint& end, uint32_t reader);

  // --- The run's completion (run_completion.cpp).
  // After every table reached `end`: the earlier rows of the targets deleted, the run recorded
  // done.
  void Complete(const BinlogPoint& end);
  // After every table is brought to E: deletes the rows `target` held before the copy that it did
  // not write again, i.e. rows the source no longer has. False if it cannot tell them (a changelog
  // target of a table without a key).
  bool DeleteEarlierRows(const std::string& target);
  // The copied tables' columns as the copy read them, as a schema history valid from `end`. The
  // catch-up read every change of them up to `end` by these columns (a TABLE_MAP that disagreed
  // would have failed it), so the stream goes on with the same ones, and a schema change after
  // `end` reaches it as DDL in the binlog rather than as different columns in information_schema.
  std::string SchemaHistoryAt(const BinlogPoint& end);
};

}  // namespace rowbridge::snapshot
