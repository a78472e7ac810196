#include "pipeline/session.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "common/log_fields.h"
#include "common/write_fence.h"
#include "config/table_matcher.h"
#include "endpoints/connection_options.h"
#include "pipeline/binlog_reader.h"
#include "pipeline/cascade_repairs.h"
#include "pipeline/copy_alongside.h"
#include "pipeline/repair_alongside.h"
#include "pipeline/run_metrics.h"
#include "pipeline/session_facts.h"
#include "pipeline/session_threads.h"
#include "pipeline/table_lifecycle.h"
#include "pipeline/writer_pool.h"
#include "server/status_time.h"
#include "server/table_commands.h"
#include "snapshot/newly_matched.h"
#include "tables/replay_window.h"
#include "tables/source_schema.h"

namespace rowbridge::pipeline {

namespace {

BatchLimits LimitsOf(const config::Config& config) {
  BatchLimits limits;
  limits.max_rows = config.batch.max_rows;
  limits.max_bytes = config.batch.max_bytes;
  limits.max_delay = config.batch.max_delay;
  limits.min_interval = config.batch.min_interval;
  limits.part_rows = config.batch.part_rows;
  limits.max_buffered_bytes = config.memory.max_buffered_bytes;
  return limits;
}

}  // namespace

Pipeline::Session::Session(Pipeline& pipeline)
    : p_(pipeline),
      buffers_(LimitsOf(pipeline.config_)),
      zero_buffered_bytes_{pipeline.metrics_.buffered_bytes} {}

Pipeline::Session::~Session() = default;

template <typename F>
auto Pipeline::Session::OnSource(F&& step) -> decltype(step()) {
  p_.failure_side_ = Side::kSource;
  if constexpr (std::is_void_v<decltype(step())>) {
    step();
    p_.failure_side_ = Side::kTarget;
  } else {
    auto result = step();
    p_.failure_side_ = Side::kTarget;
    return result;
  }
}

void Pipeline::Session::LoadCheckpoint() {
  const PipelineOptions& options = p_.options_;
  state::StateStore& store = *p_.store_;
  checkpoint_ = store.Load();
  if (checkpoint_ && options.start_at) {
    if (!options.move_checkpoint) {
      Fail(ErrorCode::kConfig,
           "--start-at {}: {} already holds a checkpoint ({}), and --start-at chooses where a "
           "first start begins; to replace the checkpoint (the changes between the two positions "
           "are then skipped or replayed, and stopped tables start again), add --move-checkpoint",
           options.start_at->text, store.Describe(), checkpoint_->Describe());
    }
    spdlog::warn("--move-checkpoint: the checkpoint {} in {} is replaced by a first start at {}",
                 checkpoint_->Describe(), store.Describe(), options.start_at->text);
    checkpoint_.reset();
  }
  if (checkpoint_) {
    state::RequireVersionRoom(
        checkpoint_->next_version, "the checkpoint in " + store.Describe(),
        "restore the checkpoint from a backup, or start over: delete the job's state so that the "
        "next start copies every table again (docs/running.md, \"Starting over\")");
  }
  stored_ = checkpoint_;
}

void Pipeline::Session::WaitForEarlierInserts() {
  catalog_ = std::make_unique<tables::TargetCatalog>(
      endpoints::TargetClientOptions(p_.config_.target), p_.config_.target.cluster);
  insert_prefix_ = fmt::format("rowbridge-{}-", p_.job_);
  // Not the INSERTs of a copy running alongside (job "<job>-tables-<version>"): they are its own.
  catalog_->WaitForInserts(insert_prefix_, p_.options_.insert_patience, insert_prefix_ + "tables-");
}

void Pipeline::Session::CheckSource() {
  const config::Config& config = p_.config_;
  OnSource([&] {
    admin_ = mysql::Connection::Connect(endpoints::SourceConnectOptions(config.source));
    mysql::RequireSourceReady(*admin_, config.source.server_id, endpoints::SourceReportHost(config),
                              endpoints::StaleSessionGrace(config.source));
    mariadb_ = admin_->is_mariadb();
    if (checkpoint_) {
      try {
        replay_bytes_ = mysql::BinlogBytesFrom(*admin_, checkpoint_->file, checkpoint_->position);
      } catch (const Error& e) {
        if (e.IsTransient()) throw;
        spdlog::warn(
            "cannot list the source's binlogs ({}); the checkpoint's next version is not checked "
            "against the target tables",
            e.what());
      }
    } else {
      first_position_ = p_.options_.start_at ? mysql::ResolveStartAt(*admin_, *p_.options_.start_at)
                                             : mysql::CurrentBinlogPosition(*admin_);
    }
    lower_case_table_names_ = mysql::LowerCaseTableNames(*admin_);
  });
}

void Pipeline::Session::OpenSchemaHistory() {
  schema::CatalogOptions options;
  options.flavor = mariadb_ ? schema::ServerFlavor::kMariadb : schema::ServerFlavor::kMysql;
  options.lower_case_table_names = lower_case_table_names_;
  if (checkpoint_ && !checkpoint_->schema_history.empty()) {
    history_.emplace(
        schema::SchemaHistory::FromJson(checkpoint_->schema_history, p_.store_->Describe()));
    return;
  }
  if (checkpoint_) {
    spdlog::warn(
        "the checkpoint has no schema history (saved by an older rowbridge); table columns are "
        "read from the source's information_schema as they are now");
  }
  history_.emplace(options);
}

std::set<tables::SourceTableName> Pipeline::Session::CreatedInReplay(
    const std::vector<tables::SourceTableName>& listed) {
  if (!checkpoint_->replicated_tables) return {};
  const std::set<std::string> covered = snapshot::CoveredTables(*checkpoint_);
  const schema::BinlogPosition start{checkpoint_->file, checkpoint_->position};
  // A covered table may still be created after the checkpoint's position: the checkpoint that
  // first names a table the stream met is saved at once, with the position of the last write
  // before it. The schema history then has no columns for it at the checkpoint (or only those of
  // a dropped namesake), and seeding it there with its columns of now would give the replayed
  // rows and the target columns that came later.
  auto known_at_start = [&](const tables::SourceTableName& name) {
    const schema::SchemaVersion* v = history_->SchemaAt({name.database, name.table}, start);
    return v != nullptr && v->state == schema::TableState::kKnown;
  };
  std::set<tables::SourceTableName> candidates;
  config::TableMatcher matcher(p_.config_.tables);
  return OnSource([&] {
    for (const tables::SourceTableName& name : listed) {
      if (matcher.Match(name.database, name.table) == config::TableMatcher::kNoRule) continue;
      if (covered.count(name.ToString()) == 0 || !known_at_start(name)) candidates.insert(name);
    }
    // The window is only read when it can matter: usually every matched table is covered and
    // known at the checkpoint.
    if (candidates.empty()) return candidates;
    std::set<tables::SourceTableName> created =
        tables::TablesCreatedSince(*admin_, checkpoint_->file, checkpoint_->position);
    std::erase_if(created, [&](const auto& name) { return candidates.count(name) == 0; });
    for (const auto& name : created) {
      spdlog::info(
          "{} is created again by the binlog the stream replays from {}: it is streamed "
          "from its creation on",
          name.ToString(), checkpoint_->Describe());
    }
    return created;
  });
}

state::Checkpoint Pipeline::Session::FirstCheckpoint() {
  const mysql::BinlogPosition& position = *first_position_;
  uint64_t max_version = 0;
  for (tables::TargetTable* t : resolver_->targets()) {
    const bool has_version =
        std::any_of(t->columns.begin(), t->columns.end(),
                    [&](const mapping::TargetColumn& c) { return c.name == t->version_column; });
    if (has_version) {
      const uint64_t max = catalog_->MaxVersion(t->database, t->table, t->version_column);
      state::RequireVersionRoom(
          max < state::kVersionLimit ? max + 1 : max, "a first start above " + t->label,
          "delete the rows of versions at or above 2^62 from " + t->label + ", or empty it");
      max_version = std::max(max_version, max);
    }
  }
  state::Checkpoint first;
  first.file = position.file;
  first.position = position.position;
  if (mariadb_) {
    first.gtid_flavor = state::GtidFlavor::kMariadb;
    first.gtid = position.mariadb_gtids.ToString();
  } else if (!position.mysql_gtids.empty()) {
    first.gtid_flavor = state::GtidFlavor::kMysql;
    first.gtid = position.mysql_gtids.ToString();
  }
  first.next_version = max_version + 1;
  first.schema_history = history_->ToJson();
  first.created_targets = router_->created_targets();
  std::sort(first.created_targets.begin(), first.created_targets.end());
  first.replicated_tables = replicated_tables_;
  return first;
}

void Pipeline::Session::SaveStartingCheckpoint() {
  state::StateStore& store = *p_.store_;
  if (!checkpoint_) {
    const state::Checkpoint first = FirstCheckpoint();
    store.Save(first);
    stored_ = first;
    LogFields fields;
    fields.Position(first.file, first.position,
                    first.gtid_flavor == state::GtidFlavor::kNone ? "" : first.gtid);
    spdlog::info(
        "first start: no checkpoint in {}; replicating changes from {} {} (rows that "
        "exist already are not copied)",
        store.Describe(),
        p_.options_.start_at ? "--start-at " + p_.options_.start_at->text + ":"
                             : std::string("the source's current position"),
        first.Describe());
    checkpoint_ = first;
  }
  admin_.reset();
  state::Checkpoint& checkpoint = *checkpoint_;
  if (checkpoint.schema_history.empty()) checkpoint.schema_history = history_->ToJson();
  checkpoint.created_targets = router_->created_targets();
  std::sort(checkpoint.created_targets.begin(), checkpoint.created_targets.end());
  checkpoint.replicated_tables = std::move(replicated_tables_);
  DropLeftOverTargets(checkpoint);
  if (checkpoint.table_copy && CopiesAlongside(p_.config_, checkpoint)) {
    const state::TableCopy& copy = *checkpoint.table_copy;
    using Kind = state::TableCopy::Kind;
    spdlog::info("{} table(s) {} alongside the stream: {}", copy.tables.size(),
                 copy.kind() == Kind::kResnapshot ? "copied again (resnapshot)"
                 : copy.kind() == Kind::kResume   ? "brought up from where they stopped (resume)"
                                                  : "matched later being copied",
                 JoinedLabels(copy.tables));
  } else if (checkpoint.table_copy) {
    // Left by a copy of newly matched tables that was not finished (snapshot.enabled was turned
    // off meanwhile): those tables are streamed from the checkpoint on instead, and a later copy
    // must not resume it (its rows would sit below changes streamed since).
    spdlog::warn(
        "the copy of {} table(s) matched later was not finished; they are replicated "
        "from {} on without it",
        checkpoint.table_copy->tables.size(), checkpoint.Describe());
    checkpoint.table_copy.reset();
  }
  // Saved before any row is read: a session stopped before its first transaction boundary saves
  // nothing newer, and the next one must not find the store without the schema history it reads
  // rows by (it would read the columns from information_schema as they are then, possibly after
  // an ALTER).
  if (!stored_ || !(checkpoint == *stored_)) store.Save(checkpoint);
  p_.SetLastCheckpoint(checkpoint);
  saved_ = checkpoint;
  {
    std::lock_guard lock(buffers_.mutex());
    tracker_.emplace(checkpoint);
  }
  if (CopiesAlongside(p_.config_, checkpoint)) p_.copier_->Ensure(checkpoint, store.Describe());
  p_.repairer_->Ensure(checkpoint);
}

void Pipeline::Session::DropLeftOverTargets(state::Checkpoint& checkpoint) {
  if (checkpoint.targets_to_drop.empty()) return;
  // Never a table a copy in progress uses (the same table's next resnapshot makes the same fresh
  // table, and drops the old one itself).
  std::vector<std::string> left_over;
  for (const std::string& label : checkpoint.targets_to_drop) {
    if (!IsFreshTableOf(checkpoint.table_copy, label)) left_over.push_back(label);
  }
  snapshot::DropFreshTables(p_.config_, left_over);
  if (!left_over.empty()) {
    spdlog::info("dropped {}, left by a copy that failed before the last stop",
                 JoinedLabels(left_over));
  }
  checkpoint.targets_to_drop.clear();
}

void Pipeline::Session::SaveNewest(const BinlogReader& reader) {
  std::lock_guard saving(save_mutex_);
  state::Checkpoint current;
  {
    std::lock_guard lock(buffers_.mutex());
    if (!tracker_->Advance(buffers_.LowestUnflushed(reader.next_version()))) return;
    current = tracker_->checkpoint();
  }
  SaveIfChanged(current);
}

void Pipeline::Session::TakeOver(const HandOverDesk::Offer& offer,
                                 const schema::BinlogPosition& at) {
  std::optional<state::TableCopy> copy;
  {
    std::lock_guard lock(buffers_.mutex());
    copy = tracker_->checkpoint().table_copy;
  }
  // A resnapshot, or tables matched later copied again into fresh tables: each takes its
  // target's place.
  if (copy && copy->tables == offer.tables && !copy->fresh_targets.empty() &&
      copy->kind() != state::TableCopy::Kind::kResume) {
    ReplaceTargets(offer, copy->fresh_targets, at);
    return;
  }
  if (copy && copy->tables == offer.tables && copy->kind() == state::TableCopy::Kind::kResume) {
    ResumeTables(offer, at);
    return;
  }
  for (const std::string& label : offer.tables) {
    const config::QualifiedName name = snapshot::SplitLabel(label);
    AdoptCopiedTable(*router_, {name.database, name.table}, offer.end, at);
  }
  {
    std::lock_guard lock(buffers_.mutex());
    for (const std::string& label : offer.tables) {
      tracker_->AddTableStart({label, offer.end.file, offer.end.offset, "", false});
    }
  }
  // Before any of their changes is read: a restart must not copy them again, nor stream their
  // changes the copy holds.
  SaveNow();
  spdlog::info("copy of {} handed over: their changes after {} are streamed (the stream is at {})",
               JoinedLabels(offer.tables), offer.end.ToString(), at.ToString());
}

void Pipeline::Session::ReplaceTargets(const HandOverDesk::Offer& offer,
                                       const std::vector<std::string>& fresh_targets,
                                       const schema::BinlogPosition& at) {
  for (size_t i = 0; i < offer.tables.size(); ++i) {
    const std::string& label = offer.tables[i];
    const config::QualifiedName name = snapshot::SplitLabel(label);
    const bool done = ReplaceTargetWithCopy(
        *router_, {name.database, name.table}, offer.end, snapshot::SplitLabel(fresh_targets[i]),
        at, [&](const std::string& target) {
          {
            std::lock_guard lock(buffers_.mutex());
            tracker_->AddTableStart(
                {label, offer.end.file, offer.end.offset, fresh_targets[i], true});
            tracker_->AddCreatedTarget(target);
            tracker_->RemoveStop(name.database, name.table);
          }
          // Before the fresh table takes the target's place: a crash after it must not stream
          // the table's changes before the copy's end into it again, and the next session
          // finishes the replacement if it was cut short.
          SaveNow();
        });
    if (!done) {
      Fail(ErrorCode::kNetwork, "stopping before the resnapshot of {} was handed over", label);
    }
    p_.metrics_.table_stopped.WithLabels({name.database, name.table}).Set(0);
    p_.raced_copies_in_a_row_.erase(label);
    spdlog::info(
        "resnapshot of {} handed over: its copy took the target's place, and its changes "
        "after {} are streamed into it (the stream is at {})",
        label, offer.end.ToString(), at.ToString());
  }
}

void Pipeline::Session::ResumeTables(const HandOverDesk::Offer& offer,
                                     const schema::BinlogPosition& at) {
  {
    std::lock_guard lock(buffers_.mutex());
    for (const std::string& label : offer.tables) {
      const config::QualifiedName name = snapshot::SplitLabel(label);
      tracker_->AddTableStart({label, offer.end.file, offer.end.offset, "", true});
      tracker_->RemoveStop(name.database, name.table);
    }
  }
  // Before any of their changes after the copy's end is read.
  SaveNow();
  for (const std::string& label : offer.tables) {
    const config::QualifiedName name = snapshot::SplitLabel(label);
    ResumeTable(*router_, {name.database, name.table}, offer.end, at);
    p_.metrics_.table_stopped.WithLabels({name.database, name.table}).Set(0);
    spdlog::info(
        "{} resumed: its changes up to {} were applied alongside the stream, which "
        "streams it from there (the stream is at {})",
        label, offer.end.ToString(), at.ToString());
  }
}

void Pipeline::Session::DoReaderWork(const schema::BinlogPosition& at) {
  Pipeline::ReaderWork work = p_.TakeReaderWork();
  if (work.abandoned) Abandon(*work.abandoned);
  for (const std::string& label : work.pauses) {
    const config::QualifiedName name = snapshot::SplitLabel(label);
    std::optional<state::StoppedTable> paused =
        PauseTable(*router_, {name.database, name.table}, at);
    if (!paused) continue;
    {
      std::lock_guard lock(buffers_.mutex());
      tracker_->AddStopNow(*paused);
      const state::PendingCommand* pending = tracker_->checkpoint().FindPending(label);
      if (pending != nullptr && pending->action == "pause") tracker_->RemovePendingCommand(label);
    }
    SaveNow();
    p_.ShowStopped(*paused);
  }
}

void Pipeline::Session::SubmitPendingCommands(const std::vector<state::PendingCommand>& pending) {
  const std::vector<std::string> refused =
      p_.SubmitPendingCommands(pending, stream_caught_up_.load());
  if (refused.empty()) return;
  {
    std::lock_guard lock(buffers_.mutex());
    for (const std::string& table : refused) tracker_->RemovePendingCommand(table);
  }
  SaveNow();
}

void Pipeline::Session::Abandon(const Pipeline::AbandonedCopy& abandoned) {
  const state::TableCopy& copy = abandoned.copy;
  const state::TableCopy::Kind kind = copy.kind();
  std::optional<state::PendingCommand> again;
  std::string again_why;
  bool gone = false;
  {
    std::lock_guard lock(buffers_.mutex());
    const auto& current = tracker_->checkpoint().table_copy;
    if (!current || !(*current == copy)) {
      spdlog::warn("the copy of {} failed ({}) after it was handed over or replaced",
                   JoinedLabels(copy.tables), abandoned.reason);
      return;
    }
    if (p_.CopiedAgainFresh(copy, abandoned.code)) {
      // The first copy's targets have the old columns: the copy begins again, between sessions,
      // into fresh tables built from the current ones, its tables held back meanwhile.
      spdlog::warn("{}: {}; copied again into fresh tables, which take their targets' places",
                   JoinedLabels(copy.tables), abandoned.reason);
      std::lock_guard requests(p_.requests_mutex_);
      p_.matched_later_again_ = copy;
      p_.restart_requested_ = true;
      return;
    }
    tracker_->ClearTableCopy();
    tracker_->AddTargetsToDrop(copy.fresh_targets);
    // The copy begun again goes into the same checkpoint that drops the failed one: saved one
    // after the other, a kill -9 between the two saves lost the resnapshot, and the table kept a
    // target without the rows it was to bring (unpaced DDL workload, seed 529).
    // A resnapshot of a table the stream saw renamed or dropped meanwhile ends as expected.
    gone = copy.tables.size() == 1 && gone_while_copied_.count(copy.tables[0]) != 0;
    again_why = CopyAgainReason(abandoned);
    if (!again_why.empty()) {
      again = ResnapshotCommand(copy.tables[0]);
      tracker_->AddPendingCommand(*again);
    }
  }
  SaveNow();
  // Its fresh tables will never take their targets' places (a copy begun again drops and makes its
  // own): left, they stayed in ClickHouse for good (unpaced DDL workload, seed 900:
  // `d4_rowbridge_resnapshot` after d4's copy failed and d4 was renamed). Only after the save: a
  // kill -9 before it resumes the copy, which needs them; one after it leaves them named in
  // targets_to_drop, for the next session to drop (DropLeftOverTargets; seed 402).
  try {
    snapshot::DropFreshTables(p_.config_, copy.fresh_targets);
    std::lock_guard lock(buffers_.mutex());
    tracker_->RemoveTargetsToDrop(copy.fresh_targets);
  } catch (const Error& e) {
    spdlog::warn(
        "{}: the failed copy's table(s) {} were not dropped ({}); the next start drops them",
        JoinedLabels(copy.tables), JoinedLabels(copy.fresh_targets), e.what());
  }
  SaveNow();  // nothing when they were not dropped
  const bool matched_later = kind == state::TableCopy::Kind::kMatchedLater;
  for (const std::string& label : copy.tables) {
    const config::QualifiedName name = snapshot::SplitLabel(label);
    const std::string reason =
        fmt::format("its {} failed: {}", state::TableCopyKindName(kind), abandoned.reason);
    if (matched_later) {
      // Never streamed: shown stopped (it has no rows) until a restart copies it again.
      p_.status_.Table(name.database, name.table, "", "")
          .SetStopped(reason, "", std::chrono::system_clock::now());
      p_.metrics_.table_stopped.WithLabels({name.database, name.table}).Set(1);
    }
    if (gone) {
      spdlog::info("{}: its {} ended: the stream met the table's RENAME or DROP meanwhile ({})",
                   label, state::TableCopyKindName(kind), abandoned.reason);
      continue;
    }
    spdlog::error("{}: {}; the stream goes on without it ({})", label, reason,
                  matched_later ? "the next start copies it again"
                  : kind == state::TableCopy::Kind::kResnapshot
                      ? "it streams into its old target; `rowbridge resnapshot` tries again"
                      : "it stays stopped; `rowbridge resnapshot` copies it again instead");
  }
  if (again) StartCopyAgain(*again, again_why);
}

const char* Pipeline::Session::WithdrawResnapshot(const std::string& label) {
  const state::Checkpoint& checkpoint = tracker_->checkpoint();
  const state::PendingCommand* pending = checkpoint.FindPending(label);
  const auto& copy = checkpoint.table_copy;
  // One running under the old name cannot hand over any more (the stream is past the statement),
  // and ends as a source change.
  const bool running =
      copy && copy->kind() == state::TableCopy::Kind::kResnapshot &&
      std::find(copy->tables.begin(), copy->tables.end(), label) != copy->tables.end();
  const bool recorded = pending != nullptr && pending->action == "resnapshot";
  if (recorded) tracker_->RemovePendingCommand(label);
  if (running) gone_while_copied_.insert(label);
  return running ? "running" : recorded ? "pending" : nullptr;
}

std::string Pipeline::Session::CopyAgainReason(const Pipeline::AbandonedCopy& abandoned) {
  // The target lacks the rows the resnapshot was to bring, so it is begun anew. A schema change
  // that raced the copy (gh-ost's swapped-in table altered at once, say) is seen by the next copy,
  // which therefore begins as often as changes race it, up to a bound in a row: a copy that can
  // never succeed (a table gone from the source under a name the stream still gives it) must not
  // restart the stream for ever, as one did while a resnapshot waited under a name the replay had
  // renamed away. Any other failure, a few times at most per table and process. Begun again
  // whatever snapshot.enabled says: the resnapshot was asked for.
  constexpr int kCopiesAgain = 3;
  constexpr int kRacedCopiesInARow = 20;
  const state::TableCopy& copy = abandoned.copy;
  if (copy.kind() != state::TableCopy::Kind::kResnapshot || copy.tables.size() != 1) return "";
  const std::string& label = copy.tables[0];
  const bool raced = abandoned.code == ErrorCode::kSourceChanged;
  if (abandoned.code == ErrorCode::kInvalidArgument) return "";  // refused: again cannot help
  if (gone_while_copied_.erase(label) != 0)
    return "";  // renamed (copied under the new name) or dropped
  if (!raced && p_.resnapshots_again_[label]++ >= kCopiesAgain) return "";
  if (raced && ++p_.raced_copies_in_a_row_[label] > kRacedCopiesInARow) {
    spdlog::error(
        "{}: its resnapshot met a change of the table {} times in a row ({}); it is not begun "
        "again (`rowbridge resnapshot {}` tries again)",
        label, kRacedCopiesInARow, abandoned.reason, label);
    p_.raced_copies_in_a_row_.erase(label);
    return "";
  }
  return raced ? "its table changed while it was copied" : "its resnapshot failed";
}

state::PendingCommand Pipeline::Session::ResnapshotCommand(const std::string& label) {
  return {
      label, server::TableActionName(server::TableAction::kResnapshot),
      server::TimestampJson(server::UnixMs(std::chrono::system_clock::now())).get<std::string>()};
}

void Pipeline::Session::CopyAgain(const std::string& label, const std::string& why, bool asked) {
  if (!asked && !p_.config_.snapshot.enabled) {
    spdlog::warn(
        "{}: {}; `rowbridge resnapshot {}` copies it again (snapshot.enabled is false, so it "
        "is not done by itself)",
        label, why, label);
    return;
  }
  const state::PendingCommand command = ResnapshotCommand(label);
  {
    std::lock_guard lock(buffers_.mutex());
    if (!tracker_) return;
    tracker_->AddPendingCommand(command);
  }
  // At once: the stream may move past what told it, so a kill -9 must not lose the copy.
  SaveNow();
  StartCopyAgain(command, why);
}

void Pipeline::Session::StartCopyAgain(const state::PendingCommand& command,
                                       const std::string& why) {
  spdlog::warn("{}: {}; it is copied again alongside the stream (resnapshot){}", command.table, why,
               p_.CopyBusy() ? ", once the copy running now is done" : "");
  p_.ForgetSubmitted(command.table);
  SubmitPendingCommands({command});
}

void Pipeline::Session::SaveNow() {
  std::lock_guard saving(save_mutex_);
  state::Checkpoint current;
  {
    std::lock_guard lock(buffers_.mutex());
    current = tracker_->checkpoint();
  }
  SaveIfChanged(current);
}

void Pipeline::Session::SaveIfChanged(const state::Checkpoint& checkpoint) {
  if (checkpoint == saved_) return;
  p_.store_->Save(checkpoint);
  saved_ = checkpoint;
  p_.SetLastCheckpoint(checkpoint);
}

void Pipeline::Session::RefreshLag(const BinlogReader& reader, SteadyTime now) {
  // The oldest row still buffered; else the age of what the reader is chewing on; 0 once the
  // source's heartbeats say the reader is at its end and nothing is buffered.
  const double wall =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  uint64_t oldest = 0;
  for (const auto& g : buffers_.groups()) {
    for (const Batch* b : {g->sealed, g->filling}) {
      if (b != nullptr && b->rows > 0 && (oldest == 0 || b->first_commit_us < oldest))
        oldest = b->first_commit_us;
    }
  }
  double lag = 0;
  if (oldest != 0) {
    lag = wall - static_cast<double>(oldest) / 1e6;
  } else if (!reader.caught_up() && reader.last_commit_us() != 0 &&
             now - reader.last_event_received() < std::chrono::seconds(1)) {
    lag = wall - static_cast<double>(reader.last_commit_us()) / 1e6;
  }
  stream_caught_up_ = reader.caught_up();
  p_.run_metrics_->lag.Set(std::max(0.0, lag));
  p_.status_.SetReplicationLag(lag);
  p_.metrics_.buffered_bytes.Set(static_cast<double>(buffers_.held_bytes()));
}

ReaderContext Pipeline::Session::MakeReaderContext() {
  Pipeline& p = p_;
  ReaderContext reader_context;
  reader_context.config = &p.config_;
  reader_context.start = *checkpoint_;
  reader_context.router = &*router_;
  reader_context.schema_changes = &*schema_changes_;
  reader_context.buffers = &buffers_;
  reader_context.tracker = &*tracker_;
  reader_context.status = &p.status_;
  reader_context.metrics = &p.metrics_;
  reader_context.desk = &p.desk_;
  reader_context.take_over = [this](const HandOverDesk::Offer& offer,
                                    const schema::BinlogPosition& at) { TakeOver(offer, at); };
  reader_context.work_pending = &p.reader_work_pending_;
  reader_context.start_gone = &p.start_gone_;
  reader_context.do_work = [this](const schema::BinlogPosition& at) { DoReaderWork(at); };
  return reader_context;
}

void Pipeline::Session::Stream() {
  Pipeline& p = p_;
  ReaderContext reader_context = MakeReaderContext();
  const BinlogReader* cascade_reader = nullptr;  // foreign-key cascades: cascade_repairs.h
  CascadeRepairs cascades(SessionCascadeContext(
      p.config_, *router_, buffers_, *tracker_, p.registry_, &p.stop_requested_,
      [&] { return buffers_.LowestUnflushed(cascade_reader->next_version()); }));
  reader_context.cascades = &cascades;
  BinlogReader reader(reader_context);
  cascade_reader = &reader;
  WriterPool writers(p.config_.target.writers, endpoints::TargetClientOptions(p.config_.target),
                     buffers_, fmt::format("{}{}-{}-", insert_prefix_, ::getpid(), p.session_),
                     p.run_metrics_->batches);
  Threads threads(reader, writers, buffers_, p.config_.source);
  struct StopCascades {
    CascadeRepairs& cascades;
    ~StopCascades() { cascades.Stop(); }
  } stop_cascades{cascades};

  // The ticker: seals batches older than batch.max_delay, refreshes the lag at least every
  // 200 ms and saves the newest safe checkpoint every checkpoint_interval.
  auto next_checkpoint = std::chrono::steady_clock::now() + p.config_.state.checkpoint_interval;
  const auto session_start = std::chrono::steady_clock::now();
  bool running = false;
  std::unique_lock lock(buffers_.mutex());
  for (;;) {
    if (buffers_.aborted_locked() || p.stop_requested_ || p.restart_requested_) break;
    const auto now = std::chrono::steady_clock::now();
    const SteadyTime due = buffers_.SealDue(now);
    if (!running && reader.connected()) {
      running = true;
      std::vector<state::PendingCommand> pending = tracker_->checkpoint().pending_commands;
      lock.unlock();
      p.status_.SetState(server::PipelineState::kRunning);
      if (!pending.empty()) SubmitPendingCommands(pending);
      lock.lock();
    }
    RefreshLag(reader, now);
    if (running && p.TakeWaitingCopiesReady()) {
      std::vector<state::PendingCommand> pending = tracker_->checkpoint().pending_commands;
      lock.unlock();
      SubmitPendingCommands(pending);
      lock.lock();
    }
    if (p.repairs_done_pending_.exchange(false)) {
      lock.unlock();
      const std::vector<std::string> repaired = p.TakeRepairsDone();
      lock.lock();
      for (const std::string& table : repaired) tracker_->RemoveTableRepair(table);
      lock.unlock();
      SaveNow();
      lock.lock();
    }
    if (now >= next_checkpoint) {
      lock.unlock();
      SaveNewest(reader);
      if (running && now - session_start > std::chrono::seconds(10)) p.session_was_healthy_ = true;
      lock.lock();
      next_checkpoint = now + p.config_.state.checkpoint_interval;
    }
    buffers_.changed().wait_until(
        lock, std::min({due, next_checkpoint, now + std::chrono::milliseconds(200)}));
  }
  lock.unlock();

  EndStream(threads, reader, cascades);
}

void Pipeline::Session::EndStream(Threads& threads, const BinlogReader& reader,
                                  CascadeRepairs& cascades) {
  Pipeline& p = p_;
  if (buffers_.aborted()) {
    threads.Stop(false);
    std::optional<Error> error = buffers_.error();
    p.failure_side_ = threads.source_failed() ? Side::kSource : Side::kTarget;
    if (!error) error = Error(ErrorCode::kInternal, "the pipeline stopped without an error");
    throw *error;
  }

  // A requested stop: write everything read so far, then save the final checkpoint.
  if (p.restart_requested_ && !p.stop_requested_) {
    spdlog::info("restarting the stream: writing the buffered rows and saving the checkpoint");
  } else {
    p.status_.SetState(server::PipelineState::kStopping);
    spdlog::info("stopping: writing the buffered rows and saving the checkpoint");
  }
  threads.Stop(true);
  if (std::optional<Error> error = buffers_.error()) {
    p.failure_side_ = Side::kTarget;
    throw *error;
  }
  cascades.Finish();  // the repairs of what was read, before the checkpoint passes it
  SaveNewest(reader);
  state::Checkpoint final_checkpoint;
  {
    std::lock_guard saving(save_mutex_);
    final_checkpoint = saved_;
  }
  LogFields fields;
  fields.Position(
      final_checkpoint.file, final_checkpoint.position,
      final_checkpoint.gtid_flavor == state::GtidFlavor::kNone ? "" : final_checkpoint.gtid);
  spdlog::info("stopped cleanly at {} (next version {})", final_checkpoint.Describe(),
               final_checkpoint.next_version);
}

void Pipeline::RunSession() {
  // A process that lost its leader lock (config `ha`) must not even reconnect: its binlog dump
  // would kick the new leader's (same server_id).
  CheckWriteFence();
  ++session_;
  if (session_ > 1) metrics_.source_reconnects.Increment();
  status_.SetState(server::PipelineState::kStarting);
  failure_side_ = Side::kTarget;

  Session session(*this);
  session.LoadCheckpoint();
  session.WaitForEarlierInserts();
  session.CheckSource();
  session.OpenSchemaHistory();
  session.ResolveTables();
  session.SaveStartingCheckpoint();
  session.Stream();
}

}  // namespace rowbridge::pipeline
