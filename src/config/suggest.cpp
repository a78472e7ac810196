#include "config/suggest.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace rowbridge::config {
namespace {

char Lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Optimal string alignment distance.
size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<size_t> d((n + 1) * (m + 1));
  auto at = [&](size_t i, size_t j) -> size_t& { return d[i * (m + 1) + j]; };
  for (size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(n, m);
}

bool IsSubsequence(std::string_view needle, std::string_view haystack) {
  size_t i = 0;
  for (char c : haystack) {
    if (i < needle.size() && Lower(needle[i]) == Lower(c)) ++i;
  }
  return i == needle.size();
}

}  // namespace

std::string ClosestMatch(std::string_view typo, std::span<const std::string_view> candidates) {
  // Long garbage is not a typo of anything; this also bounds the work for hostile input.
  if (typo.empty() || typo.size() > 64) return "";
  const size_t allowed = typo.size() <= 4 ? 1 : typo.size() <= 8 ? 2 : 3;
  std::string_view best;
  size_t best_distance = allowed + 1;
  for (std::string_view candidate : candidates) {
    size_t distance = EditDistance(typo, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) return std::string(best);
  // Abbreviations ("lvl" for level, "cols" for columns) are far in edit distance but keep the
  // letters in order.
  for (std::string_view candidate : candidates) {
    if (typo.size() < 3 || typo.size() * 2 < candidate.size()) continue;
    if (IsSubsequence(typo, candidate) && (best.empty() || candidate.size() < best.size())) {
      best = candidate;
    }
  }
  return std::string(best);
}

}  // namespace rowbridge::config
