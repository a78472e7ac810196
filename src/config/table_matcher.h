// Decides which table rule applies to a source table: the FIRST rule (in file order) with a
// pattern that matches `db.table` and no exclude pattern that does, or none. The loader rejects
// rules that an earlier rule covers completely, so order only matters where patterns overlap partly
// (e.g. `shop.*` and `*.orders`: shop.orders follows whichever comes first).
//
// Decisions are cached per (db, table), so a table is matched against the patterns once; the
// binlog names the table of every row event, and most tables of a busy source are usually not
// replicated. Not thread-safe: use one matcher per thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/config.h"

namespace rowbridge::config {

class TableMatcher {
 public:
  static constexpr int kNoRule = -1;

  explicit TableMatcher(const std::vector<TableRule>& rules);

  // Index into the rules given to the constructor, or kNoRule.
  int Match(std::string_view db, std::string_view table);

  size_t cached_decisions() const { return cache_.size(); }

 private:
  int MatchUncached(std::string_view db, std::string_view table) const;

  bool Excluded(int rule, std::string_view db, std::string_view table) const;

  std::vector<std::vector<TablePattern>> excludes_;  // exclude patterns by rule index
  // rule index of each pattern, in rule order
  std::vector<std::pair<int, TablePattern>> patterns_;
  // When every pattern names its database literally, other databases are rejected with one
  // lookup and no caching.
  bool all_databases_literal_ = true;
  std::unordered_set<std::string> databases_;
  std::unordered_map<std::string, int> cache_;
  std::string key_;  // reused to build cache keys without allocating
};

// One warning per rule that matches none of `tables` (db, table), naming the rule, its line and
// patterns: a rule matching nothing is usually a typo or a table that is not there yet.
std::vector<std::string> RulesMatchingNothing(
    const std::vector<TableRule>& rules,
    const std::vector<std::pair<std::string, std::string>>& tables);

}  // namespace rowbridge::config
