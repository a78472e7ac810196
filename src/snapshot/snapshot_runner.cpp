#include "snapshot/snapshot_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "common/log_fields.h"
#include "endpoints/connection_options.h"
#include "mapping/binary_cell.h"
#include "mapping/conversion_plan.h"
#include "mapping/text_cell.h"
#include "mysql/binary_row.h"
#include "mysql/connection.h"
#include "mysql/prepared_statement.h"
#include "mysql/source_check.h"
#include "mysql/sql_quote.h"
#include "schema/schema_history.h"
#include "server/pipeline_metrics.h"
#include "server/table_stats.h"
#include "snapshot/binary_rows.h"
#include "snapshot/binlog_window.h"
#include "snapshot/chunk_sql.h"
#include "snapshot/key_compare.h"
#include "snapshot/newly_matched.h"
#include "snapshot/progress.h"
#include "snapshot/read_budget.h"
#include "snapshot/reconcile.h"
#include "snapshot/row_arena.h"
#include "state/state_store.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::snapshot {

namespace {

using binlog::Cell;
using binlog::ColumnDef;
using binlog::ColumnType;

// The columns as the chunk SELECTs deliver them (mapping::SelectedColumn).
std::vector<ColumnDef> TextColumns(const std::vector<ColumnDef>& columns) {
  std::vector<ColumnDef> out;
  out.reserve(columns.size());
  for (const ColumnDef& c : columns) out.push_back(mapping::SelectedColumn(c));
  return out;
}

// The key a table is chunked by: the primary key, else the first unique key whose columns are all
// NOT NULL. Empty if there is none. `index` gets the key's index name.
std::vector<uint32_t> ChooseChunkKey(mysql::Connection& sql, const tables::SourceTableSchema& s,
                                     std::string& index) {
  index = "PRIMARY";
  if (!s.primary_key.empty()) return s.primary_key;
  auto rows = sql.QueryRows(fmt::format(
      "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = {} "
      "AND TABLE_NAME = {} AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX",
      mysql::QuoteString(s.name.database), mysql::QuoteString(s.name.table)));
  std::map<std::string, std::vector<uint32_t>> indexes;
  std::vector<std::string> order;
  for (auto& row : rows) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    if (!indexes.count(*row[0])) order.push_back(*row[0]);
    auto& key = indexes[*row[0]];
    bool found = false;
    for (uint32_t i = 0; i < s.columns.size(); ++i) {
      if (s.columns[i].name == *row[1]) {
        key.push_back(i);
        found = true;
      }
    }
    if (!found) key.push_back(UINT32_MAX);
  }
  for (const std::string& name : order) {
    const auto& key = indexes[name];
    const bool usable = std::all_of(key.begin(), key.end(), [&](uint32_t i) {
      return i != UINT32_MAX && !s.columns[i].nullable;
    });
    if (usable) {
      index = name;
      return key;
    }
  }
  return {};
}

}  // namespace

bool HasChunkKey(mysql::Connection& source, const tables::SourceTableSchema& schema) {
  std::string index;
  return !ChooseChunkKey(source, schema, index).empty();
}

std::string KeylessTableProblem(const std::string& table) {
  return fmt::format(
      "{}: has neither a primary key nor a unique key over NOT NULL columns, so it cannot be "
      "copied in consistent chunks; add a key, or allow copying it as one chunk "
      "(snapshot.keyless_single_chunk: true in the configuration, or --keyless-single-chunk of "
      "rowbridge run and rowbridge snapshot; see docs/snapshot.md for the caveat)",
      table);
}

namespace {

// Column names match like the conversion plan matches them: case ignored.
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

BinlogPoint PointOf(const mysql::BinlogPosition& p) {
  return {p.file, p.position};
}

struct CopiedTable {
  const tables::ReplicatedTable* source = nullptr;
  std::unique_ptr<server::TableStats> stats;  // the table's rows in the metrics and /status
  server::Counter* copied_rows = nullptr;     // rowbridge_snapshot_rows_total
  std::string label;
  std::vector<ColumnDef> text_columns;
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

std::vector<const ColumnDef*> KeyColumns(const CopiedTable& t) {
  std::vector<const ColumnDef*> key;
  for (uint32_t i : t.key) key.push_back(&t.text_columns[i]);
  return key;
}

// The table's rows as the progress bar's total: the statistics' count, exact for small tables.
uint64_t EstimateRows(mysql::Connection& admin, const CopiedTable& t) {
  auto estimate = admin.QueryValue(fmt::format(
      "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = {} AND TABLE_NAME = "
      "{}",
      mysql::QuoteString(t.source->name.database), mysql::QuoteString(t.source->name.table)));
  const uint64_t rows = estimate ? std::strtoull(estimate->c_str(), nullptr, 10) : 0;
  if (rows >= 200000) return rows;
  auto count = admin.QueryValue("SELECT COUNT(*) FROM " + t.from);
  return count ? std::strtoull(count->c_str(), nullptr, 10) : 0;
}

mapping::TargetBlock TakeBlock(CopiedTable& t, const mapping::ConversionPlan& plan) {
  {
    std::lock_guard lock(t.mutex);
    if (!t.spare_blocks.empty()) {
      mapping::TargetBlock block = std::move(t.spare_blocks.back());
      t.spare_blocks.pop_back();
      return block;
    }
  }
  return plan.NewBlock();
}

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

}  // namespace

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

  // Everything the copy needs before its first chunk: the stores, the source checked, every
  // table resolved, the run record (new or resumed), and each copied table's queries, plan and
  // progress.
  void Prepare();
  void OpenStores();
  std::unique_ptr<mysql::Connection> ConnectSource();
  void ResolveTables(mysql::Connection& admin, RunRecord& pending);
  // Whether this run copies the table (SnapshotOptions::only_tables).
  bool Copied(const tables::SourceTableName& name) const;
  Error RacedBySchemaChange(const CopiedTable& t, Error error) const;
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
  void SettleInFlight(CopiedTable& t);
  void CopyTables(uint32_t reader);
  class TableCopy;
  void Copy(CopiedTable& t, uint32_t reader);
  void CatchUp(CopiedTable& t, const BinlogPoint& end, uint32_t reader);
  // After every table is brought to E: deletes the rows `target` held before the copy that it did
  // not write again, i.e. rows the source no longer has. False if it cannot tell them (a changelog
  // target of a table without a key).
  bool DeleteEarlierRows(const std::string& target);
  void Writer(uint32_t number);
  // Runs `work` on every table, snapshot.readers tables at a time; the first error stops them.
  void RunReaders(const std::function<void(CopiedTable&, uint32_t)>& work);
  // After every table reached `end`: the earlier rows of the targets deleted, the run recorded
  // done.
  void Complete(const BinlogPoint& end);
  // The copied tables' columns as the copy read them, as a schema history valid from `end`. The
  // catch-up read every change of them up to `end` by these columns (a TABLE_MAP that disagreed
  // would have failed it), so the stream goes on with the same ones, and a schema change after
  // `end` reaches it as DDL in the binlog rather than as different columns in information_schema.
  std::string SchemaHistoryAt(const BinlogPoint& end);
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
  std::future<void> Submit(std::unique_ptr<WriteJob> job);
  void Finish(CopiedTable& t, const UnitRecord& unit, uint64_t inserted, uint64_t updated,
              uint64_t deleted);
};

SnapshotRunner::SnapshotRunner(config::Config config, SnapshotOptions options,
                               server::MetricsRegistry& metrics, server::StatusBoard& status)
    : config_(std::move(config)),
      options_(std::move(options)),
      metrics_(metrics),
      status_(status) {}

SnapshotRunner::~SnapshotRunner() = default;

void SnapshotRunner::Impl::Prepare() {
  OpenStores();
  std::unique_ptr<mysql::Connection> admin = ConnectSource();
  // The run record, saved the moment the copy creates a target (so a crash right after still
  // knows the target as rowbridge's own), and once the copy's version band is reserved.
  RunRecord pending = store->LoadRun().value_or(RunRecord{});
  columns_read_at = PointOf(mysql::CurrentBinlogPosition(*admin));
  ResolveTables(*admin, pending);
  if (pending.version_base != 0) {
    run = pending;
  } else {
    StartRun(*admin, pending);
  }
  PlanTables(*admin);
}

void SnapshotRunner::Impl::OpenStores() {
  job = options.state_job.empty() ? state::JobName(config) : options.state_job;
  insert_prefix = fmt::format("rowbridge-{}-snapshot-", job);
  store = MakeSnapshotStateStore(config, job);
  catalog = std::make_unique<tables::TargetCatalog>(endpoints::TargetClientOptions(config.target),
                                                    config.target.cluster);
  catalog->WaitForInserts(insert_prefix, std::chrono::seconds(10));
}

std::unique_ptr<mysql::Connection> SnapshotRunner::Impl::ConnectSource() {
  auto admin = mysql::Connection::Connect(SourceOptions());
  mariadb = admin->is_mariadb();
  const mysql::SourceCheckResult check = mysql::RequireSourceReady(
      *admin, config.source.server_id, endpoints::SourceReportHost(config),
      endpoints::StaleSessionGrace(config.source));
  if (check.facts.binlog_row_image != "FULL") {
    Fail(ErrorCode::kConfig,
         "source {} has binlog_row_image={}: the copy reconciles chunks with full row images; set "
         "binlog_row_image=FULL",
         admin->peer(), check.facts.binlog_row_image);
  }
  return admin;
}

void SnapshotRunner::Impl::ResolveTables(mysql::Connection& admin, RunRecord& pending) {
  const std::vector<std::string> created_before = pending.created_targets;
  tables::ResolverOptions resolver_options;
  resolver_options.conversion_counters = std::make_shared<mapping::ConversionCounters>(
      [this](const mapping::ColumnName& c, mapping::RangeRule rule) {
        return pipeline_metrics.ClampSink(c.database, c.table, c.column,
                                          std::string(mapping::RangeRuleName(rule)));
      });
  resolver_options.created_targets = pending.created_targets;
  resolver_options.replicated_tables = options.replicated_tables;
  resolver_options.checkpoint = options.checkpoint;
  resolver_options.target_overrides = options.target_overrides;
  // Targets are created while the tables are resolved, below, and each is recorded at once.
  resolver_options.on_created = [this, &pending](const std::string& label) {
    auto& created = pending.created_targets;
    created.insert(std::upper_bound(created.begin(), created.end(), label), label);
    store->SaveRun(pending);
  };
  resolver = std::make_unique<tables::TableResolver>(config, *catalog, resolver_options);
  std::vector<std::string> problems;
  resolved = resolver->ResolveAll(
      admin, problems, [this](const tables::SourceTableName& name) { return Copied(name); });
  try {
    mapping::ThrowIfProblems(problems);
  } catch (const Error& e) {
    // A resumed copy into fresh targets it made itself from the source's columns: those columns
    // changed since (a schema change raced the copy), and only a copy from the start fits them.
    // So does a resumed copy of tables matched later into targets it made itself, and a copy of
    // tables matched later into targets rowbridge made before it: the stream made them with the
    // columns of an earlier position, and the source has changed them since (unpaced DDL
    // workload, seed 152 on MariaDB 11.8: "c15: the target table has no column of this name").
    auto contains = [](const std::vector<std::string>& labels, const std::string& label) {
      return std::find(labels.begin(), labels.end(), label) != labels.end();
    };
    const bool into_rowbridge_targets =
        options.alongside && options.target_overrides.empty() && !options.only_tables.empty() &&
        std::all_of(options.only_tables.begin(), options.only_tables.end(),
                    [&](const std::string& label) {
                      const config::QualifiedName split = SplitLabel(label);
                      const tables::SourceTableName name{split.database, split.table};
                      const int rule = resolver->Match(name);
                      return rule != config::TableMatcher::kNoRule &&
                             contains(options.rowbridge_targets, resolver->TargetLabel(name, rule));
                    });
    const bool made_before =
        std::any_of(options.target_overrides.begin(), options.target_overrides.end(),
                    [&](const auto& o) {
                      return contains(created_before, o.second.database + "." + o.second.table);
                    }) ||
        (options.alongside && options.target_overrides.empty() && !created_before.empty()) ||
        into_rowbridge_targets;
    if (!made_before) throw;
    throw Error(ErrorCode::kSourceChanged,
                fmt::format("{} (the copied table changed since its copy began; the copy runs "
                            "again from the start)",
                            e.what()));
  }
  for (const auto& [label, fresh] : options.target_overrides) {
    const bool listed = std::any_of(resolved.begin(), resolved.end(),
                                    [&](const auto& t) { return t.name.ToString() == label; });
    // Renamed or dropped after the position the stream read when it asked for the copy: the
    // stream will reach that statement, and a rename takes the copy along (Session::CopyAgain).
    if (!listed) {
      Fail(ErrorCode::kSourceChanged,
           "{} is no longer in the source under this name (renamed or dropped later in the "
           "binlog than the stream has read)",
           label);
    }
  }
}

// A chunk query the server refused for an unknown column or table (ER_BAD_FIELD_ERROR,
// ER_NO_SUCH_TABLE) in a copy alongside the stream, whose window has not reached the ALTER or
// RENAME yet: when the table's columns now differ from the ones the copy read, or the table is
// gone, the copy is begun again (kSourceChanged) instead of counting as a failure. The same server
// error on an unchanged table stays what it is, so a fault of rowbridge's own never loops.
Error SnapshotRunner::Impl::RacedBySchemaChange(const CopiedTable& t, Error error) const {
  constexpr int kBadFieldError = 1054;
  constexpr int kNoSuchTable = 1146;
  // MySQL's ER_TABLE_DEF_CHANGED: an ALTER after the copy's consistent snapshot began.
  constexpr int kTableDefinitionChanged = 1412;
  if (!options.alongside || error.code() != ErrorCode::kServer ||
      (error.server_code() != kBadFieldError && error.server_code() != kNoSuchTable &&
       error.server_code() != kTableDefinitionChanged) ||
      t.source == nullptr || !t.source->known) {
    return error;
  }
  try {
    auto admin = mysql::Connection::Connect(SourceOptions());
    const auto now =
        tables::LoadSourceTableSchema(*admin, t.source->name.database, t.source->name.table);
    const auto& read = t.source->known->columns;
    const bool same =
        now && std::equal(now->columns.begin(), now->columns.end(), read.begin(), read.end(),
                          [](const ColumnDef& a, const ColumnDef& b) { return a.name == b.name; });
    if (same) return error;
  } catch (...) {
    spdlog::warn("snapshot {}: after \"{}\": {}", t.label, error.what(),
                 CurrentExceptionAsError("reading its columns again").what());
    return error;
  }
  return Error(ErrorCode::kSourceChanged,
               fmt::format("{} (the table changed while it was being copied; the copy runs again "
                           "from the start)",
                           error.what()));
}

bool SnapshotRunner::Impl::Copied(const tables::SourceTableName& name) const {
  return options.only_tables.empty() ||
         std::find(options.only_tables.begin(), options.only_tables.end(), name.ToString()) !=
             options.only_tables.end();
}

void SnapshotRunner::Impl::StartRun(mysql::Connection& admin, const RunRecord& pending) {
  // A new copy reserves its version band above what the targets hold, unless its caller gave it
  // one (a copy alongside the stream, whose band the checkpoint reserved): then the targets are
  // not read at all, since the stream may be renaming one of them meanwhile (a RENAME TABLE it
  // follows), and a target missing for that instant failed the copy.
  uint64_t max_version = 0;
  if (options.version_base == 0) max_version = MaxTargetVersion();
  run = pending;
  run.version_base = options.version_base != 0 ? options.version_base : max_version + 1;
  FindEarlierRows();
  run.start = PointOf(mysql::CurrentBinlogPosition(admin));
  store->SaveRun(run);
  spdlog::info("snapshot: new copy from {}, versions from {} ({})", run.start.ToString(),
               run.version_base, store->Describe());
}

uint64_t SnapshotRunner::Impl::MaxTargetVersion() {
  uint64_t max_version = 0;
  for (const tables::TargetTable* t : resolver->targets()) {
    const bool has_version = std::any_of(t->columns.begin(), t->columns.end(), [&](const auto& c) {
      return c.name == t->version_column;
    });
    if (!has_version) continue;
    const uint64_t max = catalog->MaxVersion(t->database, t->table, t->version_column);
    state::RequireVersionRoom(
        max < state::kVersionLimit - kVersionBand ? max + kVersionBand : max,
        "a copy above " + t->label,
        "delete the rows of versions at or above 2^62 - 2^48 from " + t->label + ", or empty it");
    max_version = std::max(max_version, max);
  }
  return max_version;
}

void SnapshotRunner::Impl::FindEarlierRows() {
  // Targets that hold rows already (a copy again after the binlog was lost, a user's table): the
  // copy writes every row the source has above them, and deletes the rest when it ends. That
  // needs every source table writing into the target to be copied now; rows of a table copied
  // into a target shared with tables the stream already covers cannot be told apart.
  for (const tables::TargetTable* t : resolver->targets()) {
    bool any_copied = false, all_copied = true;
    std::vector<std::string> others;
    for (const tables::ReplicatedTable& r : resolved) {
      if (r.target != t) continue;
      if (Copied(r.name) && options.window_only_from.count(r.name.ToString()) == 0) {
        any_copied = true;
      } else {
        all_copied = false;
        others.push_back(r.name.ToString());
      }
    }
    if (!any_copied) continue;
    const uint64_t rows = catalog->RowCount(t->database, t->table);
    if (rows == 0) continue;
    const bool has_version = std::any_of(t->columns.begin(), t->columns.end(), [&](const auto& c) {
      return c.name == t->version_column;
    });
    if (all_copied && has_version) {
      run.targets_with_earlier_rows.push_back(t->label);
      spdlog::info(
          "snapshot: {} holds {} row(s) already; the copy writes every source row over them and "
          "then deletes those the source no longer has",
          t->label, rows);
    } else {
      run.unreconciled_targets.push_back(t->label);
      spdlog::warn(
          "snapshot: {} holds {} row(s) already and {}: rows of the copied tables that the "
          "source no longer has cannot be told apart and stay in it",
          t->label, rows,
          has_version ? fmt::format("also receives {}, which this copy does not copy",
                                    fmt::join(others, ", "))
                      : "has no version column " + t->version_column);
    }
  }
  std::sort(run.targets_with_earlier_rows.begin(), run.targets_with_earlier_rows.end());
  std::sort(run.unreconciled_targets.begin(), run.unreconciled_targets.end());
}

void SnapshotRunner::Impl::PlanTables(mysql::Connection& admin) {
  std::map<std::string, TableProgress> saved_tables = store->LoadTables();
  uint32_t next_number = 0;
  for (const auto& [name, p] : saved_tables) next_number = std::max(next_number, p.number + 1);
  std::vector<std::string> problems;
  for (const tables::ReplicatedTable& source : resolved) {
    if (!Copied(source.name)) continue;
    auto t = std::make_unique<CopiedTable>();
    t->source = &source;
    t->label = source.name.ToString();
    const tables::SourceTableName& name = source.name;
    t->stats = std::make_unique<server::TableStats>(pipeline_metrics, runner.status_, name.database,
                                                    name.table, source.target->database,
                                                    source.target->table);
    t->copied_rows = &pipeline_metrics.snapshot_rows.WithLabels({name.database, name.table});
    t->text_columns = TextColumns(source.known->columns);
    std::string index;
    t->key = ChooseChunkKey(admin, *source.known, index);
    if (t->key.empty() && !options.keyless_single_chunk && !config.snapshot.keyless_single_chunk) {
      problems.push_back(KeylessTableProblem(t->label));
      continue;
    }
    t->collations = LoadKeyCollations(admin, KeyColumns(*t));
    BuildQueries(*t, index);
    PlanConversion(*t);
    StartProgress(*t, admin, saved_tables, next_number);
    tables.push_back(std::move(t));
  }
  mapping::ThrowIfProblems(problems);
}

void SnapshotRunner::Impl::BuildQueries(CopiedTable& t, const std::string& index) {
  for (uint32_t i : t.key) t.key_quoted.push_back(mysql::QuoteIdentifier(t.text_columns[i].name));
  for (size_t i = 0; i < t.text_columns.size(); ++i) {
    if (i) t.select_list += ", ";
    t.select_list += mapping::BinarySelectExpression(
        t.text_columns[i], mysql::QuoteIdentifier(t.text_columns[i].name));
  }
  for (size_t i = 0; i < t.key.size(); ++i) {
    if (i) t.key_select_list += ", ";
    t.key_select_list += mapping::TextSelectExpression(t.text_columns[t.key[i]], t.key_quoted[i]);
  }
  t.from = mysql::QuoteQualified(t.source->name.database, t.source->name.table);
  // Chunks are read along the key's index. Without the hint the optimizer may pick a scan of
  // the whole table and a sort for each chunk (MyISAM does, for a range it thinks is large).
  t.chunk_from = t.from;
  if (!t.key.empty()) t.chunk_from += " FORCE INDEX (" + mysql::QuoteIdentifier(index) + ")";
  for (size_t i = 0; i < t.key_quoted.size(); ++i)
    t.order_by += (i ? ", " : " ORDER BY ") + t.key_quoted[i];
}

void SnapshotRunner::Impl::PlanConversion(CopiedTable& t) {
  std::vector<std::string> key_names;
  for (uint32_t i : t.key) key_names.push_back(t.text_columns[i].name);
  t.plan_options = resolver->PlanOptionsFor(*t.source, std::move(key_names));
  const tables::TargetTable& target = *t.source->target;
  mapping::ConversionPlan plan =
      mapping::ConversionPlan::Build(t.text_columns, target.columns, t.plan_options);
  t.insert_sql = plan.InsertQuery(target.database, target.table);
}

void SnapshotRunner::Impl::StartProgress(CopiedTable& t, mysql::Connection& admin,
                                         const std::map<std::string, TableProgress>& saved_tables,
                                         uint32_t& next_number) {
  const tables::SourceTableName& name = t.source->name;
  auto it = saved_tables.find(t.label);
  if (it != saved_tables.end()) {
    t.progress = it->second;
  } else {
    t.progress.table = t.label;
    t.progress.number = next_number++;
    if (auto from = options.window_only_from.find(t.label);
        from != options.window_only_from.end()) {
      t.progress.state = "copied";
      t.progress.high = from->second;
    }
  }
  t.base = run.version_base + uint64_t{t.progress.number} * kTableBand;
  // The band's last table band is the deletes' (DeleteEarlierRows).
  if (uint64_t{t.progress.number} * kTableBand >= kVersionBand - kTableBand)
    Fail(ErrorCode::kConfig, "more than {} tables in one copy", kVersionBand / kTableBand - 1);
  t.writer = static_cast<uint32_t>(tables.size() % std::max<uint32_t>(1, config.snapshot.writers));

  t.counters = &progress.Add(name.database, name.table);
  t.counters->rows_done = t.progress.rows_done;
  t.counters->rows_at_start = t.progress.rows_done;
  t.counters->done = t.progress.state == "copied" || t.progress.state == "done";
  const uint64_t estimate = EstimateRows(admin, t);
  t.counters->estimated = estimate;
  if (t.counters->done) {
    t.stats->status.FinishCopy();
  } else {
    t.stats->status.StartCopy(t.progress.rows_done, estimate, runner.status_.Now());
  }
  auto engine = admin.QueryValue(fmt::format(
      "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = {} AND TABLE_NAME = {}",
      mysql::QuoteString(name.database), mysql::QuoteString(name.table)));
  t.exact_snapshot = mariadb && engine && (*engine == "InnoDB" || *engine == "RocksDB");
}

// A unit a crash left in flight: in the target (all its rows) = done; absent = redo it.
void SnapshotRunner::Impl::SettleInFlight(CopiedTable& t) {
  if (!t.progress.in_flight) return;
  const UnitRecord unit = *t.progress.in_flight;
  const tables::TargetTable& target = *t.source->target;
  uint64_t present = 0;
  // Reader threads settle their tables at the same time; the catalog has one connection.
  std::lock_guard catalog_lock(catalog_mutex);
  if (!config.target.cluster.empty()) {
    // Every replica's rows, not one replica per shard as the Distributed table would read: the
    // one it picks may not have fetched the unit's part yet.
    present = catalog->VersionsFrom(target, unit.first_version, unit.last_version).size();
  } else {
    catalog->client().Select(
        fmt::format("SELECT toUInt64(count()) FROM {} WHERE {} BETWEEN {} AND {}",
                    clickhouse::QuoteQualified(target.database, target.table),
                    clickhouse::QuoteIdentifier(target.version_column), unit.first_version,
                    unit.last_version),
        [&](clickhouse::Block& block) {
          if (block.RowCount() > 0)
            present = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).At(0);
          return true;
        });
  }
  if (present == unit.rows) {
    spdlog::info("snapshot {}: the chunk in flight at the last stop is in {} ({} rows)", t.label,
                 target.label, present);
    Finish(t, unit, 0, 0, 0);
  } else if (present == 0) {
    spdlog::info("snapshot {}: the chunk in flight at the last stop is not in {}; copying it again",
                 t.label, target.label);
    std::lock_guard lock(t.mutex);
    t.progress.in_flight.reset();
    store->SaveTable(t.progress);
  } else {
    Fail(ErrorCode::kCorruption,
         "snapshot {}: {} holds {} of the {} rows of the chunk that was in flight (versions "
         "{}..{}); "
         "a partial INSERT needs a person: delete those versions from {} and run again",
         t.label, target.label, present, unit.rows, unit.first_version, unit.last_version,
         target.label);
  }
}

// The writer finished a unit (or it had no rows): the table's progress moves past it.
void SnapshotRunner::Impl::Finish(CopiedTable& t, const UnitRecord& unit, uint64_t inserted,
                                  uint64_t updated, uint64_t deleted) {
  std::lock_guard lock(t.mutex);
  TableProgress& p = t.progress;
  p.in_flight.reset();
  if (unit.last_version >= unit.first_version && unit.rows > 0)
    p.next_seq = unit.last_version - t.base + 1;
  p.rows_done += unit.chunk_rows;
  p.chunks_done += 1;
  p.high = unit.high;
  if (!unit.last_key.empty()) p.last_key = unit.last_key;
  if (unit.last && p.state != "done") p.state = "copied";
  store->SaveTable(p);
  t.counters->rows_done = p.rows_done;
  if (unit.last) t.counters->done = true;
  rows_this_run += unit.chunk_rows;
  // Every row the copy writes (its chunks and the binlog window's changes folded into them) is
  // counted as copied, apart from the stream's rows.
  const uint64_t written = inserted + updated + deleted;
  t.copied_rows->Increment(written);
  t.stats->status.AddCopiedRows(written);
  t.stats->status.SetCopyProgress(p.rows_done);
  if (unit.last) t.stats->status.FinishCopy();
}

std::future<void> SnapshotRunner::Impl::Submit(std::unique_ptr<WriteJob> job) {
  std::future<void> f = job->done.get_future();
  {
    std::lock_guard lock(queue_mutex);
    queue.push_back(std::move(job));
  }
  queue_cv.notify_all();
  return f;
}

void SnapshotRunner::Impl::Writer(uint32_t number) {
  // A connection per table with a unit open (tables that share this writer may each have one);
  // dropping one with its INSERT open writes nothing of it (all_or_nothing).
  std::map<const CopiedTable*, std::unique_ptr<clickhouse::Client>> clients;
  uint64_t n = 0;
  for (;;) {
    std::unique_ptr<WriteJob> job;
    {
      std::unique_lock lock(queue_mutex);
      auto mine = queue.end();
      queue_cv.wait(lock, [&] {
        mine = std::find_if(queue.begin(), queue.end(),
                            [&](const auto& j) { return j->table->writer == number; });
        return mine != queue.end() || queue_closed;
      });
      // After an error the writer stays until the queue closes: a unit submitted meanwhile is
      // failed below rather than left waiting for ever.
      if (mine == queue.end()) return;
      job = std::move(*mine);
      queue.erase(mine);
    }
    CopiedTable& table = *job->table;
    try {
      if (error) Fail(ErrorCode::kInternal, "the copy is stopping after an error");
      std::unique_ptr<clickhouse::Client>& client = clients[&table];
      if (!client)
        client =
            std::make_unique<clickhouse::Client>(endpoints::TargetClientOptions(config.target));
      if (job->block && job->block->rows() > 0) {
        if (!client->inserting()) {
          clickhouse::QueryOptions qo;
          qo.query_id =
              fmt::format("{}{}-{}-{}", insert_prefix,
                          std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000, n++,
                          job->unit.first_version);
          qo.all_or_nothing = true;
          client->BeginInsert(table.insert_sql, qo);
        }
        client->SendBlock(job->block->block());
        job->block->Clear();
        std::lock_guard lock(table.mutex);
        table.spare_blocks.push_back(std::move(*job->block));
        job->block.reset();
      }
      if (job->end) {
        if (client->inserting()) client->EndInsert();
        Finish(table, job->unit, job->inserted, job->updated, job->deleted);
        if (clients.size() > 1) clients.erase(&table);
      }
      job->done.set_value();
    } catch (const Error& e) {
      clients.erase(&table);
      SetError(e);
      job->done.set_exception(std::current_exception());
    } catch (...) {
      clients.erase(&table);
      SetError(
          CurrentExceptionAsError(fmt::format("snapshot writer thread writing {}", table.label)));
      job->done.set_exception(std::current_exception());
    }
  }
}

namespace {

// The cells of a row image that the plan for `columns` accepts.
struct Plans {
  const mapping::PlanOptions* options = nullptr;
  const std::vector<mapping::TargetColumn>* target = nullptr;
  std::string insert_sql;
  std::vector<std::pair<const ColumnDef*, std::unique_ptr<mapping::ConversionPlan>>> plans;

  void Add(const ColumnDef* base, mapping::ConversionPlan plan) {
    plans.emplace_back(base, std::make_unique<mapping::ConversionPlan>(std::move(plan)));
  }
  mapping::ConversionPlan& For(std::span<const Cell> row, size_t column_count) {
    const ColumnDef* base = row.empty() ? nullptr : row[0].column - row[0].index;
    for (auto& [b, plan] : plans)
      if (b == base) return *plan;
    auto plan = std::make_unique<mapping::ConversionPlan>(mapping::ConversionPlan::Build(
        std::span<const ColumnDef>(base, column_count), *target, *options));
    if (!plans.empty() && plan->insert_columns().size() != plans[0].second->insert_columns().size())
      Fail(ErrorCode::kInternal, "two plans of one table insert different columns");
    plans.emplace_back(base, std::move(plan));
    return *plans.back().second;
  }
};

// A chunk read ahead on its own connection.
struct FetchedChunk {
  std::vector<std::string> lo, hi;  // key values (hex) after which and up to which; empty: open
  std::string query;
  BinaryRows rows;                               // the binary-protocol row packets
  std::vector<mysql::ColumnDefinition> columns;  // of the result set, to read them again
  std::vector<mapping::WireColumn> wire;         // how the server sent them
  BinlogPoint low, high;   // the SELECT saw the table at a point in [low, high]
  bool ends_unit = false;  // the last read of a unit, as dispatched
  std::future<void> done;
};

// Cells of the key values `hex` (as kept in the state), over `storage` (one string per key column).
std::vector<Cell> KeyCells(const CopiedTable& t, const std::vector<std::string>& hex,
                           std::vector<std::string>& storage) {
  std::vector<Cell> cells;
  for (size_t i = 0; i < hex.size() && i < t.key.size(); ++i) {
    Cell c;
    CellFromHex(hex[i], t.text_columns[t.key[i]], t.key[i], storage[i], c);
    cells.push_back(c);
  }
  return cells;
}

// Starts a consistent snapshot and returns its exact binlog position (MariaDB).
BinlogPoint BeginExactSnapshot(mysql::Connection& sql) {
  BinlogPoint high;
  sql.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
  auto rows = sql.QueryRows("SHOW STATUS LIKE 'binlog_snapshot_%'");
  for (auto& r : rows) {
    if (r.size() < 2 || !r[0] || !r[1]) continue;
    if (*r[0] == "Binlog_snapshot_file") high.file = *r[1];
    if (*r[0] == "Binlog_snapshot_position") high.position = std::stoull(*r[1]);
  }
  if (high.empty())
    Fail(ErrorCode::kConfig, "source {} does not report binlog_snapshot_file", sql.peer());
  return high;
}

// How the chunk SELECT's columns come in binary rows; checked against the table's columns.
std::vector<mapping::WireColumn> WireColumns(const CopiedTable& t,
                                             const mysql::BinaryResultSet& rs) {
  if (rs.column_count() != t.text_columns.size())
    Fail(ErrorCode::kProtocol, "{}: the chunk SELECT returned {} columns, {} expected", t.label,
         rs.column_count(), t.text_columns.size());
  std::vector<mapping::WireColumn> wire;
  for (size_t i = 0; i < rs.column_count(); ++i) {
    const mysql::ColumnDefinition& d = rs.columns()[i];
    wire.push_back({d.type, (d.flags & mysql::kUnsignedFlag) != 0});
    mapping::CheckWireColumn(t.text_columns[i], wire.back(),
                             t.label + "." + t.text_columns[i].name);
  }
  return wire;
}

// Reads `f.query` at a known binlog position (as the one-connection path does).
void FetchChunk(const CopiedTable& t, mysql::Connection& sql, FetchedChunk& f) {
  f.rows.Clear();
  if (t.exact_snapshot) {
    f.high = f.low = BeginExactSnapshot(sql);
  } else {
    f.low = PointOf(mysql::CurrentBinlogPosition(sql));
    sql.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
  }
  {
    mysql::PreparedStatement statement = mysql::PreparedStatement::Prepare(sql, f.query);
    mysql::BinaryResultSet rs = statement.Execute();
    f.wire = WireColumns(t, rs);
    f.columns = rs.columns();
    while (rs.Next()) f.rows.Add(rs.row());
  }
  sql.Execute("COMMIT");
  if (!t.exact_snapshot) f.high = PointOf(mysql::CurrentBinlogPosition(sql));
}

}  // namespace

std::unique_ptr<mysql::Connection> SnapshotRunner::Impl::ChunkConnection() const {
  auto sql = mysql::Connection::Connect(SourceOptions());
  sql->Execute("SET SESSION time_zone = '+00:00'");
  sql->Execute("SET SESSION character_set_results = binary");
  sql->Execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
  return sql;
}

// The copy of one table, read by read, in units. A read is one chunk SELECT at a known binlog
// point, sized to the memory budget (read_budget.h), with the table's binlog window up to that
// point reconciled into it; its rows become one block, a part of the current unit. A unit is one
// INSERT: its parts are sent as they are made (all or nothing: clickhouse::QueryOptions), and it
// ends after snapshot.chunk_rows rows read, or kMaxUnitBytes, or the table's last read. Only then
// is it recorded in flight and its INSERT ended, so the progress moves by whole units as before,
// while what the copy holds is a read or two.
//
// With one connection per table the rows go straight from the result set into the block
// (converted while the source sends the rest), and are kept as their row packets only to build
// the block again in the rare case the binlog window changed rows of that very read. With several,
// read ends are found ahead (a scan of the key index) and the next reads run on their own
// connections meanwhile; each block is then built from the kept packets, in key order.
class SnapshotRunner::Impl::TableCopy {
 public:
  TableCopy(Impl& impl, CopiedTable& t, uint32_t reader, const TableProgress& cursor)
      : impl_(impl),
        t_(t),
        cursor_(cursor),
        sql_(impl.ChunkConnection()),
        window_(impl.SourceOptions(), impl.config.source.server_id + 1 + reader,
                t.source->name.database, t.source->name.table, t.source->known->columns),
        reconciler_(t.key, KeyCollator()),
        encoder_(t.text_columns, t.label),
        text_plan_(PlansFor(t, plans_)),
        limit_(std::max<uint64_t>(1, impl.config.snapshot.chunk_rows)),
        fetchers_(t.key.empty() ? 1 : impl.ReadersPerTable()),
        one_read_units_(!impl.config.target.cluster.empty() && !t.key.empty()),
        sizer_(impl.ReadBytesPerTable(fetchers_), limit_),
        next_lo_(cursor.last_key),
        lo_storage_(t.key.size()),
        hi_storage_(t.key.size()) {}

  void Run() {
    bool last = false;
    while (!last && !impl_.stopping()) {
      Unit u;
      u.first_seq = u.seq = cursor_.next_seq;
      // The unit's reads; a stop ends the unit early, whole.
      for (bool more = true; more;) {
        Read r = NewRead(u);
        if (fetchers_ > 1) {
          TakeReadAhead(r);
        } else {
          ReadChunk(u, r);
        }
        ReconcileWindow(r);
        FillPart(u, r);
        u.last = r.last;
        more = !one_read_units_ && !r.last && !impl_.stopping() && u.bytes < kMaxUnitBytes &&
               (fetchers_ > 1 ? !r.ends_unit : u.chunk_rows < limit_);
        if (one_read_units_) RecordInFlight(u, r.part->block->rows());
        SendPart(u, r);
        if (r.fetched) spare_chunks_.push_back(std::move(r.fetched));
      }
      EndUnit(u);
      last = u.last;
    }
    if (part_sent_.valid()) part_sent_.get();
    if (previous_.valid()) previous_.get();
  }

 private:
  // One unit: one INSERT, the rows of one or more reads.
  struct Unit {
    uint64_t first_seq = 0;   // the first version's offset in the table's band
    uint64_t seq = 0;         // the next one's
    uint64_t chunk_rows = 0;  // rows read
    uint64_t rows = 0;        // rows sent
    uint64_t bytes = 0;       // row packet bytes read
    uint64_t inserted = 0, updated = 0, deleted = 0;
    std::vector<std::string> last_key;  // of the last read that has one
    bool last = false;
    bool recorded = false;  // recorded in flight before its block went out (one_read_units_)
  };
  // One read: a chunk SELECT, and the part of the unit it makes.
  struct Read {
    std::unique_ptr<WriteJob> part;  // its block
    uint64_t chunk_version = 0;      // the read's rows share it
    uint64_t asked = 0;              // rows the SELECT asked for (0: all, a keyless table)
    uint64_t rows = 0;               // rows it returned
    uint64_t bytes = 0;              // their packet bytes
    uint64_t sent = 0;               // rows of a keyless table sent while it was still read
    BinlogPoint low, high;           // the read saw the table at a point in [low, high]
    bool last = false;               // the table's last read
    bool ends_unit = false;          // read ahead: the unit's last read, as dispatched
    bool streamed = false;           // its rows went into the block as they came
    std::vector<std::string> last_key;
    std::unique_ptr<FetchedChunk> fetched;  // read ahead
    BinaryRows* packets = nullptr;          // the read's row packets
    const std::vector<mysql::ColumnDefinition>* columns = nullptr;
  };

  static mapping::ConversionPlan& PlansFor(CopiedTable& t, Plans& plans) {
    plans.options = &t.plan_options;
    plans.target = &t.source->target->columns;
    plans.Add(t.text_columns.data(),
              mapping::ConversionPlan::Build(t.text_columns, *plans.target, t.plan_options));
    return *plans.plans[0].second;
  }

  // Compares key texts the way the source's collation does, by asking the source.
  TextCollator KeyCollator() {
    for (size_t i = 0; i < t_.key.size(); ++i)
      collation_of_[t_.text_columns[t_.key[i]].name] = t_.collations[i];
    return [this](const ColumnDef& c, std::string_view a, std::string_view b) {
      const KeyCollation& k = collation_of_.at(c.name);
      std::string q = "SELECT STRCMP(";
      Cell ca, cb;
      ca.column = cb.column = &c;
      ca.data = reinterpret_cast<const uint8_t*>(a.data());
      ca.size = a.size();
      cb.data = reinterpret_cast<const uint8_t*>(b.data());
      cb.size = b.size();
      AppendKeyLiteral(ca, k, q);
      q += " COLLATE " + k.collation + ", ";
      AppendKeyLiteral(cb, k, q);
      q += " COLLATE " + k.collation + ")";
      return std::stoi(sql_->QueryValue(q).value_or("0"));
    };
  }

  // Versions of a read: its rows share the first; the emitted window changes follow, one each.
  // The two touch disjoint keys (the window's at or below lo, the read's above), so only the
  // order among each key's changes matters, and that is binlog order.
  Read NewRead(const Unit& u) {
    Read r;
    r.part = std::make_unique<WriteJob>();
    r.part->table = &t_;
    r.part->block.emplace(TakeBlock(t_, text_plan_));
    r.chunk_version = t_.base + u.seq;
    r.packets = &chunk_;
    r.columns = &chunk_columns_;
    lo_.clear();
    hi_.clear();
    return r;
  }

  // Finds the next read's end and starts it on a connection of its own. Reads are recycled:
  // their row buffers keep their capacity, so a copy does not touch fresh pages (page faults
  // were a tenth of the copy's CPU) for every read. Reads are cut so that units have limit_ rows
  // as dispatched.
  void ReadAhead() {
    std::unique_ptr<FetchedChunk> f;
    if (spare_chunks_.empty()) {
      f = std::make_unique<FetchedChunk>();
    } else {
      f = std::move(spare_chunks_.back());
      spare_chunks_.pop_back();
      f->hi.clear();
    }
    f->lo = next_lo_;
    std::vector<std::string> storage(t_.key.size());
    std::vector<Cell> lo_cells = KeyCells(t_, f->lo, storage);
    std::string where =
        lo_cells.empty() ? "" : AfterKeyCondition(t_.key_quoted, lo_cells, t_.collations);
    const uint64_t rows = std::min(sizer_.NextRows(), limit_ - dispatched_unit_rows_);
    dispatched_unit_rows_ += rows;
    f->ends_unit = dispatched_unit_rows_ >= limit_;
    if (f->ends_unit) dispatched_unit_rows_ = 0;
    FindChunkEnd(where, rows, f->hi);
    std::vector<std::string> hi_text(t_.key.size());
    std::vector<Cell> hi_cells = KeyCells(t_, f->hi, hi_text);
    if (!hi_cells.empty()) {
      where += (where.empty() ? "" : " AND ") +
               AtOrBeforeKeyCondition(t_.key_quoted, hi_cells, t_.collations);
    }
    f->query = "SELECT " + t_.select_list + " FROM " + t_.chunk_from +
               (where.empty() ? "" : " WHERE " + where) + t_.order_by;
    next_lo_ = f->hi;
    all_dispatched_ = f->hi.empty();
    const size_t slot = dispatched_++ % fetchers_;
    if (fetch_connections_.size() <= slot) fetch_connections_.push_back(impl_.ChunkConnection());
    mysql::Connection& c = *fetch_connections_[slot];
    FetchedChunk* chunk = f.get();
    const CopiedTable& t = t_;
    f->done = std::async(std::launch::async, [&t, &c, chunk] { FetchChunk(t, c, *chunk); });
    fetching_.push_back(std::move(f));
  }

  // The key of the read's last row, `rows` rows on from `where`; empty if fewer are left.
  void FindChunkEnd(const std::string& where, uint64_t rows, std::vector<std::string>& hi) {
    const std::string query = "SELECT " + t_.key_select_list + " FROM " + t_.chunk_from +
                              (where.empty() ? "" : " WHERE " + where) + t_.order_by +
                              " LIMIT 1 OFFSET " + std::to_string(rows - 1);
    mysql::ResultSet rs = sql_->Query(query);
    while (rs.Next()) {
      std::array<uint8_t, mapping::kTextCellBufferSize> buffer;
      for (size_t i = 0; i < t_.key.size(); ++i) {
        Cell c;
        std::optional<std::string_view> text;
        if (!rs.IsNull(i)) text = rs.Field(i);
        mapping::EncodeTextCell(t_.text_columns[t_.key[i]], t_.key[i], text, buffer, t_.label, c);
        hi.push_back(CellHex(c));
      }
    }
  }

  // The oldest read ahead, once it is in; more are started to keep fetchers_ in flight.
  void TakeReadAhead(Read& r) {
    while (!all_dispatched_ && fetching_.size() < fetchers_) ReadAhead();
    r.fetched = std::move(fetching_.front());
    fetching_.pop_front();
    r.fetched->done.get();
    r.packets = &r.fetched->rows;
    r.columns = &r.fetched->columns;
    r.rows = r.packets->size();
    r.bytes = r.packets->bytes();
    sizer_.Measured(r.rows, r.bytes);
    encoder_.Bind(r.fetched->wire);
    r.low = r.fetched->low;
    r.high = r.fetched->high;
    lo_ = KeyCells(t_, r.fetched->lo, lo_storage_);
    hi_ = KeyCells(t_, r.fetched->hi, hi_storage_);
    r.last_key = r.fetched->hi;
    r.last = r.fetched->hi.empty();
    r.ends_unit = r.fetched->ends_unit;
  }

  // The next read, after the last key read, on this thread's connection straight into the block.
  // A read whose packets pass twice its bytes (rows wider than the ones measured before them) is
  // cut at that row: the rest of its rows are drained unused, and read by the next read. A
  // keyless table is one SELECT: its rows are sent in parts of the read's bytes as they come.
  void ReadChunk(Unit& u, Read& r) {
    const bool keyed = !t_.key.empty();
    lo_ = KeyCells(t_, cursor_.last_key, lo_storage_);
    std::string query = "SELECT " + t_.select_list + " FROM " + t_.chunk_from;
    if (!lo_.empty()) query += " WHERE " + AfterKeyCondition(t_.key_quoted, lo_, t_.collations);
    if (keyed) {
      r.asked = std::min(sizer_.NextRows(), limit_ - u.chunk_rows);
      query += t_.order_by + " LIMIT " + std::to_string(r.asked);
    }
    const uint64_t cut_at = 2 * sizer_.read_bytes();

    r.low = cursor_.high;
    chunk_.Clear();
    if (t_.exact_snapshot) {
      r.high = BeginExactSnapshot(*sql_);
    } else {
      if (r.low.empty()) r.low = PointOf(mysql::CurrentBinlogPosition(*sql_));
      sql_->Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    }
    bool cut = false;
    {
      mysql::PreparedStatement statement = mysql::PreparedStatement::Prepare(*sql_, query);
      mysql::BinaryResultSet rs = statement.Execute();
      encoder_.Bind(WireColumns(t_, rs));
      chunk_columns_ = rs.columns();
      uint64_t part_bytes = 0;
      while (rs.Next()) {
        if (cut) continue;
        const std::string_view packet = rs.row();
        ++r.rows;
        r.bytes += packet.size();
        if (keyed) chunk_.Add(packet);
        text_plan_.AppendRow(encoder_.EncodeRow(rs), *r.part->block,
                             {mapping::RowKind::kInsert, r.chunk_version});
        if (keyed) {
          cut = chunk_.bytes() >= cut_at;
        } else if ((part_bytes += packet.size()) >= sizer_.read_bytes()) {
          r.sent += r.part->block->rows();
          SendPart(u, r);
          r.part->block.emplace(TakeBlock(t_, text_plan_));
          part_bytes = 0;
        }
      }
    }
    r.streamed = true;
    sql_->Execute("COMMIT");
    if (!t_.exact_snapshot) r.high = PointOf(mysql::CurrentBinlogPosition(*sql_));
    if (keyed) sizer_.Measured(r.rows, r.bytes);
    r.last = !keyed || (!cut && r.rows < r.asked);
    if (!r.last) {
      chunk_.Get(chunk_.size() - 1, chunk_columns_, t_.label, fields_);
      std::span<const Cell> row = encoder_.Encode(fields_);
      for (size_t i = 0; i < t_.key.size(); ++i) r.last_key.push_back(CellHex(row[t_.key[i]]));
      hi_ = KeyCells(t_, r.last_key, hi_storage_);
    }
  }

  // The table's binlog changes up to the read, judged against its key range.
  void ReconcileWindow(Read& r) {
    if (r.low.empty()) r.low = r.high;  // the first read on MariaDB: exact, nothing before it
    // The window runs from where the previous read ended. A read made in parallel may have been
    // made before that point: the changes between its reading and that point are applied to its
    // own keys first (the rest of them were judged with the previous reads).
    BinlogPoint from = cursor_.high.empty() ? r.low : cursor_.high;
    // A table's first window begins where its columns were read, not at its first read: a schema
    // change in between is then seen (the window ends the copy as a source change) instead of
    // the copy handing over stale columns. An earlier start only takes a few more keys' rows from
    // the binlog instead of the read, which the reconciliation allows.
    if (cursor_.high.empty() && !impl_.columns_read_at.empty() && impl_.columns_read_at < from) {
      from = impl_.columns_read_at;
    }
    earlier_.clear();
    if (r.low < from) window_.Read(r.low, from, earlier_rows_, earlier_);
    if (r.high < from) r.high = from;
    window_.Read(from, r.high, window_rows_, changes_);
    if (t_.key.empty() && !changes_.empty() && !t_.exact_snapshot) {
      spdlog::warn(
          "snapshot {}: {} changes during the copy of this keyless table are not "
          "reconciled (docs/snapshot.md, keyless tables)",
          t_.label, changes_.size());
      changes_.clear();
    }
    ChunkBounds bounds{lo_, hi_, false};
    reconciler_.ReconcileWindow(earlier_, changes_, bounds, emitted_);
  }

  // The read's part: its rows (unless already in the block), then the emitted window changes,
  // each with its version; the unit's counts.
  void FillPart(Unit& u, Read& r) {
    WriteJob& job = *r.part;
    const size_t column_count = t_.text_columns.size();
    if (!r.streamed || reconciler_.TouchesChunk()) {
      // A keyless table's one read has no window of its own (it starts the table's binlog
      // window), so nothing ever touches it; its packets are not kept.
      if (r.sent > 0 || (t_.key.empty() && r.streamed))
        Fail(ErrorCode::kInternal, "{}: a keyless table's read was touched by its window",
             t_.label);
      // Built from the kept row packets, leaving out the rows the window replaced or removed
      // and adding what it left.
      job.block->Clear();
      for (size_t i = 0; i < r.packets->size(); ++i) {
        r.packets->Get(i, *r.columns, t_.label, fields_);
        std::span<const Cell> row = encoder_.Encode(fields_);
        if (!reconciler_.Replaced(row))
          text_plan_.AppendRow(row, *job.block, {mapping::RowKind::kInsert, r.chunk_version});
      }
      window_left_.clear();
      reconciler_.AppendWindowRows(window_left_);
      for (const Emitted& e : window_left_)
        plans_.For(e.row, column_count)
            .AppendRow(e.row, *job.block, {mapping::RowKind::kInsert, r.chunk_version});
    }
    const uint64_t chunk_out = r.sent + job.block->rows();
    u.inserted += chunk_out;
    if (chunk_out > 0) ++u.seq;
    for (const Emitted& e : emitted_) {
      (e.kind == mapping::RowKind::kInsert   ? u.inserted
       : e.kind == mapping::RowKind::kUpdate ? u.updated
                                             : u.deleted)++;
      plans_.For(e.row, column_count).AppendRow(e.row, *job.block, {e.kind, t_.base + u.seq++});
    }
    if (u.seq - u.first_seq >= kTableBand)
      Fail(ErrorCode::kInternal, "{}: the table's version band is used up", t_.label);
    u.chunk_rows += r.rows;
    u.bytes += r.bytes;
    // The next read starts after this one, its window where this one's ended.
    cursor_.next_seq = u.seq;
    cursor_.high = r.high;
    if (!r.last_key.empty()) cursor_.last_key = u.last_key = r.last_key;
  }

  // Hands the read's block (if it has rows) to the table's writer as the next part of the unit's
  // INSERT, once the part before it is sent: a table holds the block being sent and the one being
  // built, no more.
  void SendPart(Unit& u, Read& r) {
    WriteJob& job = *r.part;
    if (job.block->rows() == 0) {
      std::lock_guard lock(t_.mutex);
      t_.spare_blocks.push_back(std::move(*job.block));
      job.block.reset();
      return;
    }
    if (part_sent_.valid()) part_sent_.get();
    u.rows += job.block->rows();
    job.unit.first_version = t_.base + u.first_seq;
    part_sent_ = impl_.Submit(std::move(r.part));
    r.part = std::make_unique<WriteJob>();
    r.part->table = &t_;
  }

  UnitRecord RecordOf(const Unit& u, uint64_t rows) const {
    UnitRecord record;
    record.first_version = t_.base + u.first_seq;
    record.last_version = t_.base + u.seq - 1;
    record.rows = rows;
    record.chunk_rows = u.chunk_rows;
    record.high = cursor_.high;
    record.last = u.last;
    record.last_key = u.last_key;
    return record;
  }

  // A unit of one read, whose block (`rows` rows) is about to go out: recorded in flight first,
  // after the previous unit is confirmed. Through a Distributed table a block is written as soon
  // as it arrives, so the record must exist before; then a crash leaves the unit whole or absent,
  // which the next start tells by its versions.
  void RecordInFlight(Unit& u, uint64_t rows) {
    if (previous_.valid()) previous_.get();
    if (rows == 0) return;
    SaveInFlight(RecordOf(u, rows));
    u.recorded = true;
  }

  void SaveInFlight(const UnitRecord& record) {
    std::lock_guard lock(t_.mutex);
    t_.progress.in_flight = record;
    impl_.store->SaveTable(t_.progress);
  }

  // Records the unit in flight (unless RecordInFlight did) and has its writer end its INSERT (an
  // empty unit is done at once); the writer then confirms it. The previous unit is confirmed
  // first: one unit in flight.
  void EndUnit(Unit& u) {
    if (previous_.valid()) previous_.get();
    const UnitRecord record = RecordOf(u, u.rows);
    if (record.rows == 0) {
      impl_.Finish(t_, record, 0, 0, 0);
    } else {
      if (!u.recorded) SaveInFlight(record);
      if (impl_.options.before_insert) impl_.options.before_insert(t_.label, cursor_.chunks_done);
      auto end = std::make_unique<WriteJob>();
      end->table = &t_;
      end->end = true;
      end->unit = record;
      end->inserted = u.inserted;
      end->updated = u.updated;
      end->deleted = u.deleted;
      previous_ = impl_.Submit(std::move(end));
    }
    cursor_.chunks_done += 1;
  }

  Impl& impl_;
  CopiedTable& t_;
  TableProgress cursor_;  // where the next read starts
  std::unique_ptr<mysql::Connection> sql_;
  std::map<std::string, KeyCollation> collation_of_;
  BinlogWindow window_;
  Reconciler reconciler_;
  mapping::BinaryRowEncoder encoder_;
  Plans plans_;
  mapping::ConversionPlan& text_plan_;
  const uint64_t limit_;  // rows per unit
  const uint32_t fetchers_;
  // On a cluster (target.cluster) a unit is one read, one block, recorded in flight before the
  // block goes out: ClickHouse forwards each block of an INSERT into a Distributed table to the
  // shards as it arrives, so a unit of several blocks cut off midway would be partly written.
  const bool one_read_units_;
  ReadSizer sizer_;

  // Read-ahead (fetchers_ > 1).
  std::vector<std::unique_ptr<mysql::Connection>> fetch_connections_;
  std::deque<std::unique_ptr<FetchedChunk>> fetching_;
  std::vector<std::unique_ptr<FetchedChunk>> spare_chunks_;
  std::vector<std::string> next_lo_;
  bool all_dispatched_ = false;
  uint64_t dispatched_ = 0;
  uint64_t dispatched_unit_rows_ = 0;  // rows dispatched for the unit being dispatched

  // Reused from read to read.
  BinaryRows chunk_;
  std::vector<mysql::ColumnDefinition> chunk_columns_;
  RowArena window_rows_, earlier_rows_;
  std::vector<WindowChange> changes_, earlier_;
  std::vector<Emitted> emitted_, window_left_;
  std::vector<std::optional<std::string_view>> fields_;
  std::vector<std::string> lo_storage_, hi_storage_;
  std::vector<Cell> lo_, hi_;
  std::future<void> part_sent_;  // the last part handed to the writer
  std::future<void> previous_;   // the last unit's end
};

void SnapshotRunner::Impl::Copy(CopiedTable& t, uint32_t reader) {
  LogFields log_fields;
  log_fields.Table(t.source->name.database, t.source->name.table);
  SettleInFlight(t);
  TableProgress cursor;
  {
    std::lock_guard lock(t.mutex);
    cursor = t.progress;
  }
  if (cursor.state == "copied" || cursor.state == "done") return;
  const bool one_read_units = !config.target.cluster.empty() && !t.key.empty();
  spdlog::info(
      "snapshot {}: copying{} (INSERTs of {}, reads of at most {} KiB, key {})", t.label,
      cursor.chunks_done ? fmt::format(" from chunk {}", cursor.chunks_done + 1) : "",
      one_read_units ? std::string("one read each: a cluster")
                     : fmt::format("{} rows", config.snapshot.chunk_rows),
      ReadBytesPerTable(t.key.empty() ? 1 : ReadersPerTable()) >> 10,
      t.key.empty() ? "none: one chunk" : fmt::format("({})", fmt::join(t.key_quoted, ", ")));
  TableCopy(*this, t, reader, cursor).Run();
}

// After every table is copied: the table's window up to `end`, every change emitted.
void SnapshotRunner::Impl::CatchUp(CopiedTable& t, const BinlogPoint& end, uint32_t reader) {
  SettleInFlight(t);
  TableProgress p;
  {
    std::lock_guard lock(t.mutex);
    p = t.progress;
  }
  // "done" means brought up to the E of the attempt that did it. An attempt that failed after
  // some tables were done (a ClickHouse connection cut in another table's catch-up) is retried
  // with a later E, and those tables' changes up to the new E are still to be applied: a done
  // table is done for this E only if it reached it.
  if (p.state == "done" && !(p.high < end)) return;
  if (p.state != "copied" && p.state != "done")
    Fail(ErrorCode::kInternal, "{} is not copied yet", t.label);
  if (options.before_catch_up) options.before_catch_up(t.label);
  UnitRecord unit;
  unit.high = end;
  unit.last = true;
  if (p.high < end) {
    BinlogWindow window(SourceOptions(), config.source.server_id + 1 + reader,
                        t.source->name.database, t.source->name.table, t.source->known->columns);
    RowArena rows, empty;
    std::vector<WindowChange> changes;
    std::vector<Emitted> emitted;
    window.Read(p.high, end, rows, changes);
    Reconciler reconciler(t.key, nullptr);
    reconciler.Reconcile(empty, changes, {{}, {}, true}, emitted);
    if (!emitted.empty()) {
      Plans plans;
      plans.options = &t.plan_options;
      plans.target = &t.source->target->columns;
      auto job = std::make_unique<WriteJob>();
      job->table = &t;
      uint64_t seq = p.next_seq;
      unit.first_version = t.base + seq;
      for (const Emitted& e : emitted) {
        mapping::ConversionPlan& plan = plans.For(e.row, t.source->known->columns.size());
        if (!job->block) job->block.emplace(plan.NewBlock());
        plan.AppendRow(e.row, *job->block, {e.kind, t.base + seq++});
        (e.kind == mapping::RowKind::kInsert   ? job->inserted
         : e.kind == mapping::RowKind::kUpdate ? job->updated
                                               : job->deleted)++;
      }
      unit.last_version = t.base + seq - 1;
      unit.rows = job->block->rows();
      job->unit = unit;
      job->end = true;
      {
        std::lock_guard lock(t.mutex);
        t.progress.in_flight = unit;
        store->SaveTable(t.progress);
      }
      Submit(std::move(job)).get();
    }
  }
  std::lock_guard lock(t.mutex);
  t.progress.in_flight.reset();
  t.progress.high = end;
  t.progress.state = "done";
  store->SaveTable(t.progress);
}

bool SnapshotRunner::Impl::DeleteEarlierRows(const std::string& label) {
  const CopiedTable* feeder = nullptr;
  for (const auto& t : tables)
    if (t->source->target->label == label && feeder == nullptr) feeder = t.get();
  if (feeder == nullptr) return true;  // no table of it is copied any more
  const tables::TargetTable& target = *feeder->source->target;
  const mapping::MetaColumnNames& meta = feeder->plan_options.meta;
  const bool replica = target.mode == mapping::TableMode::kReplica;
  // A changelog target keeps every change: a key's row is its latest change, found by its key.
  std::vector<std::string> keys;
  if (!replica) {
    for (uint32_t i : feeder->key) {
      for (const mapping::TargetColumn& c : target.columns)
        if (EqualsIgnoreCase(c.name, feeder->text_columns[i].name)) keys.push_back(c.name);
    }
    if (keys.empty() || keys.size() != feeder->key.size()) {
      spdlog::warn(
          "snapshot: {} held rows before the copy, and without the source key among its columns "
          "the rows the source no longer has cannot be found; they stay",
          label);
      return false;
    }
  }
  const std::string table = clickhouse::QuoteQualified(target.database, target.table);
  const std::string version = clickhouse::QuoteIdentifier(target.version_column);
  const uint64_t delete_version = run.version_base + kVersionBand - 1;
  std::string columns, values, group_by;
  for (const mapping::TargetColumn& c : target.columns) {
    if (!c.default_kind.empty() && c.default_kind != "DEFAULT") continue;  // not writable
    const std::string name = clickhouse::QuoteIdentifier(c.name);
    columns += (columns.empty() ? "" : ", ") + name;
    values += values.empty() ? "" : ", ";
    if (c.name == target.version_column) {
      values += std::to_string(delete_version);
    } else if (replica && c.name == meta.is_deleted) {
      values += "1";
    } else if (!replica && c.name == meta.event_type) {
      values += "'delete'";
    } else if (replica || std::find(keys.begin(), keys.end(), c.name) != keys.end()) {
      values += name;
    } else {
      values += fmt::format("argMax({}, {})", name, version);
    }
  }
  for (const std::string& k : keys)
    group_by += (group_by.empty() ? "" : ", ") + clickhouse::QuoteIdentifier(k);
  // Every row the source has at E was written with a version of the copy's band, so a key whose
  // latest row is below it (and not a delete) is one the source no longer has. Running this again
  // (a crash before the copy was recorded done) finds those keys deleted already.
  const std::string select =
      replica ? fmt::format("SELECT {} FROM {} FINAL WHERE {} < {} AND {} = 0", values, table,
                            version, run.version_base, clickhouse::QuoteIdentifier(meta.is_deleted))
              : fmt::format(
                    "SELECT {} FROM {} GROUP BY {} HAVING max({}) < {} AND argMax({}, {}) "
                    "!= 'delete'",
                    values, table, group_by, version, run.version_base,
                    clickhouse::QuoteIdentifier(meta.event_type), version);
  uint64_t stale = 0;
  catalog->client().Select(fmt::format("SELECT toUInt64(count()) FROM ({})", select),
                           [&](clickhouse::Block& block) {
                             if (block.RowCount() > 0)
                               stale = clickhouse::As<clickhouse::ColumnUInt64>(block.At(0)).At(0);
                             return true;
                           });
  if (stale > 0) {
    clickhouse::QueryOptions qo;
    qo.query_id = fmt::format("{}delete-{}", insert_prefix, delete_version);
    catalog->client().Execute(fmt::format("INSERT INTO {} ({}) {}", table, columns, select), qo);
  }
  spdlog::info(
      "snapshot: {} held {} row(s) from before the copy that the source no longer has; {} (version "
      "{})",
      label, stale, stale > 0 ? "deleted them" : "nothing to delete", delete_version);
  return true;
}

void SnapshotRunner::Impl::RunReaders(const std::function<void(CopiedTable&, uint32_t)>& work) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> readers;
  const uint32_t reader_count = std::max<uint32_t>(
      1, std::min<uint32_t>(config.snapshot.readers, static_cast<uint32_t>(tables.size())));
  for (uint32_t r = 0; r < reader_count; ++r) {
    readers.emplace_back([&, r] {
      for (;;) {
        const size_t i = next++;
        if (i >= tables.size() || stopping()) return;
        try {
          work(*tables[i], r);
        } catch (...) {
          SetError(RacedBySchemaChange(
              *tables[i], CurrentExceptionAsError(
                              fmt::format("snapshot {} (reader thread {})", tables[i]->label, r))));
          return;
        }
      }
    });
  }
  for (auto& t : readers) t.join();
}

void SnapshotRunner::Impl::Complete(const BinlogPoint& end) {
  for (const std::string& target : run.targets_with_earlier_rows) {
    if (!DeleteEarlierRows(target)) run.unreconciled_targets.push_back(target);
  }
  std::sort(run.unreconciled_targets.begin(), run.unreconciled_targets.end());
  run.unreconciled_targets.erase(
      std::unique(run.unreconciled_targets.begin(), run.unreconciled_targets.end()),
      run.unreconciled_targets.end());
  run.end = end;
  run.done = true;
  store->SaveRun(run);
}

std::string SnapshotRunner::Impl::SchemaHistoryAt(const BinlogPoint& end) {
  std::unique_ptr<mysql::Connection> admin = mysql::Connection::Connect(SourceOptions());
  schema::CatalogOptions options;
  options.flavor = mariadb ? schema::ServerFlavor::kMariadb : schema::ServerFlavor::kMysql;
  const auto lower_case = admin->QueryValue("SELECT @@lower_case_table_names");
  options.lower_case_table_names = lower_case && *lower_case != "0";
  schema::SchemaHistory history(options);
  for (const auto& t : tables) {
    const tables::SourceTableSchema& known = *t->source->known;
    schema::TableSchema seed;
    seed.name = {known.name.database, known.name.table};
    seed.columns = known.columns;
    seed.primary_key = known.primary_key;
    seed.default_collation = tables::LoadTableCollation(*admin, known.name);
    history.Seed(seed, {end.file, end.position});
  }
  return history.ToJson();
}

SnapshotResult SnapshotRunner::Run() {
  Impl impl(*this);
  impl.Prepare();
  SnapshotResult result;
  result.tables = impl.tables.size();
  for (const auto& t : impl.tables) result.copied_tables.push_back(t->label);
  std::sort(result.copied_tables.begin(), result.copied_tables.end());
  result.created_targets = impl.run.created_targets;
  result.next_version = impl.run.version_base + kVersionBand;
  // Alongside the stream, a copy that is done but whose tables were not taken over (a crash in
  // between) is offered again: its tables are caught up from their E on, below.
  const bool offer_again = impl.run.done && options_.alongside;
  if (impl.run.done && !offer_again) {
    result.already_done = true;
    result.end = impl.run.end;
    result.unreconciled_targets = impl.run.unreconciled_targets;
    result.schema_history = impl.SchemaHistoryAt(impl.run.end);
    spdlog::info("snapshot: already done (at {}); nothing to copy", impl.run.end.ToString());
    return result;
  }
  if (!options_.alongside) status_.SetState(server::PipelineState::kSnapshot, "initial copy");
  impl.progress.Start(options_.progress_bar, options_.progress_interval);

  std::vector<std::thread> writers;
  // Whatever happens on this thread, the writers are told to finish and joined.
  struct JoinWriters {
    Impl& impl;
    std::vector<std::thread>& writers;
    ~JoinWriters() {
      {
        std::lock_guard lock(impl.queue_mutex);
        impl.queue_closed = true;
      }
      impl.queue_cv.notify_all();
      for (auto& w : writers)
        if (w.joinable()) w.join();
      impl.progress.Stop();
    }
  } join_writers{impl, writers};
  const uint32_t writer_count = std::max<uint32_t>(1, config_.snapshot.writers);
  for (uint32_t i = 0; i < writer_count; ++i) writers.emplace_back([&impl, i] { impl.Writer(i); });

  impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.Copy(t, r); });
  bool copied = !impl.stopping();
  BinlogPoint end;
  if (copied) {
    if (options_.before_final_position) options_.before_final_position();
    auto admin = mysql::Connection::Connect(impl.SourceOptions());
    end = PointOf(mysql::CurrentBinlogPosition(*admin));
    for (auto& t : impl.tables) {
      std::lock_guard lock(t->mutex);
      if (end < t->progress.high) end = t->progress.high;
    }
    impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.CatchUp(t, end, r); });
    if (options_.hand_over) copied = HandOver(impl, end);
  }
  {
    std::lock_guard lock(impl.queue_mutex);
    impl.queue_closed = true;
  }
  impl.queue_cv.notify_all();
  for (auto& w : writers) w.join();
  impl.progress.Stop();
  if (impl.error) {
    if (!options_.alongside) status_.SetState(server::PipelineState::kFailed, impl.error->what());
    throw *impl.error;
  }
  result.rows = impl.rows_this_run;
  if (impl.stopping() || !copied) {
    spdlog::info("snapshot: stopped after {} rows; run again to resume", result.rows);
    return result;
  }
  if (!offer_again) impl.Complete(end);
  result.unreconciled_targets = impl.run.unreconciled_targets;
  result.end = end;
  result.schema_history = impl.SchemaHistoryAt(end);
  LogFields fields;
  fields.Position(end.file, end.position);
  spdlog::info("snapshot: done, {} rows in {} tables; the stream continues at {} with version {}",
               result.rows, result.tables, end.ToString(), result.next_version);
  return result;
}

bool SnapshotRunner::HandOver(Impl& impl, BinlogPoint& end) {
  for (uint32_t offer = 1; !impl.stopping() && !impl.error; ++offer) {
    if (options_.hand_over(end)) return true;
    if (impl.stopping() || impl.error) break;
    // The stream read past E (or could not answer): bring every table to where the source is now,
    // a few transactions on at most when the stream keeps up, and offer again.
    auto admin = mysql::Connection::Connect(impl.SourceOptions());
    const BinlogPoint later = PointOf(mysql::CurrentBinlogPosition(*admin));
    if (end < later) end = later;
    spdlog::info(
        "snapshot: offer {} of the copied tables to the stream declined; catching up to {}", offer,
        end.ToString());
    impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.CatchUp(t, end, r); });
  }
  return false;
}

std::optional<state::Checkpoint> CopyBeforeStream(const config::Config& config,
                                                  server::MetricsRegistry& metrics,
                                                  server::StatusBoard& status,
                                                  const std::atomic<bool>* stop) {
  SnapshotOptions options;
  options.external_stop = stop;
  options.progress_interval = std::chrono::seconds(10);
  SnapshotRunner runner(config, options, metrics, status);
  const SnapshotResult result = runner.Run();
  if (result.end.empty()) return std::nullopt;
  state::Checkpoint checkpoint;
  checkpoint.file = result.end.file;
  checkpoint.position = result.end.position;
  checkpoint.next_version = result.next_version;
  checkpoint.replicated_tables = result.copied_tables;
  checkpoint.created_targets = result.created_targets;
  checkpoint.schema_history = result.schema_history;
  return checkpoint;
}

}  // namespace rowbridge::snapshot
