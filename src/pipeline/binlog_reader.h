// BinlogReader: the source side of a pipeline session, run on its own thread.
//
// Connects to the source (mysql::Connection + BinlogStream) at the session's resume checkpoint
// (a GTID position/set when the checkpoint has one and the source speaks that flavor, else
// file:pos), decodes events (binlog::BinlogEventReader: framing, checksums, TABLE_MAPs,
// TRANSACTION_PAYLOADs), routes rows events through the TableRouter and appends their row changes
// to the target batches, one version per row change in binlog order:
//   replica    INSERT -> the row (_is_deleted = 0); UPDATE -> the new image, preceded by a
//              tombstone of the old image when the key changed; DELETE -> a tombstone of the old
//              image (_is_deleted = 1). Both rows of a key change carry the change's version.
//   changelog  one row per change, event type insert/update/delete (UPDATE: the new image),
//              except a key change: the old image as a delete, then the new image as an insert.
// The key is the rule's `key`, else the source's primary key (every column of a composite one
// is compared); tables with neither never move.
// A change whose rows the target already holds (a replay after a restart) is skipped.
//
// QUERY events (DDL, statement-based DML, EXECUTE_LOAD_QUERY) go to
// SchemaChangeExecutor::OnStatement with the transaction's GTID.
//
// At every transaction boundary (XID, COMMIT, a statement outside BEGIN...COMMIT such as DDL, XA
// PREPARE/COMMIT) it reports (position after the event, next version, GTID) to the checkpoint
// tracker.
//
// Run() returns after Interrupt() (or when the buffers are aborted) and throws on any failure.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "binlog/binlog_event_reader.h"
#include "binlog/row_cursor.h"
#include "common/error.h"
#include "config/config.h"
#include "mysql/binlog_stream.h"
#include "mysql/connection.h"
#include "pipeline/batch_buffers.h"
#include "pipeline/cascade_repairs.h"
#include "pipeline/checkpoint_tracker.h"
#include "pipeline/hand_over_desk.h"
#include "pipeline/schema_change_executor.h"
#include "pipeline/table_router.h"
#include "server/pipeline_metrics.h"
#include "server/status.h"
#include "state/checkpoint.h"

namespace rowbridge::pipeline {

struct ReaderContext {
  const config::Config* config = nullptr;
  state::Checkpoint start;
  TableRouter* router = nullptr;
  SchemaChangeExecutor* schema_changes = nullptr;  // the statements' route
  BatchBuffers* buffers = nullptr;
  CheckpointTracker* tracker = nullptr;  // used under the buffers' lock
  server::StatusBoard* status = nullptr;
  server::PipelineMetrics* metrics = nullptr;
  // Offers of a copy running alongside, served between transactions (nullptr: none). `take_over`
  // makes the offered tables streamed; the reader is at `at`.
  HandOverDesk* desk = nullptr;
  std::function<void(const HandOverDesk::Offer&, const schema::BinlogPosition& at)> take_over;
  // Set when operator commands wait for the reader (a pause): `do_work` runs them between
  // transactions, at `at`.
  const std::atomic<bool>* work_pending = nullptr;
  // Set when the source no longer has the binlog the checkpoint resumes from (IsStartGone): the
  // reader then fails with Error(kConfig), and the pipeline may recopy (on_purged_position).
  std::atomic<bool>* start_gone = nullptr;
  std::function<void(const schema::BinlogPosition& at)> do_work;
  // Foreign-key cascades the source does not log (nullptr: none to follow).
  CascadeRepairs* cascades = nullptr;
};

class BinlogReader {
 public:
  explicit BinlogReader(ReaderContext context);

  void Run();
  // Thread-safe: makes Run() return soon (shuts the stream's socket down).
  void Interrupt();
  // Thread-safe: makes Run() return at the next transaction boundary (for a clean stop, so that
  // nothing after the final checkpoint is written). Run() still blocks while the source is idle:
  // Interrupt() it once in_transaction() is false.
  void StopAtBoundary();
  bool in_transaction() const { return in_transaction_.load(); }

  // Buffer lock held: the version the next row change gets.
  uint64_t next_version() const { return next_version_; }
  // Buffer lock held: where the reader is (end of the last transaction it finished).
  const std::string& read_file() const { return read_file_; }
  uint64_t read_position() const { return read_position_; }
  // Buffer lock held: the source commit time of the last event (unix microseconds: see
  // CommitTimeUs), and whether the source said it had nothing more (a heartbeat) after it.
  uint64_t last_commit_us() const { return last_commit_us_; }
  SteadyTime last_event_received() const { return last_event_received_; }
  bool caught_up() const { return caught_up_; }
  bool connected() const { return connected_.load(); }

 private:
  void Handle(const binlog::Event& event, binlog::BinlogEventReader& events);
  void OnQuery(const binlog::Event& event, const binlog::FormatDescription& format);
  // A MySQL GTID event of any kind: the transaction's GTID (none when anonymous) and commit time.
  void OnMysqlGtid(const binlog::Event& event);
  void OnRows(const binlog::Event& event, binlog::BinlogEventReader& events);
  // Counts the event in the metrics (by type, and its bytes).
  void CountEvent(const binlog::Event& event);
  // The source's heartbeat: the reader is caught up; between transactions a copy's hand-over is
  // served.
  void OnHeartbeat();
  // The event's commit time, for the lag and /status.
  void RecordCommitTime(const binlog::Event& event);
  void AppendRows(StreamedTable& table, binlog::RowsKind kind, uint64_t commit_us,
                  const schema::BinlogPosition& at, const CascadeParent* cascades);
  // AppendRows' way for whole images that need no cells: each converted as it is decoded. False
  // when the pipeline is stopping.
  bool AppendImages(StreamedTable& table, binlog::RowsKind kind, uint64_t commit_us, SteadyTime now,
                    std::unique_lock<std::mutex>& lock);
  // One change of version `version` (`moved`: an UPDATE that changed the key), unless a replay
  // finds it in the target already. False when the pipeline is stopping.
  bool AppendChange(StreamedTable& table, binlog::RowsKind kind,
                    std::span<const binlog::Cell> after, uint64_t version, bool moved,
                    uint64_t commit_us, SteadyTime now, std::unique_lock<std::mutex>& lock);
  // The rows' changes take their versions, and nothing is written.
  void CountWithoutWriting(const binlog::RowsEvent& rows, uint64_t table_id,
                           binlog::BinlogEventReader& events);
  bool Append(StreamedTable& table, std::span<const binlog::Cell> cells, mapping::RowKind kind,
              uint64_t version, uint64_t commit_us, SteadyTime now,
              std::unique_lock<std::mutex>& lock);
  // Counts a row appended to `batch` (batch bounds, per-table shares). Buffer lock held.
  void Appended(StreamedTable& table, Batch& batch, mapping::RowKind kind, uint64_t version,
                uint64_t bytes, uint64_t commit_us, SteadyTime now);
  // Whether the current UPDATE row changes the table's key. A key column a partial after image
  // (binlog_row_image=MINIMAL) leaves out did not change.
  bool KeyChanged(const StreamedTable& table, std::span<const binlog::Cell> after) const;
  // The current UPDATE row's after image with the key columns it leaves out (a MINIMAL image
  // logs changed columns only) taken from the before image: the row is still that key's.
  std::span<const binlog::Cell> AfterWithKey(const StreamedTable& table);
  void Boundary(const binlog::Event& event);
  // Whether `error` says the source no longer has where the stream starts (purged binlogs).
  static bool IsStartGone(const Error& error);
  // Between transactions: answers a copy's offer, if one waits.
  void ServeHandOver();
  std::string Position(const binlog::Event& event) const;
  schema::BinlogPosition SchemaPosition(const binlog::Event& event) const;

  ReaderContext ctx_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  std::mutex interrupt_mutex_;
  TcpConnection* socket_ = nullptr;  // the stream's, while it runs

  binlog::RowCursor cursor_;
  std::vector<binlog::Cell> keyed_after_;  // AfterWithKey's image
  std::string rows_scratch_;
  std::string query_scratch_;
  std::array<server::Counter*, 256> event_counters_{};

  std::atomic<bool> in_transaction_{false};
  std::atomic<bool> stop_at_boundary_{false};
  TransactionGtid transaction_gtid_;
  uint64_t next_version_ = 1;
  std::string read_file_;
  uint64_t read_position_ = 0;
  std::string tracked_file_;
  uint64_t last_commit_us_ = 0;
  // MySQL 8's immediate_commit_timestamp of the transaction being read (its GTID event), 0 when
  // the source gives none (MariaDB, MySQL 5.7).
  uint64_t transaction_commit_us_ = 0;
  // An event's source commit time in unix microseconds: its transaction's commit timestamp where
  // the source gives one, else the event header's time, whole seconds (so a lag from it reads up
  // to a second high).
  uint64_t CommitTimeUs(const binlog::Event& event) const {
    return transaction_commit_us_ != 0 ? transaction_commit_us_
                                       : uint64_t{event.header.timestamp} * 1'000'000;
  }
  SteadyTime last_event_received_{};
  bool caught_up_ = false;
};

}  // namespace rowbridge::pipeline
