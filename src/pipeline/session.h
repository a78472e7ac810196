// One session of the pipeline (pipeline.h): from the saved checkpoint to a clean stop or the first
// error. Pipeline::RunSession calls the steps in the order they are declared; each names one step
// of pipeline.h's list, and each leaves the session ready for the next. An error thrown by a step
// carries Pipeline::failure_side_ set to the server that raised it.
//
// Internal to the pipeline module. A Session lives for one RunSession call: its buffers, resolver,
// router and threads go with it, and the next session rebuilds them from the checkpoint.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mysql/connection.h"
#include "mysql/source_check.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/pipeline.h"
#include "pipeline/schema_change_executor.h"
#include "pipeline/table_router.h"
#include "schema/schema_history.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::pipeline {

class BinlogReader;
struct ReaderContext;
class CascadeRepairs;

class Pipeline::Session {
 public:
  explicit Session(Pipeline& pipeline);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The stored checkpoint, unless --start-at --move-checkpoint replaces it; none on a first start.
  void LoadCheckpoint();
  // Until no INSERT of an earlier session of this job still runs on ClickHouse: its rows would
  // land after this session read the versions the targets hold.
  void WaitForEarlierInserts();
  // The source is ready to replicate from (binary logging, privileges, server_id); what a replay
  // from the checkpoint can reach, or where a first start begins; its name case rules.
  void CheckSource();
  // The columns every table is read by: the checkpoint's schema history, or the source's
  // information_schema as it is now on a first start.
  void OpenSchemaHistory();
  // Every matched table resolved (columns, target, conversion plan); every problem of every
  // table is reported at once.
  void ResolveTables();
  // The checkpoint this session starts from, complete and saved before any row is read.
  void SaveStartingCheckpoint();
  // Drops the tables `checkpoint` names to drop (a failed copy's fresh tables a kill -9 kept from
  // being dropped), and leaves them out of it.
  void DropLeftOverTargets(state::Checkpoint& checkpoint);
  // The reader, the writers and, on this thread, the ticker, until a stop request (returns after
  // a clean stop with the final checkpoint saved) or an error (throws it).
  void Stream();

 private:
  class Threads;

  // Runs a step against the source: an error it throws is the source's.
  template <typename F>
  auto OnSource(F&& step) -> decltype(step());

  RouterContext MakeRouterContext();
  // What the stream's reader works with.
  ReaderContext MakeReaderContext();
  // After the ticker's loop: the error that ended the stream is thrown; a requested stop writes
  // everything read so far and saves the final checkpoint.
  // The cascade repairs of what was read are done before the final checkpoint passes it.
  void EndStream(Threads& threads, const BinlogReader& reader, CascadeRepairs& cascades);
  // The hooks through which the router's schema changes reach the checkpoint, the copies and
  // the status: tables joining, leaving, renamed, needing a copy, stops ending.
  void AddTableHooks(RouterContext& rc);
  // The target renames and aliases in flight, and the hooks that record new ones.
  void AddTargetRouteHooks(RouterContext& rc);
  // How the session's resolver finds targets: what the checkpoint says rowbridge created, which
  // tables are held back for a copy, which it covers.
  tables::ResolverOptions MakeResolverOptions();
  // Of `listed`, the matched tables the checkpoint does not cover, or whose columns the schema
  // history does not know at the checkpoint, that the binlog after it creates
  // (RouterContext::created_in_replay).
  std::set<tables::SourceTableName> CreatedInReplay(
      const std::vector<tables::SourceTableName>& listed);
  state::Checkpoint FirstCheckpoint();
  // The ticker's wake-up: refreshes the lag and the buffered bytes (buffers' mutex held).
  void RefreshLag(const BinlogReader& reader, SteadyTime now);
  // Saves `checkpoint` unless it is the one saved last. Called with save_mutex_ held.
  void SaveIfChanged(const state::Checkpoint& checkpoint);
  // The ticker's save: the newest safe checkpoint, if it moved.
  void SaveNewest(const BinlogReader& reader);
  // The reader's thread, at `at` between transactions: the copy running alongside hands its tables
  // over (pipeline/hand_over_desk.h).
  void TakeOver(const HandOverDesk::Offer& offer, const schema::BinlogPosition& at);
  // The same for a resnapshot: each table's fresh target takes its target's place.
  void ReplaceTargets(const HandOverDesk::Offer& offer,
                      const std::vector<std::string>& fresh_targets,
                      const schema::BinlogPosition& at);
  // The same for a resume: each stopped table streams again.
  void ResumeTables(const HandOverDesk::Offer& offer, const schema::BinlogPosition& at);
  // The reader's thread, at `at` between transactions: the pauses asked for, a copy given up.
  void DoReaderWork(const schema::BinlogPosition& at);
  // Once the stream runs: the commands recorded while no `run` ran go to the pipeline; the
  // refused ones leave the checkpoint (saved at once).
  void SubmitPendingCommands(const std::vector<state::PendingCommand>& pending);
  // A copy alongside failed for good: it leaves the checkpoint (saved at once), its tables
  // matched later stay held back and show stopped; the stream goes on. A failed resnapshot is
  // asked for again (three times at most per table and process).
  void Abandon(const Pipeline::AbandonedCopy& abandoned);
  // `label` needs copying again (why: for the log): recorded in the checkpoint as a pending
  // resnapshot at once (kill -9 does not lose it) and handed to the pipeline, where it waits for
  // a copy that runs already. Only with snapshot.enabled unless `asked` (an operator's resnapshot
  // begun again).
  void CopyAgain(const std::string& label, const std::string& why, bool asked);
  // Lock held: why an abandoned copy is begun again (its resnapshot failed, its table changed
  // meanwhile), or "" when it is not (not a one-table resnapshot, refused, renamed meanwhile, or
  // tried often enough).
  std::string CopyAgainReason(const Pipeline::AbandonedCopy& abandoned);
  // Lock held. The stream met `label`'s RENAME or DROP: a resnapshot recorded for it leaves the
  // checkpoint, one running is not begun again when it fails (gone_while_copied_). Returns
  // "running", "pending", or nullptr when it had none.
  const char* WithdrawResnapshot(const std::string& label);
  static state::PendingCommand ResnapshotCommand(const std::string& label);
  // After the command was recorded and saved: logs why and submits it.
  void StartCopyAgain(const state::PendingCommand& command, const std::string& why);
  // Saves what the tracker holds now (the reader's, before a step a replay must know of).
  void SaveNow();

  Pipeline& p_;
  std::optional<state::Checkpoint> checkpoint_;
  // What the store holds, to tell whether the starting checkpoint must be saved.
  std::optional<state::Checkpoint> stored_;
  std::unique_ptr<tables::TargetCatalog> catalog_;
  std::string insert_prefix_;

  std::unique_ptr<mysql::Connection> admin_;
  bool mariadb_ = false;
  bool lower_case_table_names_ = false;
  // How many binlog bytes a replay from the checkpoint reads, to tell a target written from
  // another checkpoint; unknown if the source would not list its binlogs.
  std::optional<uint64_t> replay_bytes_;
  std::optional<mysql::BinlogPosition> first_position_;  // a first start's

  BatchBuffers buffers_;
  // The gauge shows this session's buffers, which end with it (an error, a reconnect): while the
  // next session waits to start nothing is buffered, whatever the last reading was.
  struct ZeroWhenBuffersGo {
    server::Gauge& gauge;
    ~ZeroWhenBuffersGo() { gauge.Set(0); }
  } zero_buffered_bytes_;
  // Built once the starting checkpoint is saved; the callbacks below feed it under buffers_'
  // mutex and skip it until then.
  std::optional<CheckpointTracker> tracker_;

  std::optional<schema::SchemaHistory> history_;
  std::optional<tables::TableResolver> resolver_;
  std::optional<TableRouter> router_;
  std::optional<SchemaChangeExecutor> schema_changes_;  // carries the router's DDL
  std::vector<std::string> replicated_tables_;          // sorted labels

  // Orders the saves of the ticker and the reader: a checkpoint taken from the tracker is saved
  // before any taken after it.
  std::mutex save_mutex_;
  state::Checkpoint saved_;  // the last one saved by Stream() or SaveNow()
  // The reader is at the source's end (RefreshLag): pending copies of tables not covered yet stop
  // waiting for a RENAME the replay has yet to read (Pipeline::SubmitPendingCommands).
  std::atomic<bool> stream_caught_up_{false};
  // Tables the stream renamed or dropped while their resnapshot ran: that copy fails and is not
  // begun again (a copy asked for under the new name replaces it; guarded by buffers_' mutex).
  std::set<std::string> gone_while_copied_;
};

}  // namespace rowbridge::pipeline
