// Pipeline: `rowbridge run`. Continuous binlog -> ClickHouse replication that loses nothing and
// duplicates nothing (docs/architecture.md, docs/running.md).
//
// One session at a time does the work:
//   1. load the checkpoint (state store); check the source (mysql::RequireSourceReady);
//   2. wait until no INSERT of an earlier session still runs on ClickHouse;
//   3. resolve every matched source table: its columns, its target table (created if missing and
//      allowed), a conversion plan; every problem of every table is reported at once;
//   4. on a first start (no checkpoint) begin at the source's current position, with versions
//      above any already in the targets, and save that checkpoint at once;
//   5. read the versions >= the checkpoint's next_version that the targets already hold (so a
//      replay skips exactly the changes ClickHouse has);
//   6. run the reader thread, target.writers writer threads and, on this thread, the ticker: it
//      seals batches older than batch.max_delay and saves the newest safe checkpoint every
//      second (CheckpointTracker).
//
// Faults: any transient failure (network, timeout, a server restarting or refusing for now, the
// dump connection killed, a heartbeat timeout) ends the session: reading stops, in-flight writes
// finish or fail, unflushed batches are dropped, and a new session starts from the last saved
// checkpoint after an exponential backoff (source.reconnect.initial_backoff .. max_backoff).
// /status says what it waits for. Anything else (bad configuration, incompatible target column,
// a value the conversion policy refuses) makes Run() throw: the command exits non-zero.
//
// RequestStop() (SIGTERM/SIGINT): the reader stops, every buffered row is written, the final
// checkpoint is saved, and Run() returns.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "mysql/start_position.h"
#include "pipeline/hand_over_desk.h"
#include "server/metrics.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"
#include "server/table_commands.h"
#include "state/checkpoint.h"
#include "state/state_store.h"

namespace rowbridge::mysql {
class Connection;
}

namespace rowbridge::pipeline {

struct RunMetrics;
class CopyAlongside;
class RepairAlongside;

struct PipelineOptions {
  // How long a new session waits for INSERTs of a broken earlier connection before killing them.
  std::chrono::milliseconds insert_patience{10000};
  // Where a first start begins (run --start-at); nullopt: the source's current position.
  std::optional<mysql::StartAt> start_at;
  // With start_at and a saved checkpoint: replace the checkpoint as a first start would (versions
  // continue above what the targets hold) instead of refusing.
  bool move_checkpoint = false;
};

class Pipeline {
 public:
  Pipeline(config::Config config, server::MetricsRegistry& registry, server::StatusBoard& status,
           PipelineOptions options = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  void Run();
  // Thread-safe; may be called from a signal-handling thread.
  void RequestStop();

  // Thread-safe, quick: the admin server's table commands (server/table_commands.h).
  //   resnapshot  copies the table again, alongside the stream, into a fresh target that takes
  //               its place once complete (a stopped table streams again then): the session
  //               restarts cleanly, the copy is recorded in the checkpoint
  //               (snapshot::BeginResnapshot), and the next session runs it.
  //   pause       the reader, between two transactions, writes the table's buffered rows and
  //               stops it there, recorded in the checkpoint at once (paused).
  //   resume      a stopped or paused table: its changes from where it stopped are applied to its
  //               target alongside the stream (snapshot::BeginResume, restarting the session like
  //               resnapshot), then the stream takes it over.
  //   repair      the key ranges where the table's target differs from the source are written
  //               again into the live target alongside the stream (check/table_repair.h): the
  //               session restarts cleanly to record it with its version band
  //               (snapshot::BeginRepairs), and RepairAlongside runs it.
  server::TableCommandResult OnTableCommand(const std::string& database, const std::string& table,
                                            server::TableAction action);

  // The last checkpoint saved (for tests and the final log line).
  std::optional<state::Checkpoint> last_checkpoint() const;

 private:
  class Session;  // pipeline/session.h
  enum class Side { kSource, kTarget };

  // Returns normally after a clean stop; throws the session's error otherwise, with
  // failure_side_ saying which server it came from (for the status line; whether it is retried is
  // the error's own IsTransient()).
  void RunSession();
  // The copies and the repairs that run alongside the stream, across its sessions.
  void StartAlongside();
  // After a session's transient error: waits with the stream's backoff (reset after a healthy
  // session), or until a stop request, showing what it waits for.
  void WaitBeforeRetry(const Error& e, Backoff& backoff, const RetryPolicy& policy);
  std::string WaitingFor(const Error& error, Side side) const;
  void SetLastCheckpoint(const state::Checkpoint& checkpoint);
  // Between sessions: records the copy asked for (resnapshot, resume), if any, in the stored
  // checkpoint.
  void BeginRequestedCopy();
  // Between sessions: records the repairs asked for, if any, in the stored checkpoint.
  void BeginRequestedRepairs();
  // Between sessions: the copy of tables matched later that a schema change raced
  // (matched_later_again_), begun again into fresh tables, if it is still the stored one.
  void BeginMatchedLaterAgain();
  // Whether the failed `copy` is of tables matched later that a schema change raced (`code`
  // kSourceChanged) and can be begun again into fresh tables (snapshot::FreshCopyRefusal): then
  // its tables stay held back by the copy instead of being given up.
  bool CopiedAgainFresh(const state::TableCopy& copy, ErrorCode code) const;
  server::TableCommandResult RequestRepair(const std::string& label,
                                           const state::Checkpoint& checkpoint);
  // The repair's wait before it writes a range: until the stream's checkpoint has reached the
  // source's binlog end as `source` reads it now (a difference that was the stream's lag is
  // then gone), at most a few seconds: the repair is exact without it, only noisier.
  void WaitForStream(mysql::Connection& source);
  // Repairs RepairAlongside finished (or gave up); the session drops them from the checkpoint.
  std::vector<std::string> TakeRepairsDone();
  // on_purged_position: recopy, after the reader found the checkpoint's binlog purged: moves the
  // checkpoint to the source's end and records the copy of every table (snapshot::BeginRecopy).
  void RecopyAfterPurge();
  server::TableCommandResult RequestCopy(server::TableAction action, const std::string& label,
                                         const state::Checkpoint& checkpoint);
  server::TableCommandResult RequestPause(const std::string& label,
                                          const state::Checkpoint& checkpoint);
  // Once the stream runs: hands the commands recorded while no `run` ran to OnTableCommand, as if
  // they came over HTTP. Returns the tables whose command was refused (it is logged); they leave
  // the checkpoint. An accepted one leaves it when it is carried out (the pause in the
  // checkpoint, the copy recorded by BeginRequestedCopy).
  // A copy (resnapshot, resume) asked for while another copy runs or is being begun is not
  // refused: it stays in the checkpoint and waits, and TakeWaitingCopiesReady says when to hand it
  // over again. So does a resnapshot of a table the stream does not cover yet while the stream
  // has not caught up with the source (`stream_caught_up`): the stream, replaying from an older
  // checkpoint, has yet to read the RENAME that gives the table its name; once caught up, a table
  // still not covered is refused.
  std::vector<std::string> SubmitPendingCommands(const std::vector<state::PendingCommand>& commands,
                                                 bool stream_caught_up);
  // Whether a copy runs alongside, is being begun, or is still in the last checkpoint.
  bool CopyBusy();
  // True once (then false until the next wait) when a pending copy waited and no copy is busy now.
  bool TakeWaitingCopiesReady();
  // `table`'s pending command may be handed over again (a new one was recorded for it).
  void ForgetSubmitted(const std::string& table);
  // A copy alongside that failed for good: its tables are given up for this process.
  struct AbandonedCopy {
    state::TableCopy copy;
    std::string reason;
    ErrorCode code = ErrorCode::kInternal;  // kSourceChanged: a schema change raced it
  };
  // What waits for the reader between transactions: pauses, an abandoned copy (emptied).
  struct ReaderWork {
    std::vector<std::string> pauses;
    std::optional<AbandonedCopy> abandoned;
  };
  ReaderWork TakeReaderWork();
  // The copy's thread: `copy` failed for good; the stream goes on without it (see session.h).
  void AbandonCopy(const state::TableCopy& copy, const Error& error);
  std::vector<std::string> AbandonedTables();
  // A stopped table on /status, /healthz, the page and rowbridge_table_stopped.
  void ShowStopped(const state::StoppedTable& stopped);

  config::Config config_;
  server::MetricsRegistry& registry_;
  server::StatusBoard& status_;
  PipelineOptions options_;
  server::PipelineMetrics metrics_;
  std::unique_ptr<RunMetrics> run_metrics_;
  std::unique_ptr<state::StateStore> store_;
  std::string job_;

  std::atomic<bool> stop_requested_{false};
  // A clean restart of the session, to begin the copy of copy_request_ between sessions.
  std::atomic<bool> restart_requested_{false};
  // Operator commands, and what they wait for: a copy to record between sessions (resnapshot,
  // resume), pauses for the reader.
  struct CopyRequest {
    server::TableAction action;
    std::string table;  // "db.table"
  };
  std::mutex requests_mutex_;
  std::optional<CopyRequest> copy_request_;
  std::optional<state::TableCopy> matched_later_again_;
  struct RepairRequest {
    std::string table;  // "db.table"
    std::string requested_at;
  };
  std::vector<RepairRequest> repair_requests_;
  std::vector<std::string> repairs_done_;
  std::atomic<bool> repairs_done_pending_{false};
  std::vector<std::string> pauses_;
  // Tables whose command recorded while no `run` ran (state::PendingCommand) this process has
  // handed to OnTableCommand: once per process, though it stays in the checkpoint until done.
  std::vector<std::string> submitted_pending_;
  std::atomic<bool> copies_waiting_{false};  // a pending copy waits for a busy one
  std::optional<AbandonedCopy> abandoned_;
  std::vector<std::string> abandoned_tables_;  // tables matched later, held back until exit
  // Per table: failed resnapshots begun again, races with schema changes not counted (the
  // reader's; see Session::Abandon).
  std::map<std::string, int> resnapshots_again_;
  // Per table: resnapshots raced by a schema change in a row, since its last hand-over.
  std::map<std::string, int> raced_copies_in_a_row_;
  std::atomic<bool> reader_work_pending_{false};
  // The reader found the checkpoint's binlog purged (ReaderContext::start_gone).
  std::atomic<bool> start_gone_{false};
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  uint64_t session_ = 0;
  bool session_was_healthy_ = false;
  Side failure_side_ = Side::kSource;

  // The copy a checkpoint records (table_copy) runs alongside the sessions and hands its tables
  // over to the one streaming at its end.
  HandOverDesk desk_;
  std::unique_ptr<CopyAlongside> copier_;
  std::unique_ptr<RepairAlongside> repairer_;

  mutable std::mutex checkpoint_mutex_;
  std::optional<state::Checkpoint> last_checkpoint_;
};

}  // namespace rowbridge::pipeline
