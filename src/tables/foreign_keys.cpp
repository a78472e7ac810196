#include "tables/foreign_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "common/error.h"

namespace rowbridge::tables {

std::optional<ForeignKeyAction> ParseForeignKeyAction(std::string_view text) {
  if (text == "RESTRICT") return ForeignKeyAction::kRestrict;
  if (text == "NO ACTION") return ForeignKeyAction::kNoAction;
  if (text == "CASCADE") return ForeignKeyAction::kCascade;
  if (text == "SET NULL") return ForeignKeyAction::kSetNull;
  if (text == "SET DEFAULT") return ForeignKeyAction::kSetDefault;
  return std::nullopt;
}

const char* ForeignKeyActionName(ForeignKeyAction action) {
  switch (action) {
    case ForeignKeyAction::kRestrict:
      return "RESTRICT";
    case ForeignKeyAction::kNoAction:
      return "NO ACTION";
    case ForeignKeyAction::kCascade:
      return "CASCADE";
    case ForeignKeyAction::kSetNull:
      return "SET NULL";
    case ForeignKeyAction::kSetDefault:
      break;
  }
  return "SET DEFAULT";
}

bool ChangesChildren(ForeignKeyAction action) {
  return action == ForeignKeyAction::kCascade || action == ForeignKeyAction::kSetNull ||
         action == ForeignKeyAction::kSetDefault;
}

bool IsCascadeIntegerKey(binlog::ColumnType type) {
  using binlog::ColumnType;
  return type == ColumnType::kTiny || type == ColumnType::kShort || type == ColumnType::kInt24 ||
         type == ColumnType::kLong || type == ColumnType::kLongLong;
}

bool IsCascadeStringKey(binlog::ColumnType type) {
  using binlog::ColumnType;
  return type == ColumnType::kString || type == ColumnType::kVarchar ||
         type == ColumnType::kVarString;
}

std::string ForeignKey::Describe() const {
  return fmt::format("{}({}) -> {}({}) ON DELETE {} ON UPDATE {}", child.ToString(),
                     fmt::join(child_columns, ", "), parent.ToString(),
                     fmt::join(parent_columns, ", "), ForeignKeyActionName(on_delete),
                     ForeignKeyActionName(on_update));
}

std::vector<ForeignKey> ForeignKeysFromRows(std::vector<ForeignKeyColumnRow> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const ForeignKeyColumnRow& a, const ForeignKeyColumnRow& b) {
              return std::tie(a.child_database, a.child_table, a.constraint_name, a.position) <
                     std::tie(b.child_database, b.child_table, b.constraint_name, b.position);
            });
  std::vector<ForeignKey> keys;
  for (const ForeignKeyColumnRow& row : rows) {
    const SourceTableName child{row.child_database, row.child_table};
    if (keys.empty() || keys.back().child != child || keys.back().name != row.constraint_name) {
      ForeignKey key;
      key.child = child;
      key.name = row.constraint_name;
      key.parent = {row.parent_database, row.parent_table};
      const auto on_delete = ParseForeignKeyAction(row.delete_rule);
      const auto on_update = ParseForeignKeyAction(row.update_rule);
      if (!on_delete || !on_update)
        Fail(ErrorCode::kInvalidArgument, "foreign key {} of {}: unknown rule '{}' / '{}'",
             row.constraint_name, child.ToString(), row.delete_rule, row.update_rule);
      key.on_delete = *on_delete;
      key.on_update = *on_update;
      keys.push_back(std::move(key));
    }
    keys.back().child_columns.push_back(row.child_column);
    keys.back().parent_columns.push_back(row.parent_column);
  }
  return keys;
}

ForeignKeyGraph::ForeignKeyGraph(std::vector<ForeignKey> keys) : keys_(std::move(keys)) {
  for (const ForeignKey& key : keys_) {
    if (key.cascades()) children_[key.parent].push_back(&key);
  }
}

const std::vector<const ForeignKey*>& ForeignKeyGraph::CascadingChildren(
    const SourceTableName& parent) const {
  static const std::vector<const ForeignKey*> kNone;
  auto it = children_.find(parent);
  return it == children_.end() ? kNone : it->second;
}

namespace {

// The replicated tables a cascade from `key` reaches, down the chain.
std::set<SourceTableName> Reached(const ForeignKeyGraph& graph, const ForeignKey& key,
                                  const std::set<SourceTableName>& replicated) {
  std::set<SourceTableName> out;
  std::set<const ForeignKey*> seen;
  std::vector<const ForeignKey*> todo{&key};
  while (!todo.empty()) {
    const ForeignKey* k = todo.back();
    todo.pop_back();
    if (!seen.insert(k).second) continue;
    if (replicated.count(k->child)) out.insert(k->child);
    for (const ForeignKey* next : graph.CascadingChildren(k->child)) todo.push_back(next);
  }
  return out;
}

}  // namespace

std::vector<std::string> DescribeCascadeHandling(const ForeignKeyGraph& graph,
                                                 const std::set<SourceTableName>& replicated,
                                                 bool logged, const std::string& how,
                                                 bool minimal_images) {
  std::vector<std::string> lines;
  for (const ForeignKey& key : graph.keys()) {
    if (!key.cascades()) continue;
    const std::set<SourceTableName> reached = Reached(graph, key, replicated);
    if (reached.empty() && !replicated.count(key.parent)) continue;
    std::vector<std::string> names;
    for (const SourceTableName& n : reached) names.push_back(n.ToString());
    std::string handling;
    if (logged) {
      handling = "logged by the source (" + how + ")";
    } else if (reached.empty()) {
      handling = "child not replicated, nor any table its cascades reach: nothing to do";
    } else if (!replicated.count(key.parent)) {
      handling = fmt::format(
          "cannot be exact: the parent is not replicated, so its changes are not read and the "
          "cascades into {} are lost; fix: replicate {} too",
          fmt::join(names, ", "), key.parent.ToString());
    } else {
      handling = replicated.count(key.child)
                     ? "repaired by rowbridge (" + how + ")"
                     : fmt::format(
                           "child not replicated; its cascades into {} are repaired by "
                           "rowbridge ({})",
                           fmt::join(names, ", "), how);
      if (minimal_images) {
        handling +=
            "; with binlog_row_image=MINIMAL a parent change whose before image lacks the "
            "referenced columns stops the tables it reaches";
      }
    }
    lines.push_back(key.Describe() + ": " + handling);
  }
  return lines;
}

}  // namespace rowbridge::tables
