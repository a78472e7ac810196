// Data-driven tests of the schema-change planner (src/schema_changes/planner.h): what a DDL
// statement means for the replicated tables, decided against a catalog described in a few lines.
// A new case is a few lines in tests/data/schema_changes/*.test, not an integration test.
//
// A file is a sequence of records separated by blank lines; `#` lines between records are
// comments. One catalog per file, built by the records in order:
//
//   config                              the YAML of `tables:` (and `target:`, `source:` keys if
//   <yaml lines>                        needed; by default the source is a minimal one and the
//                                       target's database is `shop`)
//
//   history [db=<database>]             a statement applied to the schema history only (the
//   <SQL>                               source's past)
//
//   target <db.table> [changelog] [not-created]
//                                       a ClickHouse table (rowbridge created it, replica mode,
//                                       unless said)
//   table <db.table> [target=<db.table>] [stopped] [in-copy]
//                                       a table the stream has met, writing into its rules'
//                                       target unless said; its columns are the history's latest
//   copy <db.table> until=<statement number>
//                                       a table copied after the stream began: its changes before
//                                       that statement are in its copy
//   rename <db.a> -> <db.b> at=<statement number>
//   alias <db.table> -> <db.target> at=<statement number> [until=<statement number>]
//                                       the checkpoint's target renames and aliases in flight
//
//   decide [db=<database>]              the statement the source logged: for each table it
//   <SQL>                               changes, the tables met first, then the decision
//   ----                                (schema_changes::Describe), each carried out on the
//   <expected>                          catalog as the pipeline would before the next change
//
//   catalog                             the catalog now
//   ----
//   <expected>
//
// The N-th history or decide record is at binlog.000001:N*100. The catalog carries decisions out
// as the pipeline does when every server says yes (a target rename succeeds, a DROP works), and
// resolves a table met mid-stream to its alias, else its rules' target (created if missing and
// the rule allows). ROWBRIDGE_DDL_REWRITE=1 rewrites the expected blocks with the actual output
// (read the diff before committing it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "config/loader.h"
#include "config/table_matcher.h"
#include "config/target_template.h"
#include "schema_changes/planner.h"
#include "support/record_header.h"
#include "tables/replicated_table.h"
#include "unit/schema_changes/fake_catalog.h"

namespace rowbridge::schema_changes {
namespace {

struct Record {
  size_t line = 0;
  std::vector<std::string> header;
  std::vector<std::string> body;
  bool has_expected = false;
  std::string expected;
};

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

class DecisionFile {
 public:
  explicit DecisionFile(std::filesystem::path path) : path_(std::move(path)) {}

  void Run() {
    Read();
    for (Record& r : records_) {
      std::string actual;
      try {
        actual = Evaluate(r);
      } catch (const Error& e) {
        actual = std::string("error: ") + e.what() + "\n";
      }
      if (!r.has_expected) continue;
      if (rewrite_) {
        r.expected = actual;
      } else {
        EXPECT_EQ(r.expected, actual) << path_.filename().string() << ":" << r.line << "\n"
                                      << Joined(r.body);
      }
    }
    if (rewrite_) Write();
  }

 private:
  std::string Evaluate(const Record& r) {
    const std::string& kind = r.header[0];
    if (kind == "config") {
      catalog_.Configure(Joined(r.body));
    } else if (kind == "history") {
      catalog_.ApplyHistory(Joined(r.body), testing::HeaderOption(r.header, "db"), ++statements_);
    } else if (kind == "target") {
      catalog_.AddTarget(r.header.at(1), testing::HeaderFlag(r.header, "changelog"),
                         !testing::HeaderFlag(r.header, "not-created"));
    } else if (kind == "table") {
      catalog_.AddTable(r.header.at(1), testing::HeaderOption(r.header, "target"),
                        testing::HeaderFlag(r.header, "stopped"),
                        testing::HeaderFlag(r.header, "in-copy"));
    } else if (kind == "copy") {
      catalog_.AddCopy(r.header.at(1), FakeCatalog::PositionOf(
                                           std::stoul(testing::HeaderOption(r.header, "until"))));
    } else if (kind == "rename") {
      catalog_.AddRename(
          r.header.at(1), r.header.at(3),
          FakeCatalog::PositionOf(std::stoul(testing::HeaderOption(r.header, "at"))));
    } else if (kind == "alias") {
      const std::string until = testing::HeaderOption(r.header, "until");
      catalog_.AddAlias(r.header.at(1), r.header.at(3),
                        FakeCatalog::PositionOf(std::stoul(testing::HeaderOption(r.header, "at"))),
                        until.empty() ? std::optional<schema::BinlogPosition>()
                                      : FakeCatalog::PositionOf(std::stoul(until)));
    } else if (kind == "decide") {
      return catalog_.Decide(Joined(r.body), testing::HeaderOption(r.header, "db"), ++statements_);
    } else if (kind == "catalog") {
      return catalog_.Describe();
    } else {
      ADD_FAILURE() << path_ << ":" << r.line << ": unknown record kind " << kind;
    }
    return "";
  }

  void Read() {
    std::ifstream in(path_);
    ASSERT_TRUE(in) << path_;
    std::string line;
    size_t number = 0;
    bool inside = false, expected = false;
    Record current;
    auto finish = [&] {
      if (inside) records_.push_back(current);
      current = Record{};
      inside = expected = false;
    };
    while (std::getline(in, line)) {
      ++number;
      if (!inside) {
        layout_.push_back(line);
        if (line.empty() || line[0] == '#') continue;
        layout_.back() = "\x01";  // the record's place
        current.line = number;
        current.header = testing::HeaderWords(line);
        inside = true;
        continue;
      }
      if (line.empty()) {
        finish();
        layout_.push_back(line);
        continue;
      }
      if (!expected && line == "----") {
        expected = current.has_expected = true;
      } else if (expected) {
        current.expected += line + "\n";
      } else {
        current.body.push_back(line);
      }
    }
    finish();
  }

  void Write() {
    std::ifstream in(path_);
    std::vector<std::string> header_lines;
    std::string line;
    size_t number = 0, next = 0;
    while (std::getline(in, line)) {
      ++number;
      if (next < records_.size() && records_[next].line == number) {
        header_lines.push_back(line);
        ++next;
      }
    }
    std::ofstream out(path_);
    size_t record = 0;
    for (const std::string& l : layout_) {
      if (l != "\x01") {
        out << l << "\n";
        continue;
      }
      const Record& r = records_[record];
      out << header_lines[record++] << "\n";
      for (const std::string& b : r.body) out << b << "\n";
      if (r.has_expected) out << "----\n" << r.expected;
    }
  }

  std::filesystem::path path_;
  FakeCatalog catalog_;
  size_t statements_ = 0;
  std::vector<Record> records_;
  std::vector<std::string> layout_;
  bool rewrite_ = std::getenv("ROWBRIDGE_DDL_REWRITE") != nullptr;
};

std::vector<std::filesystem::path> DecisionFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ROWBRIDGE_SOURCE_DIR) +
                                                               "/tests/data/schema_changes")) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class SchemaChangeDecisions : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(SchemaChangeDecisions, MatchExpectations) {
  DecisionFile(GetParam()).Run();
}

INSTANTIATE_TEST_SUITE_P(Files, SchemaChangeDecisions, ::testing::ValuesIn(DecisionFiles()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace rowbridge::schema_changes
