// Data-driven DDL tests, in the spirit of sqllogictest / DuckDB's .test files. Every file in
// tests/data/ddl/*.test is a sequence of records separated by blank lines:
//
//   # a comment line (between records)
//   flavor mariadb                      (optional, first: the server flavor, default mysql)
//
//   parse [db=<default database>] [ansi_quotes] [no_backslash_escapes]
//   <SQL, any number of lines>
//   ----
//   <expected DescribeStatement() output>
//
//   apply [db=<default database>] [collation_server=<id>]
//   <SQL>
//   ----
//   <one block per changed table: "<kind> db.t [from db.u]" and DescribeTable() or "unknown">
//
//   error [db=...]
//   <SQL>
//   ----
//   <a substring the Error's message must contain>
//
//   schema db.t [at=<statement number>]
//   ----
//   <DescribeTable() of the version valid after that apply record, "absent", "unknown" or "none">
//
// apply records run against one SchemaHistory per file; the N-th apply record (from 1) is at
// binlog position binlog.000001:N*100, so "schema t at=N" asks for the schema valid there. At
// the end of a file the history must survive a JSON round trip unchanged.
//
// ROWBRIDGE_DDL_REWRITE=1 rewrites the expected blocks with the actual output (then read the
// diff before committing it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "schema/ddl_describe.h"
#include "schema/ddl_parser.h"
#include "schema/schema_history.h"
#include "support/record_header.h"

namespace rowbridge::schema {
namespace {

struct Record {
  size_t line = 0;
  std::vector<std::string> header;  // words of the first line
  std::string sql;
  std::string expected;
  // Raw lines, for rewriting.
  std::vector<std::string> head_lines;
};

BinlogPosition PositionOf(size_t statement) {
  return {"binlog.000001", statement * 100};
}

std::string DescribeVersion(const SchemaVersion* v) {
  if (v == nullptr) return "none\n";
  if (v->state == TableState::kAbsent) return "absent\n";
  if (v->state == TableState::kUnknown) return "unknown\n";
  return DescribeTable(v->schema);
}

TableRef ParseRef(const std::string& text) {
  const size_t dot = text.find('.');
  return {text.substr(0, dot), text.substr(dot + 1)};
}

class CorpusFile {
 public:
  explicit CorpusFile(std::filesystem::path path) : path_(std::move(path)) {}

  void Run() {
    Read();
    CatalogOptions options;
    if (flavor_ == "mariadb") options.flavor = ServerFlavor::kMariadb;
    SchemaHistory history(options);
    size_t applied = 0;
    for (Record& r : records_) {
      const std::string actual = Evaluate(r, history, applied);
      if (rewrite_) {
        r.expected = actual;
      } else if (r.header[0] == "error") {
        EXPECT_NE(actual.find(r.expected.substr(0, r.expected.size() - 1)), std::string::npos)
            << path_.filename().string() << ":" << r.line << "\n"
            << r.sql << "\nexpected an error containing: " << r.expected << "got: " << actual;
      } else {
        EXPECT_EQ(r.expected, actual) << path_.filename().string() << ":" << r.line << "\n"
                                      << r.sql;
      }
    }
    const std::string json = history.ToJson();
    const SchemaHistory copy = SchemaHistory::FromJson(json, path_.string());
    EXPECT_EQ(json, copy.ToJson()) << path_;
    for (const TableRef& t : history.catalog().Tables()) {
      const TableSchema* a = history.catalog().Find(t);
      const TableSchema* b = copy.catalog().Find(t);
      ASSERT_EQ(a == nullptr, b == nullptr) << t.database << "." << t.table;
      if (a) {
        EXPECT_TRUE(*a == *b) << t.database << "." << t.table;
      }
    }
    if (rewrite_) Write();
  }

 private:
  std::string Evaluate(const Record& r, SchemaHistory& history, size_t& applied) {
    const std::string& kind = r.header[0];
    const std::string db = testing::HeaderOption(r.header, "db");
    ParseOptions parse;
    parse.default_database = db;
    parse.ansi_quotes = testing::HeaderFlag(r.header, "ansi_quotes");
    parse.no_backslash_escapes = testing::HeaderFlag(r.header, "no_backslash_escapes");
    if (kind == "parse") {
      try {
        return DescribeStatement(ParseDdl(r.sql, parse));
      } catch (const Error& e) {
        return std::string("error: ") + e.what() + "\n";
      }
    }
    if (kind == "error") {
      try {
        ParseOptions p = parse;
        const DdlStatement s = ParseDdl(r.sql, p);
        StatementContext context;
        history.Apply(s, context, PositionOf(++applied));
        return "no error:\n" + DescribeStatement(s);
      } catch (const Error& e) {
        return std::string(e.what()) + "\n";
      }
    }
    if (kind == "apply") {
      StatementContext context;
      context.collation_server = static_cast<uint32_t>(
          std::stoul(testing::HeaderOption(r.header, "collation_server", "45")));
      try {
        const DdlOutcome outcome = history.ApplyDdl(r.sql, parse, context, PositionOf(++applied));
        std::string out;
        for (const TableChange& c : outcome.changes) {
          out += std::string(TableChangeKindName(c.kind)) + " " + c.table.database + "." +
                 c.table.table;
          if (c.from) out += " from " + c.from->database + "." + c.from->table;
          out += "\n";
          if (c.kind == TableChange::Kind::kCreated || c.kind == TableChange::Kind::kAltered ||
              c.kind == TableChange::Kind::kRenamed) {
            out += c.schema ? DescribeTable(*c.schema) : "unknown\n";
          }
        }
        if (out.empty()) out = "no change\n";
        return out;
      } catch (const Error& e) {
        return std::string("error: ") + e.what() + "\n";
      }
    }
    if (kind == "schema") {
      const TableRef table = ParseRef(r.header.at(1));
      const std::string at = testing::HeaderOption(r.header, "at");
      if (at.empty()) return DescribeVersion(history.Latest(table));
      return DescribeVersion(history.SchemaAt(table, PositionOf(std::stoul(at))));
    }
    ADD_FAILURE() << path_ << ":" << r.line << ": unknown record kind " << kind;
    return "";
  }

  void Read() {
    std::ifstream in(path_);
    ASSERT_TRUE(in) << path_;
    std::string line;
    size_t number = 0;
    enum { kBetween, kSql, kExpected } state = kBetween;
    Record current;
    auto finish = [&] {
      if (state != kBetween) records_.push_back(current);
      current = Record{};
      state = kBetween;
    };
    while (std::getline(in, line)) {
      ++number;
      if (state == kBetween) {
        if (line.empty() || line[0] == '#') {
          preamble_.push_back(line);
          preamble_at_.push_back(records_.size());
          continue;
        }
        std::vector<std::string> words = testing::HeaderWords(line);
        if (words[0] == "flavor") {
          flavor_ = words.at(1);
          preamble_.push_back(line);
          preamble_at_.push_back(records_.size());
          continue;
        }
        current.line = number;
        current.header = words;
        current.head_lines.push_back(line);
        state = kSql;
        continue;
      }
      if (state == kSql) {
        if (line == "----") {
          state = kExpected;
          continue;
        }
        current.sql += (current.sql.empty() ? "" : "\n") + line;
        continue;
      }
      if (line.empty()) {
        finish();
        preamble_.push_back(line);
        preamble_at_.push_back(records_.size());
        continue;
      }
      current.expected += line + "\n";
    }
    finish();
  }

  void Write() {
    std::ofstream out(path_);
    size_t p = 0;
    for (size_t i = 0; i <= records_.size(); ++i) {
      while (p < preamble_.size() && preamble_at_[p] == i) out << preamble_[p++] << "\n";
      if (i == records_.size()) break;
      const Record& r = records_[i];
      out << r.head_lines[0] << "\n";
      if (!r.sql.empty()) out << r.sql << "\n";
      out << "----\n" << r.expected;
    }
  }

  std::filesystem::path path_;
  std::string flavor_ = "mysql";
  std::vector<Record> records_;
  std::vector<std::string> preamble_;
  std::vector<size_t> preamble_at_;
  bool rewrite_ = std::getenv("ROWBRIDGE_DDL_REWRITE") != nullptr;
};

std::vector<std::filesystem::path> CorpusFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ROWBRIDGE_SOURCE_DIR) + "/tests/data/ddl")) {
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class DdlCorpus : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(DdlCorpus, MatchesExpectations) {
  CorpusFile(GetParam()).Run();
}

INSTANTIATE_TEST_SUITE_P(Files, DdlCorpus, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace rowbridge::schema
