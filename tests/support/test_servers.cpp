#include "support/test_servers.h"

#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
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

// A process id from the environment; 0 when unset or not a number (older testservers.sh).
int PidFrom(const std::string& text) {
  char* end = nullptr;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || pid <= 0 || pid > INT32_MAX) return 0;
  return static_cast<int>(pid);
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

using Lookup = std::function<std::string(std::string_view name)>;

MysqlAddress MysqlFrom(const Lookup& get, const std::string& where) {
  MysqlAddress a;
  a.host = get("ROWBRIDGE_TEST_MYSQL_HOST");
  a.port = PortFrom(get("ROWBRIDGE_TEST_MYSQL_PORT"), "ROWBRIDGE_TEST_MYSQL_PORT");
  a.user = get("ROWBRIDGE_TEST_MYSQL_USER");
  a.password = get("ROWBRIDGE_TEST_MYSQL_PASSWORD");
  a.datadir = get("ROWBRIDGE_TEST_MYSQL_DATADIR");
  a.socket = get("ROWBRIDGE_TEST_MYSQL_SOCKET");
  a.ssl_ca = get("ROWBRIDGE_TEST_MYSQL_SSL_CA");
  a.binlog_basename = get("ROWBRIDGE_TEST_MYSQL_BINLOG_BASENAME");
  a.repl_user = get("ROWBRIDGE_TEST_MYSQL_REPL_USER");
  a.repl_password = get("ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD");
  a.norepl_user = get("ROWBRIDGE_TEST_MYSQL_NOREPL_USER");
  a.norepl_password = get("ROWBRIDGE_TEST_MYSQL_NOREPL_PASSWORD");
  a.ssl_user = get("ROWBRIDGE_TEST_MYSQL_SSL_USER");
  a.ssl_password = get("ROWBRIDGE_TEST_MYSQL_SSL_PASSWORD");
  a.servers_dir = get("ROWBRIDGE_TEST_SERVERS_DIR");
  a.pid = PidFrom(get("ROWBRIDGE_TEST_MYSQL_PID"));
  if (const std::string flavor = get("ROWBRIDGE_TEST_SOURCE"); !flavor.empty()) a.flavor = flavor;
  a.chroot = get("ROWBRIDGE_TEST_MYSQL_CHROOT");
  if (a.host.empty() || a.user.empty() || a.datadir.empty()) {
    Fail(ErrorCode::kConfig, "{} lacks the MariaDB test server's host, user or datadir", where);
  }
  return a;
}

ClickHouseAddress ClickHouseFrom(const Lookup& get, const std::string& where) {
  ClickHouseAddress a;
  a.host = get("ROWBRIDGE_TEST_CH_HOST");
  a.port = PortFrom(get("ROWBRIDGE_TEST_CH_PORT"), "ROWBRIDGE_TEST_CH_PORT");
  a.http_port = PortFrom(get("ROWBRIDGE_TEST_CH_HTTP_PORT"), "ROWBRIDGE_TEST_CH_HTTP_PORT");
  if (const std::string tls = get("ROWBRIDGE_TEST_CH_TLS_PORT"); !tls.empty()) {
    a.tls_port = PortFrom(tls, "ROWBRIDGE_TEST_CH_TLS_PORT");
  }
  a.ssl_ca = get("ROWBRIDGE_TEST_CH_SSL_CA");
  a.user = get("ROWBRIDGE_TEST_CH_USER");
  if (a.user.empty()) a.user = "default";
  a.password = get("ROWBRIDGE_TEST_CH_PASSWORD");
  a.auth_user = get("ROWBRIDGE_TEST_CH_AUTH_USER");
  a.auth_password = get("ROWBRIDGE_TEST_CH_AUTH_PASSWORD");
  a.readonly_user = get("ROWBRIDGE_TEST_CH_READONLY_USER");
  a.servers_dir = get("ROWBRIDGE_TEST_SERVERS_DIR");
  a.pid = PidFrom(get("ROWBRIDGE_TEST_CH_PID"));
  if (a.host.empty()) Fail(ErrorCode::kConfig, "{} lacks the ClickHouse test server's host", where);
  return a;
}

// The lookup for the `export NAME=VALUE` lines of `testservers.sh env DIR`.
Lookup FromEnvFile(const std::string& env_text) {
  return [env_text](std::string_view name) { return ValueFromEnvFile(env_text, name); };
}

std::filesystem::path MakeTempDir(const std::string& prefix) {
  std::string tmp = Env("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  std::string pattern = tmp + "/" + prefix + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    Fail(ErrorCode::kIo, "cannot make a temporary directory from {}: {}", pattern,
         std::strerror(errno));
  }
  return pattern;
}

// The last `lines` lines of the file at `path`, or "" if it cannot be read.
std::string TailOf(const std::filesystem::path& path, size_t lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = text.size();
  if (start > 0 && text[start - 1] == '\n') --start;
  for (size_t found = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++found == lines) break;
  }
  return text.substr(start);
}

// `testservers.sh start` for one kind of server ("mariadb", "clickhouse" or "zookeeper") in `dir`,
// stopped by a watchdog if this process dies first. A failure names `dir` (kept for its logs) and
// carries the end of the server's own logs, which say why it would not start.
// `owned`: the servers are this process's (stopped by a watchdog when it exits).
void StartInDir(const std::filesystem::path& dir, const std::string& kind,
                const std::vector<std::string>& mariadbd_options, bool owned) {
  std::vector<std::string> args = {"start"};
  if (owned) args.push_back("--owner-pid=" + std::to_string(::getpid()));
  if (kind != "mariadb") args.push_back("--no-mariadb");
  if (kind != "clickhouse") args.push_back("--no-clickhouse");
  if (kind == "zookeeper") args.push_back("--zookeeper");
  if (kind == "cluster") args.push_back("--cluster");
  for (const auto& option : mariadbd_options) args.push_back("--mariadb-opt=" + option);
  args.push_back(dir.string());
  try {
    RunScript(args);
  } catch (const Error& e) {
    std::vector<std::filesystem::path> logs = {dir / kind / "stdout.log"};
    if (kind == "mariadb") logs = {dir / "mariadb" / "install.log", dir / "mariadb" / "error.log"};
    if (kind == "clickhouse")
      logs.push_back(dir / "clickhouse" / "log" / "clickhouse-server.err.log");
    if (kind == "cluster") {
      logs = {dir / "zookeeper" / "stdout.log"};
      for (const char* node : {"node1", "node2", "node3"})
        logs.push_back(dir / "cluster" / node / "log" / "clickhouse-server.err.log");
    }
    std::string message = fmt::format("{} failed to start in {}: {}", kind, dir.string(), e.what());
    for (const auto& log : logs) {
      std::string tail = TailOf(log, 25);
      if (!tail.empty()) message += fmt::format("\n--- last lines of {}:\n{}", log.string(), tail);
    }
    throw Error(e.code(), message);
  }
}

// Stops everything in `dir` and removes it; for destructors, so it reports instead of throwing.
void StopAndRemove(const std::filesystem::path& dir, const char* who) {
  std::vector<std::string> args = {"stop"};
  if (Env("ROWBRIDGE_KEEP_TEST_SERVERS") != "1") args.push_back("--remove");
  args.push_back(dir.string());
  try {
    RunScript(args);
  } catch (const Error& e) {
    // The watchdog still stops the server when the test process exits.
    std::fprintf(stderr, "%s: stopping the server in %s failed: %s\n", who, dir.c_str(), e.what());
  }
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
  return MysqlFrom([](std::string_view name) { return Env(std::string(name).c_str()); },
                   "the environment");
}

ClickHouseAddress ClickHouseFromEnv() {
  if (std::string missing = MissingClickHouseEnv(); !missing.empty()) {
    Fail(ErrorCode::kConfig,
         "the ClickHouse test server is not configured: {} unset (use "
         "ROWBRIDGE_REQUIRE_CLICKHOUSE() first in the test)",
         missing);
  }
  return ClickHouseFrom([](std::string_view name) { return Env(std::string(name).c_str()); },
                        "the environment");
}

std::string UniqueName(std::string_view prefix) {
  static std::atomic<int> counter{0};
  return std::string(prefix) + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(counter.fetch_add(1));
}

uint32_t UniqueServerId() {
  static std::atomic<uint32_t> counter{0};
  // Steps of 10: a snapshot's readers use the ids just above the configured one.
  return 100000 + static_cast<uint32_t>(::getpid() % 100000) * 100 +
         (counter.fetch_add(1) % 10) * 10;
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

namespace {

// The statements of a multi-statement text, split at semicolons outside quotes, backquotes and
// comments; statements of only blanks and comments are left out.
std::vector<std::string> SplitStatements(std::string_view sql) {
  std::vector<std::string> statements;
  std::string current;
  bool meaningful = false;
  auto end_statement = [&] {
    if (meaningful) statements.push_back(current);
    current.clear();
    meaningful = false;
  };
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {
      const size_t start = i;
      for (++i; i < sql.size() && sql[i] != c; ++i) {
        if (sql[i] == '\\') ++i;
      }
      current.append(sql.substr(start, i - start + 1));
      meaningful = true;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
      current += '\n';
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t close = sql.find("*/", i + 2);
      i = close == std::string_view::npos ? sql.size() : close + 1;
      current += ' ';
    } else if (c == ';') {
      end_statement();
    } else {
      current += c;
      if (!std::isspace(static_cast<unsigned char>(c))) meaningful = true;
    }
  }
  end_statement();
  return statements;
}

bool StartsWithWord(const std::string& statement, std::string_view word) {
  size_t i = 0;
  while (i < statement.size() && std::isspace(static_cast<unsigned char>(statement[i]))) ++i;
  if (statement.size() - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (std::toupper(static_cast<unsigned char>(statement[i + k])) != word[k]) return false;
  }
  return statement.size() == i + word.size() ||
         !std::isalnum(static_cast<unsigned char>(statement[i + word.size()]));
}

std::string RunClickHouseClient(const ClickHouseAddress& server, std::string_view sql) {
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

}  // namespace

// Over the server's HTTP interface, one request per statement: tests poll ClickHouse every 100 ms
// while they wait, and a clickhouse-client process per poll cost ~0.12 CPU-s, which on CI's two
// shared cores slowed every other test. The client stays for statements that need its session
// (SET, USE, temporary tables) and servers without an HTTP port.
std::string RunClickHouseSql(const ClickHouseAddress& server, std::string_view sql) {
  const std::vector<std::string> statements = SplitStatements(sql);
  const bool needs_session = std::any_of(statements.begin(), statements.end(), [](const auto& s) {
    return StartsWithWord(s, "SET") || StartsWithWord(s, "USE") ||
           s.find("TEMPORARY") != std::string::npos;
  });
  if (server.http_port == 0 || needs_session) return RunClickHouseClient(server, sql);
  httplib::Client client(server.host, server.http_port);
  client.set_connection_timeout(std::chrono::seconds(10));
  client.set_read_timeout(std::chrono::seconds(600));
  client.set_write_timeout(std::chrono::seconds(600));
  httplib::Params credentials = {{"user", server.user}};
  if (!server.password.empty()) credentials.emplace("password", server.password);
  const std::string path = httplib::append_query_params("/", credentials);
  std::string out;
  for (const std::string& statement : statements) {
    httplib::Result result = client.Post(path, statement, "text/plain; charset=UTF-8");
    if (!result) {
      Fail(ErrorCode::kNetwork, "ClickHouse HTTP on {}:{}: {}\nSQL: {}", server.host,
           server.http_port, httplib::to_string(result.error()), Abbreviated(statement));
    }
    if (result->status != 200) {
      Fail(ErrorCode::kServer, "ClickHouse HTTP on {}:{} answered {}: {}\nSQL: {}", server.host,
           server.http_port, result->status, result->body, Abbreviated(statement));
    }
    out += result->body;
  }
  return out;
}

std::string SequenceTable(uint64_t n) {
  // Digits crossed with themselves, one derived table per decimal place n needs.
  std::string digits = "(SELECT 0 AS d";
  for (int d = 1; d < 10; ++d) digits += " UNION ALL SELECT " + std::to_string(d);
  digits += ")";
  std::string sum = "1";
  std::string from;
  uint64_t scale = 1;
  int place = 0;
  do {
    const std::string alias = "p" + std::to_string(place++);
    sum += fmt::format(" + {}.d * {}", alias, scale);
    from += (from.empty() ? "" : " CROSS JOIN ") + digits + " AS " + alias;
    scale *= 10;
  } while (scale < n);
  return fmt::format("(SELECT CAST({} AS SIGNED) AS seq FROM {} HAVING seq <= {}) AS seq_table",
                     sum, from, n);
}

std::string ServerPath(const MysqlAddress& server, const std::string& host_path) {
  std::error_code error;
  std::string path = std::filesystem::weakly_canonical(host_path, error).string();
  if (error) path = host_path;
  if (!server.chroot.empty() && path.rfind(server.chroot + "/", 0) == 0) {
    path.erase(0, server.chroot.size());
  }
  return path;
}

std::string HostPath(const MysqlAddress& server, const std::string& server_path) {
  return server.chroot + server_path;
}

std::string BinlogStatusSql(const MysqlAddress& server) {
  return server.is_mysql() ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
}

std::filesystem::path TestServersScript() {
  return SourceDir() / "tests" / "servers" / "testservers.sh";
}

ScopedServer::ScopedServer(std::string kind)
    : kind_(std::move(kind)), dir_(MakeTempDir("rowbridge-" + kind_)) {}

ScopedServer::ScopedServer(std::string kind, std::filesystem::path dir)
    : kind_(std::move(kind)), dir_(std::move(dir)), owned_(false) {}

ScopedServer::~ScopedServer() {
  // A first start that failed stopped what it started and keeps the directory for its logs.
  if (started_ && owned_) StopAndRemove(dir_, kind_.c_str());
}

void ScopedServer::Stop() {
  RunScript({"stop", "--only=" + kind_, dir_.string()});
}

void ScopedServer::Kill() {
  RunScript({"stop", "--kill", "--only=" + kind_, dir_.string()});
}

std::string ScopedServer::Launch(const std::vector<std::string>& mariadbd_options) {
  StartInDir(dir_, kind_, mariadbd_options, owned_);
  started_ = true;
  return RunScript({"env", dir_.string()});
}

std::string ScopedServer::EnvSource() const {
  return "testservers.sh env " + dir_.string();
}

ScopedMariaDb::ScopedMariaDb(std::vector<std::string> mariadbd_options) : ScopedServer("mariadb") {
  Start(mariadbd_options);
}

void ScopedMariaDb::Start(const std::vector<std::string>& more_options) {
  address_ = MysqlFrom(FromEnvFile(Launch(more_options)), EnvSource());
}

ScopedClickHouse::ScopedClickHouse() : ScopedServer("clickhouse") {
  Start();
}

void ScopedClickHouse::Start() {
  address_ = ClickHouseFrom(FromEnvFile(Launch()), EnvSource());
}

ScopedZooKeeper::ScopedZooKeeper() : ScopedServer("zookeeper") {
  Start();
}

void ScopedZooKeeper::Start() {
  const std::string env = Launch();
  hosts_ = ValueFromEnvFile(env, "ROWBRIDGE_TEST_ZK_HOSTS");
  pid_ = PidFrom(ValueFromEnvFile(env, "ROWBRIDGE_TEST_ZK_PID"));
  if (hosts_.empty()) Fail(ErrorCode::kConfig, "{}: no ZooKeeper", EnvSource());
}

ScopedCluster::ScopedCluster() : ScopedServer("cluster") {
  Start();
}

ScopedCluster::ScopedCluster(const std::filesystem::path& dir) : ScopedServer("cluster", dir) {
  Start();
}

void ScopedCluster::Start() {
  const std::string env = Launch();
  name_ = ValueFromEnvFile(env, "ROWBRIDGE_TEST_CLUSTER_NAME");
  if (name_.empty()) Fail(ErrorCode::kConfig, "{}: no cluster", EnvSource());
  nodes_.clear();
  for (int n = 1; n <= 3; ++n) {
    const std::string prefix = "ROWBRIDGE_TEST_CLUSTER_NODE" + std::to_string(n);
    const std::string port = prefix + "_PORT", http_port = prefix + "_HTTP_PORT";
    ClickHouseAddress a;
    a.host = "127.0.0.1";
    a.port = PortFrom(ValueFromEnvFile(env, port), port.c_str());
    a.http_port = PortFrom(ValueFromEnvFile(env, http_port), http_port.c_str());
    a.user = "default";
    a.pid = PidFrom(ValueFromEnvFile(env, prefix + "_PID"));
    nodes_.push_back(a);
  }
}

void ScopedCluster::StopNode(size_t i) {
  RunScript({"stop", "--only=cluster-node" + std::to_string(i + 1), Dir().string()});
}

void ScopedCluster::KillNode(size_t i) {
  RunScript({"stop", "--kill", "--only=cluster-node" + std::to_string(i + 1), Dir().string()});
}

ScopedCluster& SharedCluster() {
  static std::unique_ptr<ScopedCluster> cluster = [] {
    const std::string shared = Env("ROWBRIDGE_TEST_CLUSTER_DIR");
    return shared.empty() ? std::make_unique<ScopedCluster>()
                          : std::make_unique<ScopedCluster>(std::filesystem::path(shared));
  }();
  return *cluster;
}

namespace {

// The shared server, or why it could not start (tried once per process).
struct SharedZooKeeperState {
  std::unique_ptr<ScopedZooKeeper> server;
  std::string problem;
};

SharedZooKeeperState& SharedState() {
  static SharedZooKeeperState state = [] {
    SharedZooKeeperState s;
    try {
      s.server = std::make_unique<ScopedZooKeeper>();
    } catch (const Error& e) {
      s.problem = e.what();
    }
    return s;
  }();
  return state;
}

}  // namespace

ScopedZooKeeper& SharedZooKeeper() {
  SharedZooKeeperState& state = SharedState();
  if (state.server == nullptr) Fail(ErrorCode::kConfig, "{}", state.problem);
  return *state.server;
}

std::string ZooKeeperUnavailable() {
  return SharedState().problem;
}

}  // namespace rowbridge::testing
