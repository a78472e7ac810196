// Recording a repair in place (`rowbridge check --repair`, `rowbridge repair`): which tables can
// be repaired, and the version band the repair writes with (state::TableRepair says why the band
// makes a repair into the live target exact).
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "state/checkpoint.h"
#include "state/state_store.h"

namespace rowbridge::snapshot {

// Why `table` ("db.table") cannot be repaired now, given the last checkpoint; empty when it can:
// matched by a rule, streamed (not stopped, paused or being copied), no repair of it recorded.
std::string RepairRefusal(const config::Config& config, const state::Checkpoint& checkpoint,
                          const std::string& table);

// Records in `checkpoint` (saved by a clean stop of the stream, so ClickHouse holds no version at
// or above its next_version) a repair of each of `tables`, sharing one version band from
// next_version on, with next_version moved above the band, and saves it. `requested_at` is
// the time of each request (same order). Throws Error(kInvalidArgument) with RepairRefusal's
// reason, before recording anything.
void BeginRepairs(const config::Config& config, state::StateStore& store,
                  state::Checkpoint& checkpoint, const std::vector<std::string>& tables,
                  const std::vector<std::string>& requested_at);

}  // namespace rowbridge::snapshot
