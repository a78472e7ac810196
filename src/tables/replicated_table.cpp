#include "tables/replicated_table.h"

#include <algorithm>
#include <cctype>

namespace rowbridge::tables {

mapping::TableMode PlanMode(config::TableMode mode) {
  return mode == config::TableMode::kReplica ? mapping::TableMode::kReplica
                                             : mapping::TableMode::kChangelog;
}

const std::string& RemovalColumn(const config::TableRule& rule) {
  return PlanMode(rule.mode) == mapping::TableMode::kChangelog ? rule.meta_columns.event_type
                                                               : rule.meta_columns.is_deleted;
}

mapping::MetaColumnNames MetaNames(const config::MetaColumns& meta) {
  mapping::MetaColumnNames names;
  names.version = meta.version;
  names.is_deleted = meta.is_deleted;
  names.event_type = meta.event_type;
  return names;
}

bool SameColumnName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool IsReplicatedColumn(const binlog::ColumnDef& column, const config::TableRule& rule) {
  auto listed = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& n) { return SameColumnName(n, column.name); });
  };
  if (!rule.include_columns.empty() && !listed(rule.include_columns)) return false;
  return !listed(rule.exclude_columns);
}

std::vector<binlog::ColumnDef> ReplicatedColumns(const ReplicatedTable& table) {
  std::vector<binlog::ColumnDef> out;
  if (!table.known) return out;
  for (const auto& c : table.known->columns)
    if (IsReplicatedColumn(c, *table.rule)) out.push_back(c);
  return out;
}

std::vector<std::string> KeyNames(const ReplicatedTable& table, const binlog::TableMap* map) {
  if (table.rule != nullptr && !table.rule->key.empty()) return table.rule->key;
  std::vector<std::string> names;
  if (table.known) {
    for (uint32_t i : table.known->primary_key) names.push_back(table.known->columns[i].name);
  }
  if (names.empty() && map != nullptr) {
    for (uint32_t i : map->primary_key) {
      if (i < map->columns.size()) names.push_back(map->columns[i].name);
    }
  }
  return names;
}

}  // namespace rowbridge::tables
