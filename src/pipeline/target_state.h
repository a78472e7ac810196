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

  // The rows at or above the resume checkpoint's next_version that the table already holds, in
  // ascending order (an update that changed the key writes two rows of one version: the old key's
  // removal, then the new row). Consumed front to back as the reader replays.
  std::vector<tables::PresentRow> present_rows;
  size_t present_next = 0;

  // The batch groups writing into this table, keyed by their INSERT column list.
  std::map<std::string, TargetGroup*> groups;

  struct Present {
    size_t rows = 0;      // of the change, in the table
    size_t removals = 0;  // of those, removals (a key move's first row)
  };
  // The rows of the change of `version` the table already holds. A key move's two rows may be
  // there one without the other: split over two batches (the batch filled up between them), or
  // written by one INSERT through a Distributed table that reached one shard and not the other
  // (each shard's part is committed on its own). So which of them is there is told, not assumed.
  // Versions must be asked in ascending order.
  Present PresentOf(uint64_t version) {
    Present present;
    if (present_next >= present_rows.size()) return present;
    while (present_next < present_rows.size() && present_rows[present_next].version < version) {
      ++present_next;
    }
    for (size_t i = present_next; i < present_rows.size() && present_rows[i].version == version;
         ++i) {
      ++present.rows;
      if (present_rows[i].removal) ++present.removals;
    }
    if (present_next >= present_rows.size()) {
      present_rows.clear();
      present_rows.shrink_to_fit();
      present_next = 0;
    }
    return present;
  }
};

}  // namespace rowbridge::pipeline
