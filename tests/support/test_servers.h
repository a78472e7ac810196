// The real MariaDB and ClickHouse servers integration tests run against.
//
// scripts/test.sh starts one shared MariaDB and one shared ClickHouse with
// tests/servers/testservers.sh and exports their addresses as ROWBRIDGE_TEST_* environment
// variables; MysqlFromEnv() and ClickHouseFromEnv() read them. A test that needs a server starts
// with ROWBRIDGE_REQUIRE_MYSQL() / ROWBRIDGE_REQUIRE_CLICKHOUSE(): without the variables the test
// is skipped with a loud message, or FAILS when ROWBRIDGE_REQUIRE_SERVERS=1 (set by
// scripts/test.sh, so CI can never skip). Tests share these servers and run in parallel: each test
// works in its own database (UniqueName()) and never changes global settings. A test that must
// restart, kill or reconfigure a server (SET GLOBAL, startup options) starts its own with
// ScopedMariaDb.
//
// The SQL helpers drive the `mariadb` and `clickhouse-client` command lines, so tests can prepare
// and check data independently of rowbridge's own protocol code.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::testing {

struct MysqlAddress {
  std::string host;  // always 127.0.0.1
  uint16_t port = 0;
  std::string user;  // root, all privileges
  std::string password;
  std::string datadir;          // where the binlog files are
  std::string socket;           // unix socket path
  std::string ssl_ca;           // the CA that signed the server certificate (for 127.0.0.1)
  std::string binlog_basename;  // datadir/mysql-bin: files are <basename>.000001 ...
  std::string repl_user;        // replication grants (+ SELECT, RELOAD) only
  std::string repl_password;
  std::string norepl_user;  // SELECT only: must be refused a binlog dump
  std::string norepl_password;
  std::string ssl_user;  // may only log in over TLS
  std::string ssl_password;
  std::string servers_dir;  // the testservers.sh directory holding this server
  int pid = 0;              // the server's process id (0 if not known), e.g. for SIGSTOP
  // testservers.sh --source: "mariadb" (10.11, the default), "mysql" (9.x) or "mariadb11".
  std::string flavor = "mariadb";
  std::string chroot;  // the chroot the server runs in ("" for the host's MariaDB)

  bool is_mysql() const { return flavor == "mysql"; }
};

// A path of the test host as the server sees it (without its chroot's prefix, symbolic links
// resolved), e.g. to compare with @@datadir.
std::string ServerPath(const MysqlAddress& server, const std::string& host_path);
// The other way: an absolute path the server names (its binlog index, say) on the test host.
std::string HostPath(const MysqlAddress& server, const std::string& server_path);

struct ClickHouseAddress {
  std::string host;        // always 127.0.0.1
  uint16_t port = 0;       // native protocol
  uint16_t http_port = 0;  // HTTP interface
  uint16_t tls_port = 0;   // native protocol over TLS (0 if the server has none)
  std::string ssl_ca;      // the CA that signed the TLS certificate (for 127.0.0.1)
  std::string user;        // `default`, empty password
  std::string password;
  std::string auth_user;  // a user that has a password
  std::string auth_password;
  std::string readonly_user;  // readonly=1, empty password
  std::string servers_dir;
  int pid = 0;  // clickhouse-server's process id (0 if not known)
};

// The names of the ROWBRIDGE_TEST_* variables a server needs that are unset (space separated);
// empty when all are set.
std::string MissingMysqlEnv();
std::string MissingClickHouseEnv();

// True when ROWBRIDGE_REQUIRE_SERVERS=1: a missing server is then a failure, not a skip.
bool ServersRequired();

// The shared servers' addresses. Throws rowbridge::Error (kConfig) naming the missing variables,
// so a test that forgot ROWBRIDGE_REQUIRE_* fails instead of passing.
MysqlAddress MysqlFromEnv();
ClickHouseAddress ClickHouseFromEnv();

// A name no other test process uses at the same time ("<prefix>_<pid>_<counter>"), for databases
// and tables on the shared servers.
std::string UniqueName(std::string_view prefix);

// A replica server_id that no other test, in this process or another one, uses on the shared
// MariaDB at the same time: two dumps with one server_id kick each other off (error 4052).
uint32_t UniqueServerId();

// Runs `sql` (any number of statements, sent on stdin) through the mariadb client as the address's
// root user, in `database` if not empty, and returns what it printed: batch mode, one row per line,
// columns separated by tabs, no column names; special characters escaped as the client does (\t,
// \n, \\, \0) and NULL as "NULL". Throws rowbridge::Error (kServer) with the client's error
// message, the address and the start of the SQL when the client fails.
std::string RunMysqlSql(const MysqlAddress& server, std::string_view sql,
                        std::string_view database = {});

// The same for ClickHouse (several statements, TabSeparated output) as the default user, over
// the HTTP interface (clickhouse-client for SET/USE/temporary tables). Throws rowbridge::Error
// (kServer) with the server's message and the start of the SQL when a statement fails.
std::string RunClickHouseSql(const ClickHouseAddress& server, std::string_view sql);

// A derived table (with its alias) of one BIGINT column `seq` holding 1..n, for
// `INSERT ... SELECT ... FROM <it>` on every source flavor: MariaDB's seq_1_to_N tables do not
// exist in MySQL, and a recursive CTE meets MySQL's recursion limit.
std::string SequenceTable(uint64_t n);

// The statement that shows the binlog's current file and position (File, Position, ...):
// SHOW MASTER STATUS, which MySQL 8.4 removed for SHOW BINARY LOG STATUS.
std::string BinlogStatusSql(const MysqlAddress& server);

// tests/servers/testservers.sh in the source tree.
std::filesystem::path TestServersScript();

// What the servers a test starts for itself share: a new directory under $TMPDIR (or /tmp)
// holding one server that testservers.sh starts, for restart and kill tests and anything needing
// startup options or global settings. The destructor stops the server and deletes the directory
// (kept when ROWBRIDGE_KEEP_TEST_SERVERS=1, or when stopping failed). If the test process dies
// without running destructors, a watchdog still stops it. A start that fails throws
// rowbridge::Error whose message holds the last lines of the server's logs.
class ScopedServer {
 public:
  ScopedServer(const ScopedServer&) = delete;
  ScopedServer& operator=(const ScopedServer&) = delete;

  // A clean shutdown (TERM, wait), as an operator would do.
  void Stop();
  // SIGKILL: the server dies mid-work, as in a crash.
  void Kill();

 protected:
  // `kind`: "mariadb", "clickhouse" or "zookeeper". Makes the directory; Launch starts the server.
  explicit ScopedServer(std::string kind);
  // The servers of `kind` someone else started in `dir` (testservers.sh start): Launch starts
  // what of them does not run, and nothing is stopped at the end.
  ScopedServer(std::string kind, std::filesystem::path dir);
  ~ScopedServer();
  // Starts the server (again: on the same data and ports) with extra mariadbd options, returns
  // once it answers, and returns what `testservers.sh env` prints for it.
  std::string Launch(const std::vector<std::string>& mariadbd_options = {});
  // "testservers.sh env <dir>", for messages.
  std::string EnvSource() const;
  const std::filesystem::path& Dir() const { return dir_; }

 private:
  const std::string kind_;
  const std::filesystem::path dir_;
  const bool owned_ = true;  // started here: stopped and removed at the end
  bool started_ = false;     // once: the directory is removed at the end
};

// A MariaDB of the test's own, started with extra mariadbd options (e.g.
// "--binlog-row-image=MINIMAL"). "--skip-log-bin" among the options turns binary logging off.
class ScopedMariaDb : public ScopedServer {
 public:
  explicit ScopedMariaDb(std::vector<std::string> mariadbd_options = {});

  const MysqlAddress& address() const { return address_; }
  std::string Sql(std::string_view sql, std::string_view database = {}) const {
    return RunMysqlSql(address_, sql, database);
  }

  // Starts it again on the same data directory and port; `more_options` are added to the ones
  // given at construction. Returns once it answers.
  void Start(const std::vector<std::string>& more_options = {});

 private:
  MysqlAddress address_;
};

// A ClickHouse of the test's own: for restart and kill tests.
class ScopedClickHouse : public ScopedServer {
 public:
  ScopedClickHouse();

  const ClickHouseAddress& address() const { return address_; }
  std::string Sql(std::string_view sql) const { return RunClickHouseSql(address_, sql); }

  void Start();  // again, on the same data and ports; returns once it answers

 private:
  ClickHouseAddress address_;
};

// A ZooKeeper of the test's own (testservers.sh --zookeeper): a standalone server on a free port
// of 127.0.0.1, tickTime 500 ms (it grants session timeouts of 1 s to 10 s). Its sessions survive
// a Stop and Start in its data, as over a restart of a real server.
class ScopedZooKeeper : public ScopedServer {
 public:
  ScopedZooKeeper();

  // The connect string, 127.0.0.1:<port> (ha.hosts).
  const std::string& hosts() const { return hosts_; }
  int pid() const { return pid_; }

  void Start();  // again, on the same data and port; returns once it answers

 private:
  std::string hosts_;
  int pid_ = 0;
};

// A ClickHouse cluster of the test's own (testservers.sh --cluster): a ZooKeeper and three
// clickhouse-server nodes on free ports of 127.0.0.1 forming the cluster name(): shard 1 is
// node(0), shard 2 is node(1) and node(2) (internal_replication, macros {shard} and {replica}).
class ScopedCluster : public ScopedServer {
 public:
  ScopedCluster();
  // The cluster `testservers.sh start --cluster` started in `dir` (the nodes that do not run are
  // started again), left running at the end.
  explicit ScopedCluster(const std::filesystem::path& dir);

  const std::string& name() const { return name_; }
  // Node i (0..2): user `default`, no password.
  const ClickHouseAddress& node(size_t i) const { return nodes_.at(i); }
  size_t size() const { return nodes_.size(); }
  std::string Sql(size_t node, std::string_view sql) const {
    return RunClickHouseSql(nodes_.at(node), sql);
  }

  // Stops node i cleanly (TERM), or kills it (KILL).
  void StopNode(size_t i);
  void KillNode(size_t i);
  // Starts every node that does not run, on its data and ports; returns once they answer.
  void Start();

 private:
  std::string name_;
  std::vector<ClickHouseAddress> nodes_;
};

// The cluster every test of this process shares: started by the first call (ZooKeeper's java and
// three servers, about ten seconds), stopped when the process exits. Throws rowbridge::Error when
// it cannot start.
//
// When ROWBRIDGE_TEST_CLUSTER_DIR names the directory of a cluster testservers.sh started
// (scripts/test.sh does, once for the whole run; `testservers.sh env` exports it), that cluster is
// used instead and left running: tests on it stop and kill nodes, so CMakeLists.txt gives the
// tests that use it a RESOURCE_LOCK (ctest runs them one at a time), and each leaves every node
// running and drops what it made.
ScopedCluster& SharedCluster();

// The ZooKeeper every test of this process shares: started by the first call (a few seconds of
// java), stopped when the process exits. Throws rowbridge::Error when it cannot start (not
// installed: apt-get install zookeeper); use ROWBRIDGE_REQUIRE_ZOOKEEPER() to skip or fail then.
ScopedZooKeeper& SharedZooKeeper();
// Why SharedZooKeeper() cannot start, or "" when it runs (starting it if needed).
std::string ZooKeeperUnavailable();

}  // namespace rowbridge::testing

// GTEST_SKIP()/GTEST_FAIL() only leave the function they are written in, so these are macros.
// Use them first thing in a TEST body or in a fixture's SetUp().
#define ROWBRIDGE_REQUIRE_SERVER_ENV_(missing_expr, what)                          \
  do {                                                                             \
    const std::string rowbridge_missing_ = (missing_expr);                         \
    if (!rowbridge_missing_.empty()) {                                             \
      if (::rowbridge::testing::ServersRequired()) {                               \
        GTEST_FAIL() << "\n\n*** " what                                            \
                        " test server NOT AVAILABLE although "                     \
                        "ROWBRIDGE_REQUIRE_SERVERS=1: unset "                      \
                     << rowbridge_missing_ << " ***\n";                            \
      } else {                                                                     \
        GTEST_SKIP() << "\n\n*** " what " test server NOT AVAILABLE (unset: "      \
                     << rowbridge_missing_                                         \
                     << "); this test did NOT run. Run it via scripts/test.sh or " \
                        "eval \"$(tests/servers/testservers.sh env DIR)\" ***\n";  \
      }                                                                            \
    }                                                                              \
  } while (0)

#define ROWBRIDGE_REQUIRE_MYSQL() \
  ROWBRIDGE_REQUIRE_SERVER_ENV_(::rowbridge::testing::MissingMysqlEnv(), "MariaDB")
#define ROWBRIDGE_REQUIRE_CLICKHOUSE() \
  ROWBRIDGE_REQUIRE_SERVER_ENV_(::rowbridge::testing::MissingClickHouseEnv(), "ClickHouse")
// Starts SharedZooKeeper() if needed; skips the test when it cannot start, or FAILS when
// ROWBRIDGE_REQUIRE_SERVERS=1.
#define ROWBRIDGE_REQUIRE_ZOOKEEPER()                                                            \
  do {                                                                                           \
    const std::string rowbridge_zk_problem_ = ::rowbridge::testing::ZooKeeperUnavailable();      \
    if (!rowbridge_zk_problem_.empty()) {                                                        \
      if (::rowbridge::testing::ServersRequired()) {                                             \
        GTEST_FAIL() << "\n\n*** ZooKeeper test server NOT AVAILABLE although "                  \
                        "ROWBRIDGE_REQUIRE_SERVERS=1: "                                          \
                     << rowbridge_zk_problem_ << " ***\n";                                       \
      } else {                                                                                   \
        GTEST_SKIP() << "\n\n*** ZooKeeper test server NOT AVAILABLE (" << rowbridge_zk_problem_ \
                     << "); this test did NOT run ***\n";                                        \
      }                                                                                          \
    }                                                                                            \
  } while (0)
