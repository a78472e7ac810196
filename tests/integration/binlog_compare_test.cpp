// rowbridge must decode every row event exactly as MariaDB's own mariadb-binlog does. For each SQL
// case in tests/data/binlog_cases/ and each binlog configuration below, this runs the case on a
// MariaDB of its own (the configurations are server-wide, so not on the shared server), gives the
// case its own binlog file, and compares the `###` lines of
//     mariadb-binlog --base64-output=decode-rows -v FILE
//     rowbridge dump-binlog --format=mysqlbinlog FILE
// byte for byte. A new case is a new .sql file: a few statements that create tables in the current
// database and change rows. ROWBRIDGE_BINLOG_CASES=a,b limits a run to some cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/bytes.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "support/test_servers.h"

#ifndef ROWBRIDGE_BINARY
#error "ROWBRIDGE_BINARY (the path of the rowbridge executable) must be defined by CMake"
#endif

namespace rowbridge::testing {
namespace {

struct BinlogCase {
  std::string name;
  std::string sql;
};

std::vector<std::string> SelectedCaseNames() {
  std::vector<std::string> names;
  if (const char* env = std::getenv("ROWBRIDGE_BINLOG_CASES")) {
    std::stringstream list(env);
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) names.push_back(name);
    }
  }
  return names;
}

std::vector<BinlogCase> LoadCases() {
  const auto dir = TestDataDir() / "binlog_cases";
  const auto selected = SelectedCaseNames();
  std::vector<BinlogCase> cases;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".sql") continue;
    BinlogCase c;
    c.name = entry.path().stem().string();
    if (!selected.empty() &&
        std::find(selected.begin(), selected.end(), c.name) == selected.end()) {
      continue;
    }
    c.sql = ReadFile(entry.path());
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const BinlogCase& a, const BinlogCase& b) { return a.name < b.name; });
  return cases;
}

bool IsPlainName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

// Whether the last statement is terminated, so that appending another one cannot merge with it.
bool EndsWithSemicolon(const std::string& sql) {
  size_t end = sql.find_last_not_of(" \t\r\n");
  return end != std::string::npos && sql[end] == ';';
}

std::vector<std::string> RowLines(const std::string& output) {
  std::vector<std::string> lines;
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("###", 0) == 0) lines.push_back(line);
  }
  return lines;
}

// Up to `width` characters of `line` around `column`, marked where they were cut.
std::string Around(const std::string& line, size_t column, size_t width = 160) {
  const size_t start = column > width / 2 ? column - width / 2 : 0;
  std::string out = line.substr(start, width);
  if (start > 0) out = "..." + out;
  if (start + width < line.size()) out += "...(" + std::to_string(line.size()) + " chars)";
  return out;
}

struct DumpOutcome {
  bool dumper_failed = false;  // the dumper exited non-zero: nothing to compare
  std::string report;          // empty when the ### lines are identical
};

// Runs `dumper` + FILE and mariadb-binlog on the binlog file and compares their ### lines.
DumpOutcome CompareDump(const std::vector<std::string>& dumper, const std::string& file,
                        const std::string& where) {
  DumpOutcome outcome;
  std::vector<std::string> reference_argv = {"mariadb-binlog", "--no-defaults",
                                             "--base64-output=decode-rows", "-v", file};
  CommandResult reference = RunCommand(reference_argv);
  if (reference.exit_code != 0) {
    outcome.dumper_failed = true;
    outcome.report = where + ": the reference `" + CommandLine(reference_argv) + "` failed (exit " +
                     std::to_string(reference.exit_code) + "): " + reference.err;
    return outcome;
  }
  const std::vector<std::string> expected = RowLines(reference.out);
  if (expected.empty()) {
    outcome.dumper_failed = true;
    outcome.report = where + ": mariadb-binlog printed no ### lines for " + file +
                     "; the case changes no rows or the binlog is not the case's";
    return outcome;
  }

  std::vector<std::string> argv = dumper;
  argv.push_back(file);
  CommandResult ours = RunCommand(argv);
  if (ours.exit_code != 0) {
    outcome.dumper_failed = true;
    outcome.report = where + ": `" + CommandLine(argv) + "` failed (exit " +
                     std::to_string(ours.exit_code) + "):\n" + ours.err.substr(0, 4000);
    return outcome;
  }
  const std::vector<std::string> actual = RowLines(ours.out);
  if (actual == expected) return outcome;

  size_t line = 0;
  while (line < expected.size() && line < actual.size() && expected[line] == actual[line]) ++line;
  std::string context = "(none)";
  for (size_t i = std::min(line + 1, expected.size()); i-- > 0;) {
    if (expected[i].rfind("### INSERT", 0) == 0 || expected[i].rfind("### UPDATE", 0) == 0 ||
        expected[i].rfind("### DELETE", 0) == 0) {
      context = expected[i] + "  (line " + std::to_string(i + 1) + ")";
      break;
    }
  }
  std::ostringstream report;
  report << where << ": `" << CommandLine(argv) << "` differs from mariadb-binlog at ### line "
         << line + 1 << " (mariadb-binlog printed " << expected.size() << " ### lines, rowbridge "
         << actual.size() << ")\n  in statement:   " << context << "\n";
  if (line < expected.size() && line < actual.size()) {
    const std::string& want = expected[line];
    const std::string& got = actual[line];
    size_t column = 0;
    while (column < want.size() && column < got.size() && want[column] == got[column]) ++column;
    report << "  first difference at column " << column + 1 << "\n"
           << "  mariadb-binlog: " << Around(want, column) << "\n"
           << "  rowbridge:      " << Around(got, column) << "\n";
  } else if (line < expected.size()) {
    report << "  rowbridge stopped early; mariadb-binlog goes on with: "
           << Around(expected[line], 0) << "\n";
  } else {
    report << "  rowbridge printed more, starting with: " << Around(actual[line], 0) << "\n";
  }
  outcome.report = report.str();
  return outcome;
}

// Runs cases on a server so that each has a binlog file of its own: one client call per case runs
// the case, rotates the binlog (which also closes the case's file, so it is complete when read) and
// asks for the name of the next file.
class CaseRunner {
 public:
  explicit CaseRunner(const ScopedMariaDb& server) : server_(server) {
    file_ = FileFromStatus(server_.Sql("FLUSH BINARY LOGS;\nSHOW MASTER STATUS;"));
  }

  // Returns the path of the binlog file holding exactly this case's events.
  std::string Run(const BinlogCase& c) {
    const std::string db = "bc_" + c.name;
    const std::string file = file_;
    file_ = FileFromStatus(server_.Sql("DROP DATABASE IF EXISTS `" + db + "`;\nCREATE DATABASE `" +
                                       db + "`;\nUSE `" + db + "`;\n" + c.sql +
                                       "\nFLUSH BINARY LOGS;\nSHOW MASTER STATUS;"));
    return server_.address().datadir + "/" + file;
  }

 private:
  static std::string FileFromStatus(const std::string& status) {
    const size_t start = status.rfind("mysql-bin.");
    if (start == std::string::npos) {
      throw std::runtime_error("SHOW MASTER STATUS printed no binlog file name: " + status);
    }
    return status.substr(start, status.find('\t', start) - start);
  }

  const ScopedMariaDb& server_;
  std::string file_;
};

const std::vector<std::string> kRowbridgeDump = {ROWBRIDGE_BINARY, "dump-binlog",
                                                 "--format=mysqlbinlog"};
const std::vector<std::string> kReferenceDump = {"mariadb-binlog", "--no-defaults",
                                                 "--base64-output=decode-rows", "-v"};

std::string Describe(const std::vector<std::string>& options) {
  std::string text;
  for (const auto& option : options) text += (text.empty() ? "" : " ") + option;
  return text.empty() ? "default binlog settings" : text;
}

// Runs every case on a server started with `options` and compares each case's binlog.
void CompareAllCases(const std::vector<std::string>& options) {
  const auto cases = LoadCases();
  ASSERT_FALSE(cases.empty()) << "no cases in " << (TestDataDir() / "binlog_cases");
  ScopedMariaDb server(options);
  CaseRunner runner(server);
  int identical = 0;
  for (const BinlogCase& c : cases) {
    const std::string where = "case `" + c.name + "` with " + Describe(options);
    const std::string file = runner.Run(c);
    DumpOutcome outcome = CompareDump(kRowbridgeDump, file, where);
    // A dumper that cannot run at all fails the same way on every case: report it once.
    if (outcome.dumper_failed) FAIL() << outcome.report;
    if (!outcome.report.empty()) {
      ADD_FAILURE() << outcome.report;
    } else {
      ++identical;
    }
  }
  std::printf("%d of %zu cases identical with %s\n", identical, cases.size(),
              Describe(options).c_str());
}

// Every combination of row image and row metadata, and the event-level variations: no
// checksums, compressed events, and all of them at once.
TEST(BinlogCompareMariaDbOnly, ImageFullMetadataNoLog) {
  CompareAllCases({"--binlog-row-image=FULL", "--binlog-row-metadata=NO_LOG"});
}
TEST(BinlogCompareMariaDbOnly, ImageFullMetadataMinimal) {
  CompareAllCases({"--binlog-row-image=FULL", "--binlog-row-metadata=MINIMAL"});
}
TEST(BinlogCompareMariaDbOnly, ImageFullMetadataFull) {
  CompareAllCases({"--binlog-row-image=FULL", "--binlog-row-metadata=FULL"});
}
TEST(BinlogCompareMariaDbOnly, ImageMinimalMetadataNoLog) {
  CompareAllCases({"--binlog-row-image=MINIMAL", "--binlog-row-metadata=NO_LOG"});
}
TEST(BinlogCompareMariaDbOnly, ImageMinimalMetadataMinimal) {
  CompareAllCases({"--binlog-row-image=MINIMAL", "--binlog-row-metadata=MINIMAL"});
}
TEST(BinlogCompareMariaDbOnly, ImageMinimalMetadataFull) {
  CompareAllCases({"--binlog-row-image=MINIMAL", "--binlog-row-metadata=FULL"});
}
TEST(BinlogCompareMariaDbOnly, ImageNoblobMetadataNoLog) {
  CompareAllCases({"--binlog-row-image=NOBLOB", "--binlog-row-metadata=NO_LOG"});
}
TEST(BinlogCompareMariaDbOnly, ImageNoblobMetadataMinimal) {
  CompareAllCases({"--binlog-row-image=NOBLOB", "--binlog-row-metadata=MINIMAL"});
}
TEST(BinlogCompareMariaDbOnly, ImageNoblobMetadataFull) {
  CompareAllCases({"--binlog-row-image=NOBLOB", "--binlog-row-metadata=FULL"});
}
TEST(BinlogCompareMariaDbOnly, ChecksumNone) {
  CompareAllCases({"--binlog-checksum=NONE"});
}
TEST(BinlogCompareMariaDbOnly, Compressed) {
  CompareAllCases({"--log-bin-compress=ON", "--log-bin-compress-min-len=10"});
}
TEST(BinlogCompareMariaDbOnly, CompressedNoChecksumMinimalImageFullMetadata) {
  CompareAllCases({"--log-bin-compress=ON", "--log-bin-compress-min-len=10",
                   "--binlog-checksum=NONE", "--binlog-row-image=MINIMAL",
                   "--binlog-row-metadata=FULL"});
}

// The comparison itself: every case yields rows in mariadb-binlog, an identical dump passes, and
// a dumper that prints nothing, prints something else, or fails is caught.
TEST(BinlogCompareDriverMariaDbOnly, CatchesEveryKindOfDifference) {
  const auto cases = LoadCases();
  ASSERT_FALSE(cases.empty());
  for (const BinlogCase& c : cases) {
    EXPECT_TRUE(IsPlainName(c.name)) << "case file names must be [a-z0-9_]+: " << c.name;
    EXPECT_TRUE(EndsWithSemicolon(c.sql)) << "case " << c.name << ": end the last statement with ;";
  }
  ScopedMariaDb server;
  CaseRunner runner(server);
  for (const BinlogCase& c : cases) {
    const std::string file = runner.Run(c);
    const std::string where = "case `" + c.name + "`";
    DumpOutcome same = CompareDump(kReferenceDump, file, where);
    EXPECT_FALSE(same.dumper_failed) << same.report;
    EXPECT_EQ(same.report, "") << "mariadb-binlog compared with itself";

    DumpOutcome silent = CompareDump({"true"}, file, where);
    EXPECT_FALSE(silent.dumper_failed);
    EXPECT_NE(silent.report.find("rowbridge stopped early"), std::string::npos) << silent.report;

    DumpOutcome failing = CompareDump({"false"}, file, where);
    EXPECT_TRUE(failing.dumper_failed);
    EXPECT_NE(failing.report.find("failed (exit 1)"), std::string::npos) << failing.report;
  }

  // One changed character in the middle of the output.
  const std::string file = runner.Run(cases.front());
  DumpOutcome changed =
      CompareDump({"sh", "-c",
                   "mariadb-binlog --no-defaults --base64-output=decode-rows -v \"$0\" | "
                   "awk '/^###/ { n++; if (n == 3) { sub(/=/, \"=~\") } } { print }'"},
                  file, "case `" + cases.front().name + "`");
  EXPECT_FALSE(changed.dumper_failed) << changed.report;
  EXPECT_NE(changed.report.find("at ### line 3 "), std::string::npos) << changed.report;
  EXPECT_NE(changed.report.find("rowbridge:      ###"), std::string::npos) << changed.report;

  // The real binary, with a command it may not have: it must fail, never pass silently.
  DumpOutcome unknown =
      CompareDump({ROWBRIDGE_BINARY, "no-such-command-for-sure"}, file, "unknown command");
  EXPECT_TRUE(unknown.dumper_failed) << unknown.report;
}

}  // namespace
}  // namespace rowbridge::testing
