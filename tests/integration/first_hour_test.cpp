// The stumbles of a first hour with rowbridge (issue 18, item 6), on real servers: rules that
// leave tables out (`exclude`) and rules matching nothing; dates before 1970 under the default
// out-of-range policy and under clamp; what validate must refuse because run would fail (a
// read-only ClickHouse user, a table the copy cannot chunk); JSON log lines with their table and
// position as fields.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "integration/pipeline_fixture.h"
#include "integration/pipeline_harness.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

using namespace std::chrono_literals;

class FirstHourTest : public PipelineFixture {
 protected:
  FirstHourTest() : PipelineFixture("rbf") {}

  std::string TargetTables() {
    return Ch(fmt::format(
        "SELECT arrayStringConcat(groupArray(name), ',') FROM (SELECT name FROM system.tables "
        "WHERE database = '{}' ORDER BY name)",
        target_db_));
  }
};

// `db.*` with exclude `db.tmp_*`: the copy, the stream and a table created after the start
// replicate every table but the excluded ones; validate lists the same tables; a rule matching
// no table is warned about by validate and at the start of run.
TEST_F(FirstHourTest, ExcludedTablesAreLeftOutEverywhere) {
  TestDir dir("first-hour-exclude");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT); CREATE TABLE tmp_x (id INT PRIMARY KEY, v INT);"
      "INSERT INTO a VALUES (1, 1); INSERT INTO tmp_x VALUES (1, 1);");
  PipelineConfig config = Config(fmt::format(
      "  - match: {0}.*\n    exclude: {0}.tmp_*\n  - match: {0}_absent.t\n", source_db_));
  config.snapshot = true;
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);

  CliResult validate = rb.RunCommandLine({"validate", "-c", rb.config_path().string()});
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.out.find(source_db_ + ".a -> "), std::string::npos) << validate.out;
  EXPECT_EQ(validate.out.find(source_db_ + ".tmp_x"), std::string::npos) << validate.out;
  EXPECT_NE(validate.out.find("1 source table(s) matched"), std::string::npos) << validate.out;
  // The rule's line depends on the harness's config header.
  const std::string unmatched = "tables[1] (line ";
  const std::string unmatched_tail =
      fmt::format("match {}_absent.t) matches no table of the source", source_db_);
  EXPECT_NE(validate.out.find("warning: " + unmatched), std::string::npos) << validate.out;
  EXPECT_NE(validate.out.find(unmatched_tail), std::string::npos) << validate.out;

  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO a VALUES (2, 2); INSERT INTO tmp_x VALUES (2, 2);"
      "CREATE TABLE tmp_y (id INT PRIMARY KEY, v INT); INSERT INTO tmp_y VALUES (1, 1);"
      "CREATE TABLE b (id INT PRIMARY KEY, v INT); INSERT INTO b VALUES (1, 1);");
  rb.WaitCaughtUp();
  EXPECT_EQ(TargetTables(), "a,b");
  EXPECT_EQ(Ch("SELECT groupArray(id) FROM (SELECT id FROM " + Target("a") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[1,2]");
  EXPECT_EQ(Ch("SELECT count() FROM " + Target("b") + " FINAL"), "1");
  EXPECT_NE(rb.log().find(unmatched_tail), std::string::npos) << rb.log();
  EXPECT_EQ(rb.log().find("tmp_"), std::string::npos) << rb.log();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
}

// A DATETIME of 1960 and a DATE of 1965 do not fit ClickHouse 18.16's DateTime and Date. Under
// the default policy (error) the copy stops with a message naming the value and the key that
// changes the policy; the stream does the same for such a row inserted later.
TEST_F(FirstHourTest, DatesBefore1970StopWithTheKeyToChangeByDefault) {
  if (Ch("SELECT count() FROM system.data_type_families WHERE name = 'DateTime64'") == "1") {
    GTEST_SKIP() << "this ClickHouse has DateTime64: no DATETIME of 1960 is out of range";
  }
  TestDir dir("first-hour-dates-error");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE p (id INT PRIMARY KEY, born DATETIME, d DATE);"
      "INSERT INTO p VALUES (1, '1960-01-01 12:00:00', '2000-01-01');");
  PipelineConfig config = Config(fmt::format("  - match: {}.p\n", source_db_));
  config.snapshot = true;
  config.file_state = true;
  std::filesystem::create_directories(dir.path() / "copy");
  std::filesystem::create_directories(dir.path() / "stream");
  RowbridgeProcess copy(dir.path() / "copy", config);
  copy.Start();
  EXPECT_GT(copy.Wait(60s), 0) << copy.log();
  EXPECT_NE(copy.log().find(fmt::format("cannot convert {}.p.born value '1960-01-01 12:00:00' "
                                        "(DATETIME) to Nullable(DateTime('UTC'))",
                                        source_db_)),
            std::string::npos)
      << copy.log();
  EXPECT_NE(copy.log().find("(rule date_before_range, policy error); to write 1970-01-01 00:00:00 "
                            "instead, set tables[0].conversion.on_out_of_range: clamp"),
            std::string::npos)
      << copy.log();

  Sql("DELETE FROM p; INSERT INTO p VALUES (2, '2000-01-01 00:00:00', '2000-01-01');");
  config.server_id = UniqueServerId();
  RowbridgeProcess stream(dir.path() / "stream", config);
  StartAndWaitForCheckpoint(stream);
  Sql("INSERT INTO p VALUES (3, '2001-01-01 00:00:00', '1965-03-04');");
  EXPECT_GT(stream.Wait(60s), 0) << stream.log();
  EXPECT_NE(stream.log().find(fmt::format("cannot convert {}.p.d value '1965-03-04' (DATE) to "
                                          "Nullable(Date)",
                                          source_db_)),
            std::string::npos)
      << stream.log();
  EXPECT_NE(stream.log().find("set tables[0].conversion.on_out_of_range: clamp"), std::string::npos)
      << stream.log();
}

// With on_out_of_range: clamp, the same rows arrive as the first day and second of the range,
// copied and streamed, and the first clamp of each column is logged.
TEST_F(FirstHourTest, DatesBefore1970AreClampedWhenTheRuleSaysSo) {
  if (Ch("SELECT count() FROM system.data_type_families WHERE name = 'DateTime64'") == "1") {
    GTEST_SKIP() << "this ClickHouse has DateTime64: no DATETIME of 1960 is out of range";
  }
  TestDir dir("first-hour-dates-clamp");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE p (id INT PRIMARY KEY, born DATETIME, d DATE);"
      "INSERT INTO p VALUES (1, '1960-01-01 12:00:00', '1965-03-04'), "
      "(2, '2000-01-01 00:00:00', '2000-01-01');");
  PipelineConfig config = Config(
      fmt::format("  - match: {}.p\n    conversion: {{on_out_of_range: clamp}}\n", source_db_));
  config.snapshot = true;
  config.file_state = true;
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("INSERT INTO p VALUES (3, '1950-06-07 08:09:10', '1969-12-31');");
  rb.WaitCaughtUp();
  EXPECT_EQ(Ch("SELECT groupArray(concat(toString(id), ':', toString(toUInt32(born)), ':', "
               "toString(toUInt16(d)))) FROM (SELECT * FROM " +
               Target("p") + " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "['1:0:0','2:946684800:10957','3:0:0']");
  const std::string log = rb.log();
  for (const char* column : {".p.born: value '1960-01-01 12:00:00'", ".p.d: value '1965-03-04'"}) {
    EXPECT_NE(log.find(source_db_ + column), std::string::npos) << column << "\n" << log;
  }
  EXPECT_NE(log.find("rule date_before_range, policy clamp"), std::string::npos) << log;
  EXPECT_EQ(rb.Terminate(), 0) << log;
}

// A ClickHouse user whose profile says readonly=1 can connect and read, so every check but the
// writes passes: validate must say that run cannot create or insert.
TEST_F(FirstHourTest, ValidateRefusesAReadOnlyClickHouseUser) {
  TestDir dir("first-hour-readonly");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE t (id INT PRIMARY KEY, v INT);");
  RunClickHouseSql(ch_, "CREATE DATABASE `" + target_db_ + "`");
  PipelineConfig config = Config(fmt::format("  - match: {}.t\n", source_db_));
  RowbridgeProcess writer(dir.path(), config);
  CliResult ok = writer.RunCommandLine({"validate", "-c", writer.config_path().string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;

  config.target_yaml = "  user: " + ch_.readonly_user + "\n";
  std::filesystem::create_directories(dir.path() / "reader");
  RowbridgeProcess reader(dir.path() / "reader", config);
  CliResult refused = reader.RunCommandLine({"validate", "-c", reader.config_path().string()});
  EXPECT_NE(refused.exit_code, 0) << refused.out << refused.err;
  EXPECT_EQ(refused.out.find("ok: ready to run"), std::string::npos) << refused.out;
  EXPECT_NE(refused.err.find(fmt::format(
                "ClickHouse 127.0.0.1:{}: user {} is read-only (readonly=1 in its settings "
                "profile): rowbridge cannot create tables, insert rows or alter tables",
                ch_.port, ch_.readonly_user)),
            std::string::npos)
      << refused.out << refused.err;
}

// A table with neither a primary key nor a NOT NULL unique key, under a rule with `key:` (so the
// target has an ORDER BY): the stream could replicate it, but the copy refuses it. validate says
// so, as run does; with snapshot.keyless_single_chunk (or --keyless-single-chunk) both accept it
// and run copies it as one chunk.
TEST_F(FirstHourTest, KeylessTablesFailValidateAsTheyFailRun) {
  TestDir dir("first-hour-keyless");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE k (id INT, v INT); INSERT INTO k VALUES (1, 10), (2, 20);");
  PipelineConfig config = Config(fmt::format("  - match: {}.k\n    key: [id]\n", source_db_));
  config.snapshot = true;
  config.file_state = true;
  const std::string problem = fmt::format(
      "{}.k: has neither a primary key nor a unique key over NOT NULL columns, so it cannot be "
      "copied in consistent chunks",
      source_db_);
  std::filesystem::create_directories(dir.path() / "refused");
  RowbridgeProcess refused(dir.path() / "refused", config);
  CliResult validate = refused.RunCommandLine({"validate", "-c", refused.config_path().string()});
  EXPECT_NE(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.err.find(problem), std::string::npos) << validate.out << validate.err;
  EXPECT_NE(validate.err.find("snapshot.keyless_single_chunk: true"), std::string::npos)
      << validate.err;
  refused.Start();
  EXPECT_GT(refused.Wait(60s), 0) << refused.log();
  EXPECT_NE(refused.log().find(problem), std::string::npos) << refused.log();

  CliResult flagged = refused.RunCommandLine(
      {"validate", "-c", refused.config_path().string(), "--keyless-single-chunk"});
  EXPECT_EQ(flagged.exit_code, 0) << flagged.out << flagged.err;
  EXPECT_NE(flagged.out.find(
                fmt::format("warning: {}.k has no primary or NOT NULL unique key", source_db_)),
            std::string::npos)
      << flagged.out;
  config.server_id = UniqueServerId();
  std::filesystem::create_directories(dir.path() / "flag");
  RowbridgeProcess by_flag(dir.path() / "flag", config);
  by_flag.Start({"--keyless-single-chunk"});
  ASSERT_TRUE(
      WaitFor([&] { return by_flag.SavedCheckpoint().has_value() || !by_flag.running(); }, 60s) &&
      by_flag.SavedCheckpoint().has_value())
      << by_flag.log();
  Sql("INSERT INTO k VALUES (3, 30);");
  by_flag.WaitCaughtUp();
  EXPECT_EQ(Ch("SELECT groupArray(v) FROM (SELECT v FROM " + Target("k") +
               " FINAL WHERE _is_deleted = 0 ORDER BY id)"),
            "[10,20,30]");
  EXPECT_EQ(by_flag.Terminate(), 0) << by_flag.log();

  // The configuration key does what the flag does. The harness writes the `snapshot:` line
  // itself, so the key is added to that line.
  std::filesystem::create_directories(dir.path() / "key");
  RowbridgeProcess by_key(dir.path() / "key", config);
  std::string yaml;
  {
    std::ifstream in(by_key.config_path());
    yaml.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string snapshot_line = "snapshot: {enabled: true, chunk_rows: 50}";
  ASSERT_NE(yaml.find(snapshot_line), std::string::npos) << yaml;
  yaml.replace(yaml.find(snapshot_line), snapshot_line.size(),
               "snapshot: {enabled: true, chunk_rows: 50, keyless_single_chunk: true}");
  {
    std::ofstream out(by_key.config_path());
    out << yaml;
  }
  CliResult keyed = by_key.RunCommandLine({"validate", "-c", by_key.config_path().string()});
  EXPECT_EQ(keyed.exit_code, 0) << keyed.out << keyed.err;
  EXPECT_NE(keyed.out.find("(snapshot.keyless_single_chunk; see docs/snapshot.md"),
            std::string::npos)
      << keyed.out;
}

// Every line of `log` parsed as a JSON object; a line that is not one fails the test.
std::vector<nlohmann::json> JsonLines(const std::string& log) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(parsed.is_object()) << "not a JSON object: " << line;
    if (parsed.is_object()) lines.push_back(std::move(parsed));
  }
  return lines;
}

// The lines whose message contains `text`.
std::vector<nlohmann::json> LinesWith(const std::vector<nlohmann::json>& lines,
                                      const std::string& text) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& line : lines) {
    if (line.value("msg", "").find(text) != std::string::npos) out.push_back(line);
  }
  return out;
}

// With log.format json, every stderr line of run and of check is a JSON object; the lines about
// a table carry "database" and "table", the lines about a binlog position carry it as
// "binlog_file" and "binlog_pos" (and "gtid" where the position has one).
TEST_F(FirstHourTest, JsonLogsCarryTheTableAndThePositionAsFields) {
  TestDir dir("first-hour-json");
  RunMysqlSql(mysql_, "CREATE DATABASE `" + source_db_ + "`");
  Sql("CREATE TABLE a (id INT PRIMARY KEY, v INT, at DATETIME);"
      "INSERT INTO a VALUES (1, 1, '1960-01-01 00:00:00');");
  PipelineConfig config = Config(
      fmt::format("  - match: {}.*\n    conversion: {{on_out_of_range: clamp}}\n", source_db_));
  config.snapshot = true;
  config.file_state = true;
  config.log_format = "json";
  RowbridgeProcess rb(dir.path(), config);
  StartAndWaitForCheckpoint(rb);
  Sql("CREATE TABLE b (id INT PRIMARY KEY, v INT); INSERT INTO b VALUES (1, 1);"
      "ALTER TABLE a ADD COLUMN w INT; INSERT INTO a VALUES (2, 2, '2000-01-01 00:00:00', 2);");
  rb.WaitCaughtUp();
  EXPECT_EQ(rb.Terminate(), 0) << rb.log();
  const std::vector<nlohmann::json> lines = JsonLines(rb.log());

  auto expect_table = [&](const std::string& text, const std::string& table) {
    const std::vector<nlohmann::json> found = LinesWith(lines, text);
    EXPECT_FALSE(found.empty()) << "no line with \"" << text << "\" in\n" << rb.log();
    for (const nlohmann::json& line : found) {
      EXPECT_EQ(line.value("database", ""), source_db_) << line.dump();
      EXPECT_EQ(line.value("table", ""), table) << line.dump();
    }
  };
  expect_table(fmt::format("snapshot {}.a: copying", source_db_), "a");
  expect_table(fmt::format("replicating {}.b into", source_db_), "b");
  expect_table("ADD COLUMN", "a");

  auto expect_position = [&](const std::string& text) {
    const std::vector<nlohmann::json> found = LinesWith(lines, text);
    EXPECT_FALSE(found.empty()) << "no line with \"" << text << "\" in\n" << rb.log();
    for (const nlohmann::json& line : found) {
      EXPECT_TRUE(line.contains("binlog_file") && line["binlog_file"].is_string() &&
                  !line["binlog_file"].get<std::string>().empty())
          << line.dump();
      EXPECT_TRUE(line.contains("binlog_pos") && line["binlog_pos"].is_number_unsigned() &&
                  line["binlog_pos"].get<uint64_t>() > 0)
          << line.dump();
      EXPECT_NE(line.value("msg", "").find(line.value("binlog_file", "?") + ":" +
                                           std::to_string(line.value("binlog_pos", 0ULL))),
                std::string::npos)
          << "the fields and the message disagree: " << line.dump();
    }
  };
  expect_position("snapshot: done");
  expect_position("initial copy done; streaming changes from");
  expect_position("reading the binlog of");
  expect_position("stopped cleanly at");

  // check logs to stderr in the same format: the clamp of a's 1960 value is its one warning.
  CliResult check = rb.RunCommandLine({"check", "-c", rb.config_path().string()});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  const std::vector<nlohmann::json> check_lines = JsonLines(check.err);
  EXPECT_FALSE(LinesWith(check_lines, "policy clamp").empty()) << check.err;
}

}  // namespace
}  // namespace rowbridge::testing
