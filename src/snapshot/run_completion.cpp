// The run's completion (runner_impl.h): once every table is at the final position E, the rows
// that targets held before the copy and the source no longer has are deleted (a delete row above
// them, in the band's last version; targets where they cannot be told apart are reported
// unreconciled) and the run is recorded done at E (Complete). SchemaHistoryAt gives the stream the
// copied tables' columns as the copy read them, valid at E. snapshot_runner.cpp calls them last.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "clickhouse/client.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/sql_quote.h"
#include "schema/schema_history.h"
#include "snapshot/runner_impl.h"
#include "tables/source_schema.h"

namespace rowbridge::snapshot {

namespace {

// Column names match like the conversion plan matches them: case ignored.
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

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

}  // namespace rowbridge::snapshot
