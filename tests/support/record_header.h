// The header line of a record in the data-driven tests' files (tests/data/ddl/*.test,
// tests/data/schema_changes/*.test): words separated by blanks, the first the record's kind, the
// others flags (`word`) and options (`key=value`).
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace rowbridge::testing {

inline std::vector<std::string> HeaderWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

// The value of `key=value` in `header`, or `fallback`.
inline std::string HeaderOption(const std::vector<std::string>& header, const std::string& key,
                                const std::string& fallback = "") {
  for (const std::string& w : header) {
    if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
  }
  return fallback;
}

// Whether `header` holds the word `key`.
inline bool HeaderFlag(const std::vector<std::string>& header, const std::string& key) {
  return std::find(header.begin(), header.end(), key) != header.end();
}

}  // namespace rowbridge::testing
