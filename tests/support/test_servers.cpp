#include "support/test_servers.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "support/paths.h"
#include "support/subprocess.h"

namespace rowbridge::testing {
namespace {

constexpr const char* kMysqlVars[] = {"ROWBRIDGE_TEST_MYSQL_HOST", "ROWBRIDGE_TEST_MYSQL_PORT",
                                      "ROWBRIDGE_TEST_MYSQL_USER", "ROWBRIDGE_TEST_MYSQL_PASSWORD",
                                      "ROWBRIDGE_TEST_MYSQL_DATADIR"};
constexpr const char* kClickHouseVars[] = {"ROWBRIDGE_TEST_CH_HOST", "ROWBRIDGE_TEST_CH_PORT",
                                           "ROWBRIDGE_TEST_CH_HTTP_PORT"};

std::string Missing(const auto& names) {
  std::string missing;
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
      if (!missing.empty()) missing += ' ';
      missing += name;
    }
  }
  return missing;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

uint16_t PortFrom(const std::string& text, const char* where) {
  char* end = nullptr;
  const long port = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || port <= 0 || port > 65535) {
    Fail(ErrorCode::kConfig, "{}='{}' is not a TCP port", where, text);
  }
  return static_cast<uint16_t>(port);
}

std::string Abbreviated(std::string_view text, size_t limit = 300) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...(" + std::to_string(text.size()) + " bytes)";
}

// Parses the `export NAME=VALUE` lines testservers.sh writes (values are bash %q quoted, and ours
// never need quoting: paths under a temp dir, hex passwords, numbers).
std::string ValueFromEnvFile(const std::string& env_text, std::string_view name) {
  std::istringstream lines(env_text);
  std::string line;
  const std::string prefix = "export " + std::string(name) + "=";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  }
  return {};
}

std::string RunScript(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"bash", TestServersScript().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult result = RunCommand(argv, {}, std::chrono::seconds(180));
  if (result.exit_code != 0) {
    Fail(ErrorCode::kServer, "`{}` failed with status {}:\n{}{}", CommandLine(argv),
         result.exit_code, result.out, result.err);
  }
  return result.out;
}

}  // namespace

std::string MissingMysqlEnv() {
  return Missing(kMysqlVars);
}
std::string MissingClickHouseEnv() {
  return Missing(kClickHouseVars);
}

bool ServersRequired() {
  return Env("ROWBRIDGE_REQUIRE_SERVERS") == "1";
}

MysqlAddress MysqlFromEnv() {
  if (std::string missing = MissingMysqlEnv(); !missing.empty()) {
    Fail(ErrorCode::kConfig,
         "the MariaDB test server is not configured: {} unset (use ROWBRIDGE_REQUIRE_MYSQL() "
         "first in the test)",
         missing);
  }
  MysqlAddress a;
  a.host = Env("ROWBRIDGE_TEST_MYSQL_HOST");
  a.port = PortFrom(Env("ROWBRIDGE_TEST_MYSQL_PORT"), "ROWBRIDGE_TEST_MYSQL_PORT");
  a.user = Env("ROWBRIDGE_TEST_MYSQL_USER");
  a.password = Env("ROWBRIDGE_TEST_MYSQL_PASSWORD");
  a.datadir = Env("ROWBRIDGE_TEST_MYSQL_DATADIR");
  a.socket = Env("ROWBRIDGE_TEST_MYSQL_SOCKET");
  a.ssl_ca = Env("ROWBRIDGE_TEST_MYSQL_SSL_CA");
  a.binlog_basename = Env("ROWBRIDGE_TEST_MYSQL_BINLOG_BASENAME");
  a.repl_user = Env("ROWBRIDGE_TEST_MYSQL_REPL_USER");
  a.repl_password = Env("ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD");
  a.norepl_user = Env("ROWBRIDGE_TEST_MYSQL_NOREPL_USER");
  a.norepl_password = Env("ROWBRIDGE_TEST_MYSQL_NOREPL_PASSWORD");
  a.ssl_user = Env("ROWBRIDGE_TEST_MYSQL_SSL_USER");
  a.ssl_password = Env("ROWBRIDGE_TEST_MYSQL_SSL_PASSWORD");
  a.servers_dir = Env("ROWBRIDGE_TEST_SERVERS_DIR");
  return a;
}

ClickHouseAddress ClickHouseFromEnv() {
  if (std::string missing = MissingClickHouseEnv(); !missing.empty()) {
    Fail(ErrorCode::kConfig,
         "the ClickHouse test server is not configured: {} unset (use "
         "ROWBRIDGE_REQUIRE_CLICKHOUSE() first in the test)",
         missing);
  }
  ClickHouseAddress a;
  a.host = Env("ROWBRIDGE_TEST_CH_HOST");
  a.port = PortFrom(Env("ROWBRIDGE_TEST_CH_PORT"), "ROWBRIDGE_TEST_CH_PORT");
  a.http_port = PortFrom(Env("ROWBRIDGE_TEST_CH_HTTP_PORT"), "ROWBRIDGE_TEST_CH_HTTP_PORT");
  a.user = Env("ROWBRIDGE_TEST_CH_USER");
  if (a.user.empty()) a.user = "default";
  a.password = Env("ROWBRIDGE_TEST_CH_PASSWORD");
  a.auth_user = Env("ROWBRIDGE_TEST_CH_AUTH_USER");
  a.auth_password = Env("ROWBRIDGE_TEST_CH_AUTH_PASSWORD");
  a.readonly_user = Env("ROWBRIDGE_TEST_CH_READONLY_USER");
  a.servers_dir = Env("ROWBRIDGE_TEST_SERVERS_DIR");
  return a;
}

std::string UniqueName(std::string_view prefix) {
  static std::atomic<int> counter{0};
  return std::string(prefix) + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(counter.fetch_add(1));
}

std::string RunMysqlSql(const MysqlAddress& server, std::string_view sql,
                        std::string_view database) {
  std::vector<std::string> argv = {"mariadb",
                                   "--no-defaults",
                                   "--batch",
                                   "--skip-column-names",
                                   "--default-character-set=utf8mb4",
                                   "--max-allowed-packet=256M",
                                   "--protocol=TCP",
                                   "--host=" + server.host,
                                   "--port=" + std::to_string(server.port),
                                   "--user=" + server.user,
                                   "--password=" + server.password};
  if (!database.empty()) argv.push_back("--database=" + std::string(database));
  CommandResult result = RunCommand(argv, sql);
  if (result.exit_code != 0) {
    Fail(ErrorCode::kServer, "mariadb client on {}:{} failed (status {}): {}\nSQL: {}", server.host,
         server.port, result.exit_code, result.err, Abbreviated(sql));
  }
  return result.out;
}

std::string RunClickHouseSql(const ClickHouseAddress& server, std::string_view sql) {
  std::vector<std::string> argv = {
      "clickhouse-client",     "--host=" + server.host, "--port=" + std::to_string(server.port),
      "--user=" + server.user, "--multiquery",          "--format=TabSeparated"};
  if (!server.password.empty()) argv.push_back("--password=" + server.password);
  CommandResult result = RunCommand(argv, sql);
  if (result.exit_code != 0) {
    Fail(ErrorCode::kServer, "clickhouse-client on {}:{} failed (status {}): {}\nSQL: {}",
         server.host, server.port, result.exit_code, result.err, Abbreviated(sql));
  }
  return result.out;
}

std::filesystem::path TestServersScript() {
  return SourceDir() / "tests" / "servers" / "testservers.sh";
}

ScopedMariaDb::ScopedMariaDb(std::vector<std::string> mariadbd_options) {
  std::string tmp = Env("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  std::string pattern = tmp + "/rowbridge-mariadb.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    Fail(ErrorCode::kIo, "cannot make a temporary directory from {}: {}", pattern,
         std::strerror(errno));
  }
  dir_ = pattern;
  std::vector<std::string> args = {"start", "--no-clickhouse",
                                   "--owner-pid=" + std::to_string(::getpid())};
  for (const auto& option : mariadbd_options) args.push_back("--mariadb-opt=" + option);
  args.push_back(dir_.string());
  RunScript(args);
  ReadAddress();
}

ScopedMariaDb::~ScopedMariaDb() {
  const bool keep = Env("ROWBRIDGE_KEEP_TEST_SERVERS") == "1";
  std::vector<std::string> args = {"stop"};
  if (!keep) args.push_back("--remove");
  args.push_back(dir_.string());
  try {
    RunScript(args);
  } catch (const Error& e) {
    // A destructor must not throw; the watchdog still stops the server when the test exits.
    std::fprintf(stderr, "ScopedMariaDb: stopping the server in %s failed: %s\n", dir_.c_str(),
                 e.what());
  }
}

void ScopedMariaDb::Stop() {
  RunScript({"stop", "--only=mariadb", dir_.string()});
}

void ScopedMariaDb::Kill() {
  RunScript({"stop", "--kill", "--only=mariadb", dir_.string()});
}

void ScopedMariaDb::Start(const std::vector<std::string>& more_options) {
  std::vector<std::string> args = {"start", "--no-clickhouse",
                                   "--owner-pid=" + std::to_string(::getpid())};
  for (const auto& option : more_options) args.push_back("--mariadb-opt=" + option);
  args.push_back(dir_.string());
  RunScript(args);
  ReadAddress();
}

void ScopedMariaDb::ReadAddress() {
  const std::string env = RunScript({"env", dir_.string()});
  MysqlAddress a;
  a.host = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_HOST");
  a.port = PortFrom(ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_PORT"), dir_.c_str());
  a.user = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_USER");
  a.password = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_PASSWORD");
  a.datadir = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_DATADIR");
  a.socket = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_SOCKET");
  a.ssl_ca = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_SSL_CA");
  a.binlog_basename = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_BINLOG_BASENAME");
  a.repl_user = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_REPL_USER");
  a.repl_password = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD");
  a.norepl_user = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_NOREPL_USER");
  a.norepl_password = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_NOREPL_PASSWORD");
  a.ssl_user = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_SSL_USER");
  a.ssl_password = ValueFromEnvFile(env, "ROWBRIDGE_TEST_MYSQL_SSL_PASSWORD");
  a.servers_dir = dir_.string();
  if (a.host.empty() || a.password.empty() || a.datadir.empty()) {
    Fail(ErrorCode::kInternal, "testservers.sh env {} lacks the MariaDB address:\n{}",
         dir_.string(), env);
  }
  address_ = a;
}

}  // namespace rowbridge::testing
