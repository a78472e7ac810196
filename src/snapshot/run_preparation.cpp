// The run's preparation (SnapshotRunner::Impl::Prepare, runner_impl.h): everything the copy needs
// before its first chunk. Opens the progress store and the target catalog (waiting for INSERTs an
// earlier run left running), checks the source (ready for replication, binlog_row_image=FULL),
// resolves the tables as the pipeline does (targets created and recorded in the run record at
// once), starts a new run (its version band above the targets' versions, the targets already
// holding rows) or resumes the recorded one, and plans each copied table: its chunk key, queries,
// conversion, writer and progress. Throws, naming the tables, when a table cannot be copied
// (no chunk key, a target that does not fit); snapshot_runner.cpp calls it first.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "mapping/binary_cell.h"
#include "mapping/text_cell.h"
#include "mysql/source_check.h"
#include "mysql/sql_quote.h"
#include "snapshot/newly_matched.h"
#include "snapshot/runner_impl.h"
#include "state/state_store.h"

namespace rowbridge::snapshot {

namespace {

using binlog::Cell;
using binlog::ColumnDef;

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

}  // namespace rowbridge::snapshot
