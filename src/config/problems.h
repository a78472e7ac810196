// Problems found while reading a config file. The loader keeps going after a problem so that one
// run reports every mistake; at the end all of them are thrown together as one Error(kConfig).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::config {

struct Problem {
  int line = 0;      // 1-based; 0 if unknown
  int column = 0;    // 1-based; 0 if unknown
  std::string path;  // key path: "source.port", "tables[1].meta_columns.event_type"
  std::string message;

  // "name:line:column: path: message"
  std::string Render(std::string_view source_name) const;
};

class Problems {
 public:
  void Add(int line, int column, std::string path, std::string message);
  bool empty() const { return problems_.empty(); }
  // Sorted by position; equal positions keep the order they were found in.
  std::vector<Problem> Sorted() const;

  // Throws Error(kConfig): "NAME: N configuration problem(s):" and one indented line per problem.
  [[noreturn]] void Throw(std::string_view source_name) const;

 private:
  std::vector<Problem> problems_;
};

}  // namespace rowbridge::config
