// A `db.table` pattern from a table rule's `match`.
//
// Syntax: two parts separated by one unquoted dot. In each part `*` matches any run of characters
// (also none) and `?` exactly one character (byte). Backticks quote literally, MySQL style: inside
// `...` every character is itself, including `.`, `*` and `?`, and `` stands for one backtick.
// Quoted and unquoted pieces may be mixed: `my.db`.orders_* is database "my.db", tables
// "orders_...". Matching is case-sensitive, like MySQL on Linux (lower_case_table_names=0).
//
// Rejected with Error(kInvalidArgument) and a reason: a missing or second unquoted dot, an empty
// part, an unterminated backtick, and unquoted whitespace, `[`, `]` or `%` (character classes and
// SQL LIKE wildcards are not supported; they would silently match nothing otherwise).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::config {

// One part of a pattern (database or table), compiled.
class NameGlob {
 public:
  // Symbols: 0..255 are literal bytes, kOne is `?`, kMany is `*`.
  static constexpr int16_t kOne = -1;
  static constexpr int16_t kMany = -2;

  NameGlob() = default;
  explicit NameGlob(std::vector<int16_t> symbols);

  bool Matches(std::string_view name) const;
  // True if every name this glob matches is also matched by `general`.
  bool IsCoveredBy(const NameGlob& general) const;
  // True if some name is matched by both globs.
  bool Overlaps(const NameGlob& other) const;

  bool HasWildcards() const { return !is_literal_; }
  bool MatchesEverything() const { return symbols_.size() == 1 && symbols_[0] == kMany; }
  // The name itself, for a glob without wildcards.
  const std::string& ToLiteral() const { return literal_; }
  // Canonical text: special characters quoted with backticks.
  std::string ToString() const;

 private:
  std::vector<int16_t> symbols_;
  bool is_literal_ = true;
  std::string literal_;  // the whole name when is_literal_
};

class TablePattern {
 public:
  // Throws Error(kInvalidArgument) describing what is wrong with `text`.
  static TablePattern Parse(std::string_view text);

  bool Matches(std::string_view db, std::string_view table) const {
    return db_.Matches(db) && table_.Matches(table);
  }
  bool IsCoveredBy(const TablePattern& general) const {
    return db_.IsCoveredBy(general.db_) && table_.IsCoveredBy(general.table_);
  }
  bool Overlaps(const TablePattern& other) const {
    return db_.Overlaps(other.db_) && table_.Overlaps(other.table_);
  }
  bool HasWildcards() const { return db_.HasWildcards() || table_.HasWildcards(); }

  const NameGlob& db() const { return db_; }
  const NameGlob& table() const { return table_; }
  std::string ToString() const { return db_.ToString() + "." + table_.ToString(); }

 private:
  NameGlob db_;
  NameGlob table_;
};

}  // namespace rowbridge::config
