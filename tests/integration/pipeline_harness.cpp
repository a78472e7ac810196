#include "integration/pipeline_harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "support/paths.h"
#include "support/subprocess.h"

extern char** environ;

namespace rowbridge::testing {

namespace {

std::string ReadFile(const std::filesystem::path& path, size_t from = 0) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(from));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Tail(const std::string& text, size_t lines = 40) {
  size_t pos = text.size();
  for (size_t n = 0; n < lines && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos);
}

std::string MysqlExpr(const ColumnCompare& c) {
  const std::string q = "`" + c.name + "`";
  switch (c.how) {
    case Compare::kText:
      return "COALESCE(CAST(" + q + " AS CHAR), 'NULL')";
    case Compare::kHex:
      return "COALESCE(HEX(" + q + "), 'NULL')";
    case Compare::kSeconds:
      return "COALESCE(DATE_FORMAT(" + q + ", '%Y-%m-%d %H:%i:%s'), 'NULL')";
    case Compare::kBitNumber:
      return "COALESCE(CAST(" + q + " + 0 AS CHAR), 'NULL')";
    case Compare::kRound2:
      return "COALESCE(CAST(ROUND(" + q + ", 2) + 0e0 AS CHAR), 'NULL')";
  }
  return q;
}

std::string ClickHouseExpr(const ColumnCompare& c) {
  const std::string q = "`" + c.name + "`";
  switch (c.how) {
    case Compare::kText:
    case Compare::kSeconds:
    case Compare::kBitNumber:
      return "ifNull(toString(" + q + "), 'NULL')";
    case Compare::kHex:
      return "ifNull(hex(" + q + "), 'NULL')";
    case Compare::kRound2:
      return "ifNull(toString(round(" + q + ", 2)), 'NULL')";
  }
  return q;
}

std::string MysqlConcat(const std::vector<ColumnCompare>& columns) {
  std::string s = "CONCAT_WS('|'";
  for (const auto& c : columns) s += ", " + MysqlExpr(c);
  return s + ")";
}

std::string ClickHouseConcat(const std::vector<ColumnCompare>& columns) {
  std::string s = "concat(''";
  for (const auto& c : columns) s += ", '|', " + ClickHouseExpr(c);
  return s + ")";
}

}  // namespace

std::string ReadTestFile(const std::string& relative) {
  const auto path = TestDataDir() / relative;
  std::string text = ReadFile(path);
  if (text.empty()) Fail(ErrorCode::kIo, "cannot read test data {}", path.string());
  return text;
}

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TestDir::TestDir(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/rowbridge-" + name + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) Fail(ErrorCode::kIo, "mkdtemp {} failed", pattern);
  path_ = pattern;
}

TestDir::~TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const bool failed = info != nullptr && info->result() != nullptr && info->result()->Failed();
  if (failed) {
    std::fprintf(stderr, "test directory kept: %s\n", path_.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

RowbridgeProcess::RowbridgeProcess(std::filesystem::path dir, PipelineConfig config)
    : dir_(std::move(dir)), config_(std::move(config)) {
  config_path_ = dir_ / "rowbridge.yaml";
  log_path_ = dir_ / "rowbridge.log";
  const PipelineConfig& c = config_;
  std::ofstream out(config_path_);
  out << "source:\n"
      << "  host: 127.0.0.1\n"
      << "  port: " << c.mysql.port << "\n"
      << "  user: " << (c.source_user.empty() ? c.mysql.user : c.source_user) << "\n"
      << "  password: ${ROWBRIDGE_TEST_SOURCE_PASSWORD}\n"
      << "  server_id: " << c.server_id << "\n"
      << "  tls: {mode: disabled}\n"
      << "  heartbeat_period: " << c.heartbeat_period << "\n"
      << "  read_timeout: " << c.read_timeout << "\n"
      << "  connect_timeout: 3s\n"
      << "  reconnect: " << c.reconnect << "\n"
      << c.source_yaml << "target:\n"
      << "  host: 127.0.0.1\n"
      << "  port: " << c.clickhouse.port << "\n"
      << "  database: " << c.target_database << "\n"
      << "  writers: " << c.writers << "\n"
      << (c.compression.empty() ? "" : "  compression: " + c.compression + "\n")
      << "  connect_timeout: 3s\n"
      << "  query_timeout: 30s\n"
      << c.target_yaml << "tables:\n"
      << c.tables_yaml << "\n"
      << "snapshot: {enabled: " << (c.snapshot ? "true" : "false")
      << ", chunk_rows: " << c.snapshot_chunk_rows
      << (c.snapshot_memory_limit.empty() ? "" : ", memory_limit: " + c.snapshot_memory_limit)
      << "}\n"
      << "batch: {max_rows: " << c.max_rows << ", max_delay: " << c.max_delay
      << ", part_rows: " << c.part_rows << "}\n"
      << "http: {listen: \"" << c.http_listen << "\""
      << (c.http_token.empty() ? "" : ", token: " + c.http_token)
      << (c.health_max_lag.empty() ? "" : ", health: {max_lag: " + c.health_max_lag + "}") << "}\n"
      << "log: {level: debug, format: " << c.log_format << "}\n";
  const std::string interval =
      c.checkpoint_interval.empty() ? "" : ", checkpoint_interval: " + c.checkpoint_interval;
  if (c.file_state) {
    out << "state: {store: file, path: " << (dir_ / "state").string() << interval << "}\n";
  } else if (!interval.empty()) {
    out << "state: {" << interval.substr(2) << "}\n";
  }
  out << c.extra_yaml;
}

RowbridgeProcess::~RowbridgeProcess() {
  if (pid_ > 0) Kill();
}

void RowbridgeProcess::Start(const std::vector<std::string>& extra_args) {
  ASSERT_LE(pid_, 0) << "rowbridge is already running";
  log_offset_ = std::filesystem::exists(log_path_) ? std::filesystem::file_size(log_path_) : 0;
  http_port_ = 0;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(
        config_.environment.begin(), config_.environment.end(), [&](const std::string& mine) {
          return entry.substr(0, entry.find('=') + 1) == mine.substr(0, mine.find('=') + 1);
        });
    if (!replaced) env_strings.emplace_back(entry);
  }
  env_strings.insert(env_strings.end(), config_.environment.begin(), config_.environment.end());
  env_strings.push_back("ROWBRIDGE_TEST_SOURCE_PASSWORD=" + (config_.source_user.empty()
                                                                 ? config_.mysql.password
                                                                 : config_.source_password));
  std::vector<char*> env;
  for (auto& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::string binary = ROWBRIDGE_BINARY;
  std::vector<std::string> args = {binary, "run", "-c", config_path_.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const int rc = ::posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  ASSERT_EQ(rc, 0) << "cannot start " << binary;
}

bool RowbridgeProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  return r == 0;
}

void RowbridgeProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void RowbridgeProcess::Signal(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int RowbridgeProcess::Wait(std::chrono::seconds timeout) {
  if (pid_ <= 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) return -2;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int RowbridgeProcess::Terminate(std::chrono::seconds timeout) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  const int status = Wait(timeout);
  if (status == -2) {
    Kill();
    ADD_FAILURE() << "rowbridge did not exit within " << timeout.count() << "s of SIGTERM; log:\n"
                  << Tail(log());
  }
  return status;
}

std::string RowbridgeProcess::log() const {
  return ReadFile(log_path_);
}

uint16_t RowbridgeProcess::HttpPort(std::chrono::seconds timeout) {
  if (http_port_ != 0) return http_port_;
  const std::regex pattern(R"(/healthz on [^ ]+ \(port ([0-9]+)\))");
  WaitFor(
      [&] {
        std::smatch m;
        const std::string text = ReadFile(log_path_, log_offset_);
        if (std::regex_search(text, m, pattern))
          http_port_ = static_cast<uint16_t>(std::stoi(m[1]));
        return http_port_ != 0;
      },
      timeout);
  return http_port_;
}

std::string RowbridgeProcess::HttpGet(const std::string& path) {
  const uint16_t port = HttpPort();
  if (port == 0) return {};
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  auto result = client.Get(path);
  if (!result) return {};
  return result->body;
}

int RowbridgeProcess::HttpPost(const std::string& path) {
  const uint16_t port = HttpPort();
  if (port == 0) return 0;
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  auto result = client.Post(path, "", "text/plain");
  return result ? result->status : 0;
}

std::optional<double> RowbridgeProcess::Metric(const std::string& name) {
  const std::string metrics = HttpGet("/metrics");
  const std::string line = "\n" + name + " ";
  const size_t at = metrics.find(line);
  if (at == std::string::npos) return std::nullopt;
  return std::stod(metrics.substr(at + line.size()));
}

int RowbridgeProcess::HttpStatus(const std::string& path) {
  const uint16_t port = HttpPort();
  if (port == 0) return 0;
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  auto result = client.Get(path);
  return result ? result->status : 0;
}

std::optional<state::Checkpoint> RowbridgeProcess::SavedCheckpoint() const {
  const std::string job = std::to_string(config_.server_id);
  std::string text;
  if (config_.file_state) {
    text = ReadFile(dir_ / "state" / ("rowbridge-" + job + ".checkpoint.json"));
  } else {
    const std::string exists = RunClickHouseSql(
        config_.clickhouse, "EXISTS TABLE `" + config_.target_database + "`.rowbridge_state");
    if (exists.rfind("1", 0) != 0) return std::nullopt;
    text = RunClickHouseSql(config_.clickhouse,
                            "SELECT checkpoint FROM `" + config_.target_database +
                                "`.rowbridge_state FINAL WHERE job = '" + job + "' FORMAT TSVRaw");
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty()) return std::nullopt;
  return state::Checkpoint::FromJson(text, "test");
}

void RowbridgeProcess::WaitCaughtUp(std::chrono::seconds timeout) {
  RunMysqlSql(config_.mysql,
              "CREATE DATABASE IF NOT EXISTS rowbridge_test_marker; "
              "CREATE TABLE IF NOT EXISTS rowbridge_test_marker.m (id INT AUTO_INCREMENT PRIMARY "
              "KEY); INSERT INTO rowbridge_test_marker.m VALUES ();");
  const std::string status = RunMysqlSql(config_.mysql, BinlogStatusSql(config_.mysql));
  std::istringstream fields(status);
  std::string file;
  uint64_t position = 0;
  fields >> file >> position;
  ASSERT_FALSE(file.empty()) << BinlogStatusSql(config_.mysql) << " said: " << status;
  std::string last;
  const bool done = WaitFor(
      [&] {
        std::optional<state::Checkpoint> c;
        try {
          c = SavedCheckpoint();
        } catch (const Error& e) {
          last = e.what();
          return false;
        }
        if (!c) return false;
        last = c->Describe();
        // A copy alongside the stream (tables matched later, resume, resnapshot) is part of
        // catching up: its tables are not replicated until it is handed over.
        if (c->table_copy) {
          last += " (a copy of " + std::to_string(c->table_copy->tables.size()) +
                  " table(s) runs alongside)";
          return false;
        }
        // So is a copy the stream recorded and has yet to begin (a shadow table swapped in,
        // say): until it begins, the live target may lack the rows it brings.
        for (const state::PendingCommand& pending : c->pending_commands) {
          if (pending.action == "resnapshot" || pending.action == "resume") {
            last += " (a " + pending.action + " of " + pending.table + " waits to begin)";
            return false;
          }
        }
        return c->file > file || (c->file == file && c->position >= position);
      },
      timeout);
  ASSERT_TRUE(done) << "rowbridge did not catch up with " << file << ":" << position << " within "
                    << timeout.count() << "s (checkpoint: " << last << "); log:\n"
                    << Tail(log(), 60);
}

CliResult RowbridgeProcess::RunCommandLine(const std::vector<std::string>& args) const {
  ::setenv("ROWBRIDGE_TEST_SOURCE_PASSWORD",
           (config_.source_user.empty() ? config_.mysql.password : config_.source_password).c_str(),
           1);
  CliResult result = RunRowbridge(args);
  ::unsetenv("ROWBRIDGE_TEST_SOURCE_PASSWORD");
  return result;
}

CliResult RunRowbridge(const std::vector<std::string>& args, std::chrono::seconds timeout) {
  std::vector<std::string> argv = {ROWBRIDGE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = RunCommand(argv, {}, timeout);
  return {r.exit_code, r.out, r.err};
}

std::string MysqlRows(const MysqlAddress& mysql, const std::string& database,
                      const std::string& table, const std::vector<ColumnCompare>& columns,
                      const std::string& order_by) {
  // TIMESTAMPs are instants, which the target shows in UTC (the test ClickHouse's time zone).
  return RunMysqlSql(mysql, "SET NAMES utf8mb4; SET time_zone = '+00:00'; SELECT " +
                                MysqlConcat(columns) + " FROM `" + database + "`.`" + table +
                                "` ORDER BY " + order_by);
}

std::string ReplicaRows(const ClickHouseAddress& ch, const std::string& database,
                        const std::string& table, const std::vector<ColumnCompare>& columns,
                        const std::string& order_by, const std::string& extra_where) {
  std::string sql = "SELECT substring(" + ClickHouseConcat(columns) + ", 2) FROM `" + database +
                    "`.`" + table + "` FINAL WHERE _is_deleted = 0";
  if (!extra_where.empty()) sql += " AND " + extra_where;
  return RunClickHouseSql(ch, sql + " ORDER BY " + order_by);
}

std::string ChangelogLatestRows(const ClickHouseAddress& ch, const std::string& database,
                                const std::string& table, const std::vector<ColumnCompare>& columns,
                                const std::string& key, const std::string& event_type_column,
                                const std::string& version_column) {
  const std::string t = "`" + database + "`.`" + table + "`";
  return RunClickHouseSql(ch, "SELECT substring(" + ClickHouseConcat(columns) + ", 2) FROM " + t +
                                  " WHERE (`" + key + "`, `" + version_column +
                                  "`) GLOBAL IN (SELECT `" + key + "`, max(`" + version_column +
                                  "`) FROM " + t + " GROUP BY `" + key + "`) AND `" +
                                  event_type_column + "` != 'delete' ORDER BY `" + key + "`");
}

}  // namespace rowbridge::testing
