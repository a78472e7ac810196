#include "config/table_matcher.h"

#include <fmt/format.h>

namespace rowbridge::config {
namespace {

// Bounds memory on sources with very many (e.g. generated) tables; decisions are cheap to redo.
constexpr size_t kMaxCachedDecisions = 1 << 20;

}  // namespace

TableMatcher::TableMatcher(const std::vector<TableRule>& rules) {
  for (size_t i = 0; i < rules.size(); ++i) {
    excludes_.push_back(rules[i].exclude_patterns);
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

bool TableMatcher::Excluded(int rule, std::string_view db, std::string_view table) const {
  for (const TablePattern& pattern : excludes_[static_cast<size_t>(rule)]) {
    if (pattern.Matches(db, table)) return true;
  }
  return false;
}

int TableMatcher::MatchUncached(std::string_view db, std::string_view table) const {
  for (const auto& [rule, pattern] : patterns_) {
    if (pattern.Matches(db, table) && !Excluded(rule, db, table)) return rule;
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

std::vector<std::string> RulesMatchingNothing(
    const std::vector<TableRule>& rules,
    const std::vector<std::pair<std::string, std::string>>& tables) {
  std::vector<bool> used(rules.size(), false);
  TableMatcher matcher(rules);
  for (const auto& [db, table] : tables) {
    const int rule = matcher.Match(db, table);
    if (rule != TableMatcher::kNoRule) used[static_cast<size_t>(rule)] = true;
  }
  std::vector<std::string> warnings;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (used[i]) continue;
    const TableRule& rule = rules[i];
    std::string match;
    for (const std::string& m : rule.match) match += (match.empty() ? "" : ", ") + m;
    std::string exclude;
    for (const std::string& e : rule.exclude) exclude += (exclude.empty() ? "" : ", ") + e;
    // An earlier rule taking every table this one would match is the usual cause; say so.
    warnings.push_back(
        fmt::format("tables[{}] (line {}, match {}{}{}) matches no table of the source{}", i,
                    rule.line, match, exclude.empty() ? "" : ", exclude ", exclude,
                    i == 0 ? "" : " (or earlier rules take every table it matches)"));
  }
  return warnings;
}

}  // namespace rowbridge::config
