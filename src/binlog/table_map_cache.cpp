#include "binlog/table_map_cache.h"

#include "binlog/table_map_event.h"

namespace rowbridge::binlog {

const std::shared_ptr<const TableInfo>& TableMapCache::Update(const Event& event,
                                                              const FormatDescription& format) {
  // The table id is the first 6 (or 4) bytes; compare whole bodies to find an unchanged map.
  uint8_t post_header = format.PostHeaderLength(EventType::kTableMap);
  ByteReader r = event.BodyReader();
  uint64_t id = post_header == 6 ? r.U32("table id") : r.U48("table id");
  auto it = tables_.find(id);
  if (it != tables_.end() && it->second->raw_body == event.body) return it->second;

  auto info = std::make_shared<TableInfo>();
  info->map = ParseTableMap(event, format);
  info->layout = BuildColumnLayout(info->map);
  for (const auto& c : info->map.columns) {
    if (c.type == ColumnType::kJson) ++info->json_columns;
  }
  info->raw_body.assign(event.body);
  if (it == tables_.end() && tables_.size() >= kMaxTables) tables_.clear();
  auto& slot = tables_[id];
  slot = std::move(info);
  return slot;
}

const TableInfo* TableMapCache::Find(uint64_t table_id) const {
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : it->second.get();
}

std::shared_ptr<const TableInfo> TableMapCache::FindShared(uint64_t table_id) const {
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : it->second;
}

}  // namespace rowbridge::binlog
