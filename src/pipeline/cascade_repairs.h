// CascadeRepairs: the stream's part in foreign-key cascades the source does not log
// (tables/foreign_keys.h; docs/running.md, "Foreign-key cascades"). One per session.
//
// The reader asks, once per table (and again after DDL), whether a replicated table is a parent
// whose children an unlogged action changes (PlanFor: nullptr for nearly every table, and a rows
// event of such a table costs nothing more). For a parent it collects the referenced key values
// of each deleted row and of each update that changes them (old and new), per relation, and at
// the transaction's boundary hands them to its worker thread as one job, whose rows take the
// version of the transaction's last row change (check/cascade_repair.h says why that is exact).
//
// Exact through kill -9, by holding the checkpoint: before the boundary joins the checkpoint
// tracker, the tracker is told not to save a checkpoint past the transaction
// (CheckpointTracker::AddHold) until its repair is done. A crash in between replays the
// transaction, which collects the same keys and repairs again (a repair compares before it
// writes, and writes with the same version, so running it twice is running it once). Holding the
// checkpoint rather than recording the repair in it keeps the repair out of the checkpoint's
// format and needs no save on the hot path; the cost is a replay from before the transaction
// after a crash while a repair runs. A job runs once the stream has written every row up to its
// transaction, so the repair compares the source with a target that holds the parent's change.
//
// Where the keys are unknown (a MINIMAL before image without the referenced columns), or the
// columns are of a type the repair cannot address, the replicated tables the relation reaches
// STOP (TableRouter::Stop) with the reason and the fix.
//
// Thread use: PlanFor, Collect, StopChildren, SchemaChanged on the reader thread; AtBoundary on the
// reader thread with the buffer lock held; Finish and Stop on the session's thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "binlog/cell.h"
#include "binlog/rows_event.h"
#include "check/cascade_repair.h"
#include "common/error.h"
#include "config/config.h"
#include "mysql/connection.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/table_router.h"
#include "server/metrics.h"
#include "tables/foreign_keys.h"

namespace rowbridge::pipeline {

// A parent table's relations whose actions the source does not log.
struct CascadeParent {
  struct Relation {
    const tables::ForeignKey* key = nullptr;
    std::vector<uint32_t> columns;  // the parent's column index of each referenced column
    bool on_delete = false;         // deletes change children
    bool on_update = false;         // key updates change children
    // Why the repair cannot be exact for this relation whatever the row (a column type); empty
    // when it can.
    std::string unsupported;
    bool children_stopped = false;
  };
  std::shared_ptr<const tables::ForeignKeyGraph> graph;  // keeps `key` alive
  std::vector<Relation> relations;
};

struct CascadeContext {
  const config::Config* config = nullptr;
  TableRouter* router = nullptr;
  std::mutex* buffers_mutex = nullptr;
  CheckpointTracker* tracker = nullptr;  // under *buffers_mutex
  // Buffer lock held: every row change with a lower version is in ClickHouse.
  std::function<uint64_t()> written_below;
  // A repair failed for good: ends the session with `error`.
  std::function<void(const Error& error)> on_failure;
  server::Counter* repairs = nullptr;  // rowbridge_cascade_repairs_total
  std::function<std::unique_ptr<mysql::Connection>()> connect_source;
  const std::atomic<bool>* stop = nullptr;
};

// The context of a session's CascadeRepairs: `written_below` as CascadeContext says, the
// counter registered in `registry`, failures aborting `buffers`.
CascadeContext SessionCascadeContext(const config::Config& config, TableRouter& router,
                                     BatchBuffers& buffers, CheckpointTracker& tracker,
                                     server::MetricsRegistry& registry,
                                     const std::atomic<bool>* stop,
                                     std::function<uint64_t()> written_below);

class CascadeRepairs {
 public:
  // Reads the source's foreign keys and whether it logs their actions.
  explicit CascadeRepairs(CascadeContext context);
  ~CascadeRepairs();
  CascadeRepairs(const CascadeRepairs&) = delete;
  CascadeRepairs& operator=(const CascadeRepairs&) = delete;

  // The table's cascading relations, or nullptr (decided once per table and schema epoch).
  const CascadeParent* PlanFor(StreamedTable& table);
  // A row change of `parent` with `version`: its key values join the transaction's job. Returns
  // the relation whose values the images lack (StopChildren it, lock released), else nullptr.
  CascadeParent::Relation* Collect(const CascadeParent& parent, binlog::RowsKind kind,
                                   std::span<const binlog::Cell> before,
                                   std::span<const binlog::Cell> after, uint64_t version);
  // Stops the replicated tables `relation` reaches (buffer lock NOT held), at `position`.
  void StopChildren(CascadeParent::Relation& relation, const std::string& position,
                    const std::string& why);
  // Buffer lock held, at a transaction boundary before the tracker hears of it: `next_version`
  // is the version the next transaction's first change gets.
  void AtBoundary(uint64_t next_version);
  // A DDL statement was read: relations are read again before the next use.
  void SchemaChanged() { stale_ = true; }
  // A clean stop, every row written: runs the jobs still queued. Throws a repair's error.
  void Finish();
  void Stop();

 private:
  struct Job {
    std::shared_ptr<const tables::ForeignKeyGraph> graph;
    uint64_t hold = 0;         // the checkpoint waits below this version
    uint64_t version = 0;      // the rows' version
    uint64_t end_version = 0;  // written up to here first
    std::vector<std::pair<const tables::ForeignKey*, check::KeyTuples>> work;
    std::set<std::string> skipped;  // stopped tables
  };
  void ReadGraph();
  void Work();
  void RunJob(const Job& job);
  // The replicated tables below `key` (down the chain through tables no rule replicates).
  std::vector<StreamedTable*> Reached(const tables::ForeignKey& key);

  CascadeContext ctx_;
  bool logged_ = false;
  std::string how_;
  std::shared_ptr<const tables::ForeignKeyGraph> graph_;
  uint64_t epoch_ = 1;
  bool stale_ = false;
  std::vector<std::unique_ptr<CascadeParent>> parents_;  // of this epoch and the ones before

  // The transaction being read (reader thread).
  std::vector<std::pair<const tables::ForeignKey*, check::KeyTuples>> pending_;
  uint64_t pending_hold_ = 0;
  std::string text_;  // scratch for a cell's text

  std::mutex mutex_;  // guards what follows
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  bool running_ = false;  // a job is being run
  bool stopping_ = false;
  std::optional<Error> failure_;
  std::thread thread_;
  std::unique_ptr<check::CascadeRepairer> repairer_;  // worker thread only
  const tables::ForeignKeyGraph* repairer_graph_ = nullptr;
};

}  // namespace rowbridge::pipeline
