// The TABLE_MAPs seen so far, keyed by table id, each with its precomputed column layout. Rows
// events name their table only by id, so every consumer of rows keeps one of these.
//
// Entries are shared_ptr<const TableInfo>: a consumer holding cells of an earlier row keeps the
// ColumnDefs they point to alive even after a new TABLE_MAP for the same id replaces the entry.
// A TABLE_MAP whose bytes equal the cached one (the common case: one per transaction) is not
// parsed again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "binlog/column_layout.h"
#include "binlog/event.h"
#include "binlog/format_description.h"
#include "binlog/table_map.h"

namespace rowbridge::binlog {

struct TableInfo {
  TableMap map;
  std::vector<ColumnSlot> layout;  // one per column
  uint32_t json_columns = 0;       // JSON columns in the table (PARTIAL_UPDATE_ROWS needs it)
  std::string raw_body;            // the TABLE_MAP body this was parsed from
};

class TableMapCache {
 public:
  // Parses (or recognises) a TABLE_MAP event and makes it the entry for its table id.
  const std::shared_ptr<const TableInfo>& Update(const Event& table_map,
                                                 const FormatDescription& format);
  // The entry for `table_id`, or nullptr if no TABLE_MAP for it was seen.
  const TableInfo* Find(uint64_t table_id) const;
  std::shared_ptr<const TableInfo> FindShared(uint64_t table_id) const;
  void Clear() { tables_.clear(); }
  size_t size() const { return tables_.size(); }

 private:
  // A server reuses ids only after their tables leave its table cache, so the map is bounded by
  // dropping everything when it grows past this; the next TABLE_MAPs refill it.
  static constexpr size_t kMaxTables = 16384;
  std::unordered_map<uint64_t, std::shared_ptr<const TableInfo>> tables_;
};

}  // namespace rowbridge::binlog
