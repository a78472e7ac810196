// The admin server's web status page (src/server/web/) in a real headless browser, Debian's
// chromium, against a real `rowbridge run`: the rendered DOM shows each table (names escaped, so a
// name with '<' and quotes stays text), the source position and lag, changes under load, and
// shows a stopped table with its reason. A screenshot is kept in the build directory
// (web-status-page.png), the one docs/images/status-page.png was taken from.
//
// Without chromium the test fails, never skips: CI installs it (scripts/install-deps.sh).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/subprocess.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

// A table name that breaks any page that builds HTML from strings.
constexpr const char* kHostileTable = "o<b>\"q'&";
// The same as the DOM serializes it in text.
constexpr const char* kHostileTableText = "o&lt;b&gt;\"q'&amp;";

class WebStatusPageTest : public PipelineFixture {
 protected:
  WebStatusPageTest() : PipelineFixture("rbw") {}

  void Sql(const std::string& sql) { RunMysqlSql(mysql_, "USE `" + source_db_ + "`; " + sql); }

  // The page as chromium renders it after `budget` of (virtual) time: scripts ran, polls were
  // answered.
  std::string DumpDom(uint16_t port, std::chrono::milliseconds budget = 4000ms) {
    return Chromium({fmt::format("--virtual-time-budget={}", budget.count()), "--dump-dom",
                     fmt::format("http://127.0.0.1:{}/", port)})
        .out;
  }

  CommandResult Chromium(std::vector<std::string> args) {
    // Its own profile, so parallel tests do not share one (a profile is locked by its browser).
    std::vector<std::string> argv = {"chromium",
                                     "--headless",
                                     "--disable-gpu",
                                     "--no-sandbox",
                                     "--no-first-run",
                                     "--disable-dev-shm-usage",
                                     "--user-data-dir=" + (dir_->path() / "chromium").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult result;
    try {
      result = RunCommand(argv, {}, 120s);
    } catch (const Error& e) {
      ADD_FAILURE() << "cannot run chromium (" << e.what()
                    << "); the browser test needs Debian's chromium package: bash "
                       "scripts/install-deps.sh installs it";
      return {};
    }
    EXPECT_EQ(result.exit_code, 0) << CommandLine(argv) << "\n" << result.err;
    return result;
  }

  std::unique_ptr<TestDir> dir_;
};

// The text of the element with `id`, or "" if the DOM has none.
std::string TextOf(const std::string& dom, const std::string& id) {
  std::smatch m;
  const std::regex pattern("id=\"" + id + "\"[^>]*>([^<]*)<");
  return std::regex_search(dom, m, pattern) ? m[1].str() : "";
}

// The row of source table `label` (its <tr data-table=...> up to </tr>), or "".
std::string RowOf(const std::string& dom, const std::string& label) {
  const size_t at = dom.find("<tr data-table=\"" + label + "\"");
  if (at == std::string::npos) return "";
  const size_t end = dom.find("</tr>", at);
  return dom.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The text of the cell with `css_class` in a row.
std::string CellOf(const std::string& row, const std::string& css_class) {
  std::smatch m;
  const std::regex pattern("<td class=\"" + css_class + "\">([^<]*)<");
  return std::regex_search(row, m, pattern) ? m[1].str() : "";
}

TEST_F(WebStatusPageTest, ShowsTablesPositionAndLagAndFollowsTheLoad) {
  {
    CommandResult version;
    try {
      version = RunCommand({"chromium", "--version"}, {}, 60s);
    } catch (const Error& e) {
      FAIL() << "chromium is not installed (" << e.what()
             << "); the browser test needs it: bash scripts/install-deps.sh installs it";
    }
    ASSERT_EQ(version.exit_code, 0) << version.err;
  }
  dir_ = std::make_unique<TestDir>("web-status-page");
  const std::string db = source_db_;
  RunMysqlSql(mysql_, "CREATE DATABASE `" + db + "`");
  Sql(
      fmt::format("CREATE TABLE orders (id INT PRIMARY KEY, v INT); "
                  "CREATE TABLE items (id INT PRIMARY KEY, v INT); "
                  "CREATE TABLE `{}` (id INT PRIMARY KEY, v INT); "
                  "INSERT INTO items VALUES (1, 1), (2, 2);",
                  kHostileTable));
  // Rows for the copy (MySQL has no seq_ tables, so a plain multi-row INSERT).
  std::string values;
  for (int i = 1; i <= 500; ++i) values += fmt::format("{}({}, {})", i > 1 ? "," : "", i, i);
  Sql("INSERT INTO orders VALUES " + values);

  PipelineConfig config = Config(fmt::format("  - match: {}.*\n    mode: replica\n", db));
  config.snapshot = true;
  RowbridgeProcess rb(dir_->path(), config);
  rb.Start();
  rb.WaitCaughtUp();
  const uint16_t port = rb.HttpPort();
  ASSERT_NE(port, 0) << rb.log();

  const std::string first = DumpDom(port);
  ASSERT_FALSE(first.empty());
  for (const char* table : {"orders", "items"}) {
    const std::string row = RowOf(first, db + "." + table);
    ASSERT_FALSE(row.empty()) << table << " is not on the page:\n" << first;
    EXPECT_EQ(CellOf(row, "name"), db + "." + table);
    EXPECT_NE(row.find(">streaming<"), std::string::npos) << row;
  }
  EXPECT_EQ(CellOf(RowOf(first, db + ".orders"), "copied num"), "500");
  // The hostile name is text in its cell, never markup.
  EXPECT_NE(first.find("<td class=\"name\">" + db + "." + kHostileTableText + "</td>"),
            std::string::npos)
      << first;
  EXPECT_EQ(first.find("o<b>"), std::string::npos) << "a table name became HTML:\n" << first;
  const std::string position = TextOf(first, "source-position");
  EXPECT_TRUE(std::regex_match(position, std::regex(R"(\S+\.[0-9]+:[0-9]+)"))) << first;
  const std::string lag = TextOf(first, "source-lag");
  EXPECT_TRUE(std::regex_match(lag, std::regex(R"([0-9.]+ s)"))) << lag;
  EXPECT_EQ(TextOf(first, "health").rfind("healthy: running", 0), 0u) << first;
  EXPECT_NE(first.find("id=\"lag-chart\""), std::string::npos);
  EXPECT_NE(first.find("data-points=\""), std::string::npos) << "no chart was drawn:\n" << first;

  // Under load the page follows: the position moves and the streamed rows grow.
  for (int batch = 0; batch < 5; ++batch) {
    std::string more;
    for (int i = 0; i < 100; ++i)
      more += fmt::format("{}({}, {})", i ? "," : "", 1000 + batch * 100 + i, i);
    Sql("INSERT INTO orders VALUES " + more + "; UPDATE items SET v = v + 1;");
  }
  rb.WaitCaughtUp();
  const std::string second = DumpDom(port);
  EXPECT_NE(TextOf(second, "source-position"), position) << second;
  EXPECT_EQ(CellOf(RowOf(second, db + ".orders"), "streamed num"), "500") << second;
  EXPECT_EQ(CellOf(RowOf(second, db + ".items"), "streamed num"), "10") << second;

  // A table the stream must stop (statement-logged DML) shows as stopped, with its reason.
  Sql("SET SESSION binlog_format = STATEMENT; UPDATE items SET v = v + 1 WHERE id = 1; "
      "SET SESSION binlog_format = ROW;");
  rb.WaitCaughtUp();
  // The screenshot waits a little longer: the charts get a second history sample.
  const std::filesystem::path screenshot =
      std::filesystem::path(ROWBRIDGE_BINARY).parent_path() / "web-status-page.png";
  std::filesystem::remove(screenshot);
  Chromium({"--virtual-time-budget=6000", "--window-size=1280,860",
            "--screenshot=" + screenshot.string(), fmt::format("http://127.0.0.1:{}/", port)});
  EXPECT_GT(std::filesystem::exists(screenshot) ? std::filesystem::file_size(screenshot) : 0,
            10000u)
      << screenshot;
  const std::string third = DumpDom(port);
  const std::string stopped = RowOf(third, db + ".items");
  EXPECT_NE(stopped.find(">stopped<"), std::string::npos) << stopped;
  EXPECT_NE(stopped.find("the source logged UPDATE as a statement"), std::string::npos) << stopped;
  EXPECT_NE(
      TextOf(third, "health").find("unhealthy: running, but table " + db + ".items is stopped"),
      std::string::npos)
      << third;
  EXPECT_NE(RowOf(third, db + ".orders").find(">streaming<"), std::string::npos);
  EXPECT_EQ(rb.Terminate(), 0);
}

}  // namespace
}  // namespace rowbridge::testing
