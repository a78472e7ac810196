#include "config/table_matcher.h"

namespace rowbridge::config {
namespace {

// Bounds memory on sources with very many (e.g. generated) tables; decisions are cheap to redo.
constexpr size_t kMaxCachedDecisions = 1 << 20;

}  // namespace

TableMatcher::TableMatcher(const std::vector<TableRule>& rules) {
  for (size_t i = 0; i < rules.size(); ++i) {
    for (const TablePattern& pattern : rules[i].patterns) {
      patterns_.emplace_back(static_cast<int>(i), pattern);
      if (pattern.db().HasWildcards()) {
        all_databases_literal_ = false;
      } else {
        databases_.insert(pattern.db().ToLiteral());
      }
    }
  }
}

int TableMatcher::MatchUncached(std::string_view db, std::string_view table) const {
  for (const auto& [rule, pattern] : patterns_) {
    if (pattern.Matches(db, table)) return rule;
  }
  return kNoRule;
}

int TableMatcher::Match(std::string_view db, std::string_view table) {
  if (all_databases_literal_) {
    key_.assign(db);
    if (databases_.find(key_) == databases_.end()) return kNoRule;
  }
  // MySQL names cannot contain NUL, so it separates the parts unambiguously.
  key_.assign(db);
  key_.push_back('\0');
  key_.append(table);
  auto it = cache_.find(key_);
  if (it != cache_.end()) return it->second;
  int rule = MatchUncached(db, table);
  if (cache_.size() >= kMaxCachedDecisions) cache_.clear();
  cache_.emplace(key_, rule);
  return rule;
}

}  // namespace rowbridge::config
