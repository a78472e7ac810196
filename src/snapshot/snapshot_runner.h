// SnapshotRunner: the initial copy of every table the configuration's rules match
// (docs/snapshot.md). `rowbridge snapshot` runs it alone; `rowbridge run` runs it before the stream
// on a first start, and hands over at the position it returns, and on a later start for the tables
// matched since the last checkpoint only (newly_matched.h: SnapshotOptions::only_tables).
//
//   1. resolve the tables like the pipeline does (tables::TableResolver: schema, target table
//      created if allowed, conversion plans), and the key each table is chunked by: the primary
//      key, else a unique key over NOT NULL columns, else the table is refused (or, with
//      keyless_single_chunk, copied as one chunk: see the caveat in docs/snapshot.md);
//   2. load the progress (snapshot_state.h), or start a new copy: the version band begins above
//      every version the targets hold; settle units a crash left in flight;
//   3. `readers` threads copy tables, one table per thread at a time, chunk after chunk: each chunk
//      is SELECTed (binary protocol, keyset pagination, sized to snapshot.memory_limit in bytes:
//      read_budget.h) at a known binlog position, reconciled with the table's binlog window
//      (reconcile.h) and handed to the table's ClickHouse writer as the next block of the unit's
//      INSERT (all or nothing; a unit is snapshot.chunk_rows rows); the next chunk is read while
//      the previous one is sent. With fewer tables than readers, a table's next chunks are also
//      read ahead on readers/tables connections (chunk ends found by a key-index scan);
//   4. when every table is copied, each one is brought to one common position E by applying its
//      window up to E: the copy then equals the source as of E, and the stream continues at E with
//      versions from version_base + 2^48.
//
// Progress is logged (bar or lines) and exported as metrics; per-table row counts also appear in
// /status (server::StatusBoard tables).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/target_template.h"
#include "mysql/connection.h"
#include "server/metrics.h"
#include "server/status.h"
#include "snapshot/snapshot_state.h"
#include "state/checkpoint.h"
#include "tables/source_schema.h"

namespace rowbridge::snapshot {

struct SnapshotOptions {
  bool keyless_single_chunk = false;
  bool progress_bar = false;  // live bar (a terminal) instead of log lines
  std::chrono::milliseconds progress_interval{1000};
  // Another stop flag to honour (the pipeline's, when `run` copies before streaming).
  const std::atomic<bool>* external_stop = nullptr;
  // Copy only these source tables ("db.table"); empty: every matched table.
  std::vector<std::string> only_tables;
  // The first version of a new copy's band; 0: 1 + the largest version in the targets.
  uint64_t version_base = 0;
  // The job the copy's progress is kept under; empty: the pipeline's job name (state::JobName).
  std::string state_job;
  // Tables the stream already replicates ("db.table", sorted) and the checkpoint that says so:
  // their targets must exist (tables::ResolverOptions::replicated_tables).
  std::vector<std::string> replicated_tables;
  std::string checkpoint;
  // The targets ("db.table") that checkpoint says rowbridge created (state::Checkpoint::
  // created_targets): a copy alongside whose targets are all among them, but lag the source's
  // columns (made by the stream at an earlier position), asks to be begun again into fresh tables.
  std::vector<std::string> rowbridge_targets;
  // The copy of tables matched later runs alongside the stream (snapshot/newly_matched.h): the
  // board's pipeline state is the stream's, not the copy's, and the copy ends with `hand_over`.
  bool alongside = false;
  // Alongside: called once every table is complete up to E, a transaction boundary. True: the
  // stream took the tables over at E (pipeline/hand_over_desk.h). False: it has read past E, or
  // was not there to answer; the tables are caught up to a later E and offered again, until a
  // stop request.
  std::function<bool(const BinlogPoint& end)> hand_over;
  // Tables ("db.table") that are not copied, only brought up from a position on (a resume: their
  // target holds their rows up to there): their window is applied from it.
  std::map<std::string, BinlogPoint> window_only_from;
  // Targets other than the rules' ("db.table" -> target), for a resnapshot's fresh tables.
  std::map<std::string, config::QualifiedName> target_overrides;
  // Tests: called once every table is copied, before the final position E is read.
  std::function<void()> before_final_position;
  // Tests: called before a copied table's changes up to the final position E are applied (once
  // per table and attempt).
  std::function<void(const std::string& table)> before_catch_up;
  // Tests: called after each unit's in-flight record is saved, before its INSERT is ended (its
  // blocks are sent; none is written before the end).
  std::function<void(const std::string& table, uint64_t chunk)> before_insert;
};

struct SnapshotResult {
  BinlogPoint end;            // where the stream continues
  uint64_t next_version = 0;  // the first version the stream hands out
  uint64_t rows = 0;          // rows copied in this run
  uint64_t tables = 0;
  bool already_done = false;  // an earlier run had finished
  // Targets that held rows before the copy and also receive tables this copy did not copy: rows of
  // the copied tables that the source no longer has could not be told apart there and may remain
  // ("db.table", sorted). Every other target equals its source tables as of `end`.
  std::vector<std::string> unreconciled_targets;
  std::vector<std::string> copied_tables;  // "db.table", sorted
  // Targets the copy created ("db.table", sorted); they become rowbridge's own in the checkpoint.
  std::vector<std::string> created_targets;
  // The copied tables' columns as the copy read them, valid at `end` (schema::SchemaHistory JSON):
  // the stream decodes their rows from `end` on by them. Empty if the copy did not finish.
  std::string schema_history;
};

class SnapshotRunner {
 public:
  SnapshotRunner(config::Config config, SnapshotOptions options, server::MetricsRegistry& metrics,
                 server::StatusBoard& status);
  ~SnapshotRunner();

  // Runs (or resumes) the copy to its end. Throws the first error any thread met.
  SnapshotResult Run();
  // Thread-safe: stops after the units in flight are written (a later Run resumes).
  void RequestStop() { stop_ = true; }

 private:
  struct Impl;
  // Offers the tables complete up to `end` (options_.hand_over) until taken, catching them up to
  // a later `end` after each refusal. False when stopped first.
  bool HandOver(Impl& impl, BinlogPoint& end);
  // Copies every table, then brings them to one position `end` and hands them over (alongside).
  // False when stopped first.
  bool CopyAndCatchUp(Impl& impl, BinlogPoint& end);

  config::Config config_;
  SnapshotOptions options_;
  server::MetricsRegistry& metrics_;
  server::StatusBoard& status_;
  std::atomic<bool> stop_{false};
};

// Whether the copy can chunk `schema` by a key (a primary key, or a unique key over NOT NULL
// columns): a table without one is refused unless copied as one chunk (keyless_single_chunk).
bool HasChunkKey(mysql::Connection& source, const tables::SourceTableSchema& schema);
// The refusal of such a table, naming the options that allow it.
std::string KeylessTableProblem(const std::string& table);

// For `rowbridge run` on a first start (no checkpoint) with snapshot.enabled: copies every matched
// table (resuming an interrupted copy) and returns the checkpoint the stream starts from: position
// E, next_version = base + 2^48, no GTID (the reader starts by file:pos). nullopt when `stop` was
// set before the copy finished; the next start resumes the copy.
std::optional<state::Checkpoint> CopyBeforeStream(const config::Config& config,
                                                  server::MetricsRegistry& metrics,
                                                  server::StatusBoard& status,
                                                  const std::atomic<bool>* stop);

}  // namespace rowbridge::snapshot
