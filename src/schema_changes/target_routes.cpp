#include "schema_changes/target_routes.h"

#include <algorithm>

namespace rowbridge::schema_changes {

std::vector<std::string> TargetRoutes::RenamesAfter(const std::string& label,
                                                    const schema::BinlogPosition& at) const {
  std::vector<std::string> path;
  std::string current = label;
  for (const state::TargetRename& r : renames_) {
    if (!(at < schema::BinlogPosition{r.file, r.position})) continue;
    if (r.from != current) continue;
    current = r.to;
    path.push_back(current);
  }
  return path;
}

bool TargetRoutes::RenamedToLater(const std::string& label,
                                  const schema::BinlogPosition& at) const {
  return std::any_of(renames_.begin(), renames_.end(), [&](const state::TargetRename& r) {
    return r.to == label && at < schema::BinlogPosition{r.file, r.position};
  });
}

const state::TargetAlias* TargetRoutes::AliasAt(const std::string& table,
                                                const schema::BinlogPosition& at) const {
  for (const state::TargetAlias& a : aliases_) {
    if (a.table != table || at < schema::BinlogPosition{a.file, a.position}) continue;
    if (!a.until_file.empty() && !(at < schema::BinlogPosition{a.until_file, a.until_position}))
      continue;
    return &a;
  }
  return nullptr;
}

void TargetRoutes::AddRename(const state::TargetRename& rename) {
  // Once: a replay that makes a rename recorded before a crash must not append it again, since
  // RenamesAfter follows the records in their order (a swap's a -> a_del, a_gho -> a, with a
  // second a -> a_del after them, sent a_gho's rows into a_del).
  if (std::none_of(renames_.begin(), renames_.end(),
                   [&](const state::TargetRename& r) { return state::SameRename(r, rename); })) {
    renames_.push_back(rename);
  }
}

void TargetRoutes::AddAlias(const state::TargetAlias& alias) {
  if (std::none_of(aliases_.begin(), aliases_.end(), [&](const state::TargetAlias& a) {
        return a.table == alias.table && a.file == alias.file && a.position == alias.position;
      })) {
    aliases_.push_back(alias);
  }
}

std::vector<state::TargetAlias> TargetRoutes::EndAliases(const std::string& table,
                                                         const schema::BinlogPosition& at) {
  std::vector<state::TargetAlias> ended;
  for (state::TargetAlias& a : aliases_) {
    // An alias made after `at` is a later table of that name (a replay meets this end first).
    if (a.table != table || !a.until_file.empty() ||
        at < schema::BinlogPosition{a.file, a.position}) {
      continue;
    }
    a.until_file = at.file;
    a.until_position = at.offset;
    ended.push_back(a);
  }
  return ended;
}

}  // namespace rowbridge::schema_changes
