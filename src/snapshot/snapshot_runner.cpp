// The copy's orchestration (snapshot_runner.h): Run reads as its steps, each in a file of its
// own (runner_impl.h lists them); the reader threads that run a step on every table.
#include "snapshot/snapshot_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "common/error.h"
#include "common/log_fields.h"
#include "snapshot/runner_impl.h"
#include "tables/source_schema.h"

namespace rowbridge::snapshot {

using binlog::ColumnDef;

SnapshotRunner::SnapshotRunner(config::Config config, SnapshotOptions options,
                               server::MetricsRegistry& metrics, server::StatusBoard& status)
    : config_(std::move(config)),
      options_(std::move(options)),
      metrics_(metrics),
      status_(status) {}

SnapshotRunner::~SnapshotRunner() = default;

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

SnapshotResult SnapshotRunner::Run() {
  Impl impl(*this);
  impl.Prepare();
  SnapshotResult result = impl.PlannedResult();
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

  Impl::WriterThreads writers(impl);
  BinlogPoint end;
  const bool copied = CopyAndCatchUp(impl, end);
  writers.Stop();
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

SnapshotResult SnapshotRunner::Impl::PlannedResult() const {
  SnapshotResult result;
  result.tables = tables.size();
  for (const auto& t : tables) result.copied_tables.push_back(t->label);
  std::sort(result.copied_tables.begin(), result.copied_tables.end());
  result.created_targets = run.created_targets;
  result.next_version = run.version_base + kVersionBand;
  return result;
}

bool SnapshotRunner::CopyAndCatchUp(Impl& impl, BinlogPoint& end) {
  impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.Copy(t, r); });
  if (impl.stopping()) return false;
  if (options_.before_final_position) options_.before_final_position();
  end = impl.FinalPosition();
  impl.RunReaders([&](CopiedTable& t, uint32_t r) { impl.CatchUp(t, end, r); });
  if (options_.hand_over) return HandOver(impl, end);
  return true;
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
