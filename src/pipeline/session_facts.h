// Facts of a session's checkpoint that several of Pipeline::Session's files need. Internal to the
// pipeline module.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "pipeline/table_router.h"
#include "state/checkpoint.h"

namespace rowbridge::pipeline {

// Whether `label` is a fresh table of `copy`, the copy in progress, which makes and fills it.
inline bool IsFreshTableOf(const std::optional<state::TableCopy>& copy, const std::string& label) {
  return copy && std::find(copy->fresh_targets.begin(), copy->fresh_targets.end(), label) !=
                     copy->fresh_targets.end();
}

// The highest version a replay of `bytes` binlog bytes from `resume_version` can give a row.
inline uint64_t ReplayVersionLimit(uint64_t resume_version, uint64_t bytes) {
  const uint64_t reach =
      bytes > ~uint64_t{0} / kChangesPerBinlogByte ? ~uint64_t{0} : bytes * kChangesPerBinlogByte;
  return reach > ~uint64_t{0} - resume_version ? ~uint64_t{0} : resume_version + reach;
}

// Whether the copy `checkpoint` records runs: a resnapshot or resume always; tables matched later
// with snapshot.enabled (turned off meanwhile, they are streamed from the checkpoint on without
// it).
inline bool CopiesAlongside(const config::Config& config, const state::Checkpoint& checkpoint) {
  return checkpoint.table_copy &&
         (config.snapshot.enabled ||
          checkpoint.table_copy->kind() != state::TableCopy::Kind::kMatchedLater);
}

// "a.t1, a.t2".
inline std::string JoinedLabels(const std::vector<std::string>& labels) {
  std::string out;
  for (const std::string& label : labels) out += (out.empty() ? "" : ", ") + label;
  return out;
}

}  // namespace rowbridge::pipeline
