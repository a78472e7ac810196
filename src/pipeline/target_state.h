// The stream's runtime state of one target table (the catalog's tables::TargetTable): the batch
// groups writing into it and the versions a replay finds already there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tables/target_tables.h"

namespace rowbridge::pipeline {

struct TargetGroup;

struct TargetState {
  tables::TargetTable* table = nullptr;

  // Versions at or above the resume checkpoint's next_version that the table already holds, in
  // ascending order with repeats (a replica update that changed the key writes two rows of one
  // version: the old key's tombstone first, then the new row). Consumed front to back as the
  // reader replays.
  std::vector<uint64_t> present_versions;
  size_t present_next = 0;

  // The batch groups writing into this table, keyed by their INSERT column list.
  std::map<std::string, TargetGroup*> groups;

  // How many rows of the change of `version` the table already holds. A change's rows can be split
  // over two batches (the batch filled up between a key move's tombstone and its new row); batches
  // of one table are inserted in order, so the rows present are always the change's first ones.
  // Versions must be asked in ascending order.
  size_t PresentRows(uint64_t version) {
    if (present_next >= present_versions.size()) return 0;
    while (present_next < present_versions.size() && present_versions[present_next] < version) {
      ++present_next;
    }
    size_t count = 0;
    while (present_next + count < present_versions.size() &&
           present_versions[present_next + count] == version) {
      ++count;
    }
    if (present_next >= present_versions.size()) {
      present_versions.clear();
      present_versions.shrink_to_fit();
      present_next = 0;
    }
    return count;
  }
};

}  // namespace rowbridge::pipeline
