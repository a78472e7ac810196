// Data-driven config tests: every tests/data/config/*.yaml is loaded, and the header comments say
// what must happen:
//
//   # env: NAME=value             variables visible to ${...} (nothing else is)
//   # expect: LINE:COL: PATH: MESSAGE   one line per problem, in file order; none = must load
//   # expect-error: MESSAGE       the whole error when it is not a problem list (YAML syntax)
//   # warn: LINE:COL: PATH: MESSAGE     the warnings, in order
//
// Messages leave out the "file.yaml:" prefix. A new case is a new file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.h"
#include "config/loader.h"
#include "support/paths.h"

namespace rowbridge::config {
namespace {

struct Case {
  std::string name;
  std::string text;
  std::map<std::string, std::string> env;
  std::vector<std::string> expect;
  std::string expect_error;
  std::vector<std::string> warn;
};

Case ReadCase(const std::filesystem::path& path) {
  Case c;
  c.name = path.filename().string();
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  c.text = buffer.str();
  std::istringstream lines(c.text);
  std::string line;
  auto after = [&](std::string_view prefix) -> std::optional<std::string> {
    if (line.rfind(prefix, 0) != 0) return std::nullopt;
    return line.substr(prefix.size());
  };
  while (std::getline(lines, line)) {
    if (auto v = after("# env: ")) {
      size_t eq = v->find('=');
      c.env[v->substr(0, eq)] = v->substr(eq + 1);
    } else if (auto v = after("# expect: ")) {
      c.expect.push_back(*v);
    } else if (auto v = after("# expect-error: ")) {
      c.expect_error = *v;
    } else if (auto v = after("# warn: ")) {
      c.warn.push_back(*v);
    }
  }
  return c;
}

std::vector<std::filesystem::path> CaseFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(rowbridge::testing::TestDataDir() / "config")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string StripName(const std::string& line, const std::string& name) {
  std::string prefix = name + ":";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

void RunCase(const Case& c) {
  LoadOptions options;
  options.env = [&](const std::string& var) -> std::optional<std::string> {
    auto it = c.env.find(var);
    if (it == c.env.end()) return std::nullopt;
    return it->second;
  };
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  try {
    ParseConfig(c.text, c.name, options);
  } catch (const Error& e) {
    ASSERT_EQ(e.code(), ErrorCode::kConfig) << e.what();
    ASSERT_TRUE(!c.expect.empty() || !c.expect_error.empty()) << "expected to load, but:\n"
                                                              << e.what();
    std::string message = e.what();
    for (const auto& [name, value] : c.env) {
      if (value.size() >= 4) {
        EXPECT_EQ(message.find(value), std::string::npos)
            << "the value of " << name << " leaked into the message:\n"
            << message;
      }
    }
    if (!c.expect_error.empty()) {
      EXPECT_EQ(StripName(message, c.name), c.expect_error);
      return;
    }
    std::istringstream lines(message);
    std::string header;
    std::getline(lines, header);
    EXPECT_EQ(header, fmt::format("{}: {} configuration problem{}:", c.name, c.expect.size(),
                                  c.expect.size() == 1 ? "" : "s"));
    std::vector<std::string> got;
    std::string line;
    while (std::getline(lines, line)) {
      EXPECT_EQ(line.rfind("  ", 0), 0u) << line;
      got.push_back(StripName(line.substr(2), c.name));
    }
    EXPECT_EQ(got, c.expect) << "full message:\n" << message;
    return;
  }
  EXPECT_TRUE(c.expect.empty() && c.expect_error.empty())
      << "loaded, but expected:\n"
      << (c.expect.empty() ? c.expect_error : fmt::format("{}", fmt::join(c.expect, "\n")));
  std::vector<std::string> stripped;
  for (const auto& w : warnings) stripped.push_back(StripName(w, c.name));
  EXPECT_EQ(stripped, c.warn);
}

TEST(ConfigFiles, EveryCase) {
  std::vector<std::filesystem::path> files = CaseFiles();
  ASSERT_GE(files.size(), 10u) << "test data missing from " << rowbridge::testing::TestDataDir();
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    RunCase(ReadCase(file));
  }
}

}  // namespace
}  // namespace rowbridge::config
