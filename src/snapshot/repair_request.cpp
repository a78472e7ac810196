#include "snapshot/repair_request.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "common/error.h"
#include "config/table_matcher.h"
#include "snapshot/newly_matched.h"
#include "snapshot/snapshot_state.h"

namespace rowbridge::snapshot {

std::string RepairRefusal(const config::Config& config, const state::Checkpoint& checkpoint,
                          const std::string& table) {
  const config::QualifiedName name = SplitLabel(table);
  if (config::TableMatcher(config.tables).Match(name.database, name.table) ==
      config::TableMatcher::kNoRule) {
    return "no rule of the configuration matches it";
  }
  if (const state::StoppedTable* stopped = checkpoint.FindStopped(table)) {
    return stopped->paused ? "it is paused: resume it first (`rowbridge resume`)"
                           : "it is stopped: its changes since the stop are not in its target; "
                             "`rowbridge resume` or `rowbridge resnapshot` bring it back";
  }
  if (checkpoint.table_copy &&
      std::find(checkpoint.table_copy->tables.begin(), checkpoint.table_copy->tables.end(),
                table) != checkpoint.table_copy->tables.end()) {
    return fmt::format("it is being copied ({}); check it again once that is done",
                       state::TableCopyKindName(checkpoint.table_copy->kind()));
  }
  if (!CoveredTables(checkpoint).count(table)) {
    return "the stream does not cover it yet (a table matched later is copied at the next start)";
  }
  if (checkpoint.FindRepair(table) != nullptr) return "a repair of it is under way already";
  return "";
}

void BeginRepairs(const config::Config& config, state::StateStore& store,
                  state::Checkpoint& checkpoint, const std::vector<std::string>& tables,
                  const std::vector<std::string>& requested_at) {
  for (const std::string& table : tables) {
    if (std::string why = RepairRefusal(config, checkpoint, table); !why.empty())
      Fail(ErrorCode::kInvalidArgument, "cannot repair {}: {}", table, why);
  }
  const uint64_t base = checkpoint.next_version;
  state::RequireVersionRoom(base + kVersionBand, "the checkpoint in " + store.Describe(),
                            "the version counter has no room for a repair's band");
  for (size_t i = 0; i < tables.size(); ++i) {
    checkpoint.table_repairs.push_back(
        {tables[i], base, i < requested_at.size() ? requested_at[i] : std::string()});
  }
  checkpoint.next_version = base + kVersionBand;
  store.Save(checkpoint);
  spdlog::info(
      "repair of {}: the ranges where the target differs are written again alongside the "
      "stream (versions from {} on)",
      fmt::join(tables, ", "), base);
}

}  // namespace rowbridge::snapshot
