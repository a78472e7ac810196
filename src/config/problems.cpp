#include "config/problems.h"

#include <algorithm>

#include "common/error.h"

namespace rowbridge::config {

std::string Problem::Render(std::string_view source_name) const {
  std::string where =
      line > 0 ? fmt::format("{}:{}:{}", source_name, line, column) : std::string(source_name);
  if (path.empty()) return fmt::format("{}: {}", where, message);
  return fmt::format("{}: {}: {}", where, path, message);
}

void Problems::Add(int line, int column, std::string path, std::string message) {
  problems_.push_back({line, column, std::move(path), std::move(message)});
}

std::vector<Problem> Problems::Sorted() const {
  std::vector<Problem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  return sorted;
}

void Problems::Throw(std::string_view source_name) const {
  std::vector<Problem> sorted = Sorted();
  std::string message = fmt::format("{}: {} configuration problem{}:", source_name, sorted.size(),
                                    sorted.size() == 1 ? "" : "s");
  for (const Problem& problem : sorted) {
    message += "\n  ";
    message += problem.Render(source_name);
  }
  throw Error(ErrorCode::kConfig, message);
}

}  // namespace rowbridge::config
