// Proves the servers tests/servers/testservers.sh starts are what the other integration tests
// assume: the right versions, binlog settings, users, TLS, and a dedicated server that survives a
// restart and a crash. Everything goes through the mariadb and clickhouse-client command lines.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "support/subprocess.h"
#include "support/test_servers.h"

namespace rowbridge::testing {
namespace {

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Logs in as `user` over TCP and runs `sql`; returns the client's result without throwing.
CommandResult MysqlAs(const MysqlAddress& server, const std::string& user,
                      const std::string& password, const std::string& sql,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {"mariadb",
                                   "--no-defaults",
                                   "--batch",
                                   "--skip-column-names",
                                   "--protocol=TCP",
                                   "--host=" + server.host,
                                   "--port=" + std::to_string(server.port),
                                   "--user=" + user,
                                   "--password=" + password};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--execute=" + sql);
  return RunCommand(argv);
}

TEST(TestServers, MariaDbIsConfiguredForBinlogReplication) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const MysqlAddress mysql = MysqlFromEnv();
  EXPECT_EQ(mysql.host, "127.0.0.1");
  const std::string version_pattern = mysql.flavor == "mysql"       ? "9.%"
                                      : mysql.flavor == "mariadb11" ? "11.8.%"
                                                                    : "10.11.%";
  const std::string settings =
      RunMysqlSql(mysql, "SELECT VERSION() LIKE '" + version_pattern +
                             "', @@log_bin, @@binlog_format, @@server_id, "
                             "@@log_bin_basename, @@datadir, @@bind_address;");
  // A chroot's server names its files as it sees them.
  EXPECT_EQ(Trimmed(settings), "1\t1\tROW\t1\t" + ServerPath(mysql, mysql.binlog_basename) + "\t" +
                                   ServerPath(mysql, mysql.datadir) + "/\t127.0.0.1");
  EXPECT_TRUE(std::filesystem::exists(mysql.binlog_basename + ".index"));
  EXPECT_TRUE(std::filesystem::exists(mysql.socket)) << mysql.socket;
}

TEST(TestServers, MariaDbRoundTripsRowsInItsOwnDatabase) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const MysqlAddress mysql = MysqlFromEnv();
  const std::string db = UniqueName("smoke");
  RunMysqlSql(mysql, "CREATE DATABASE " + db + "; CREATE TABLE " + db +
                         ".t (id INT PRIMARY KEY, s VARCHAR(20));"
                         "INSERT INTO " +
                         db + ".t VALUES (1, 'ä€😀'), (2, NULL);");
  EXPECT_EQ(RunMysqlSql(mysql, "SELECT id, s FROM t ORDER BY id", db), "1\tä€😀\n2\tNULL\n");
  RunMysqlSql(mysql, "DROP DATABASE " + db);
}

TEST(TestServers, MariaDbSqlErrorsThrowWithTheServerMessage) {
  ROWBRIDGE_REQUIRE_MYSQL();
  try {
    RunMysqlSql(MysqlFromEnv(), "SELECT * FROM no_such_db.no_such_table");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer);
    EXPECT_NE(std::string(e.what()).find("no_such_db"), std::string::npos) << e.what();
  }
}

TEST(TestServers, MariaDbUsersHaveTheirIntendedGrants) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const MysqlAddress mysql = MysqlFromEnv();
  CommandResult repl = MysqlAs(mysql, mysql.repl_user, mysql.repl_password, "SHOW BINARY LOGS");
  EXPECT_EQ(repl.exit_code, 0) << repl.err;
  EXPECT_NE(repl.out.find("mysql-bin.0"), std::string::npos);

  CommandResult norepl =
      MysqlAs(mysql, mysql.norepl_user, mysql.norepl_password, "SHOW BINARY LOGS");
  EXPECT_NE(norepl.exit_code, 0);
  EXPECT_NE(norepl.err.find(mysql.is_mysql() ? "REPLICATION CLIENT" : "BINLOG MONITOR"),
            std::string::npos)
      << norepl.err;
  CommandResult norepl_select =
      MysqlAs(mysql, mysql.norepl_user, mysql.norepl_password, "SELECT 1");
  EXPECT_EQ(norepl_select.exit_code, 0) << norepl_select.err;

  CommandResult wrong = MysqlAs(mysql, mysql.user, mysql.password + "x", "SELECT 1");
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("Access denied"), std::string::npos) << wrong.err;
}

TEST(TestServers, MariaDbSpeaksVerifiedTls) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const MysqlAddress mysql = MysqlFromEnv();
  ASSERT_TRUE(std::filesystem::exists(mysql.ssl_ca)) << mysql.ssl_ca;
  CommandResult tls =
      MysqlAs(mysql, mysql.ssl_user, mysql.ssl_password, "SHOW STATUS LIKE 'Ssl_version'",
              {"--ssl", "--ssl-ca=" + mysql.ssl_ca, "--ssl-verify-server-cert"});
  ASSERT_EQ(tls.exit_code, 0) << tls.err;
  EXPECT_NE(tls.out.find("TLSv1."), std::string::npos) << tls.out;

  CommandResult plain =
      MysqlAs(mysql, mysql.ssl_user, mysql.ssl_password, "SELECT 1", {"--skip-ssl"});
  EXPECT_NE(plain.exit_code, 0) << "the TLS-only user logged in without TLS";
}

TEST(TestServers, ClickHouseAnswersOnTheNativePort) {
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  const ClickHouseAddress ch = ClickHouseFromEnv();
  EXPECT_EQ(ch.host, "127.0.0.1");
  EXPECT_EQ(
      RunClickHouseSql(
          ch,
          "SELECT version() LIKE '18.16.%', toUnixTimestamp(toDateTime('1970-01-02 00:00:00'))"),
      "1\t86400\n");
  const std::string db = UniqueName("smoke");
  RunClickHouseSql(ch, "CREATE DATABASE " + db + ";" + "CREATE TABLE " + db +
                           ".t (id UInt32, s String) ENGINE = MergeTree ORDER BY id;" +
                           "INSERT INTO " + db + ".t VALUES (1, 'ä€😀'), (2, 'b');");
  EXPECT_EQ(RunClickHouseSql(ch, "SELECT id, s FROM " + db + ".t ORDER BY id"), "1\tä€😀\n2\tb\n");
  RunClickHouseSql(ch, "DROP DATABASE " + db);
}

TEST(TestServers, ClickHouseUsersHaveTheirIntendedRights) {
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  const ClickHouseAddress ch = ClickHouseFromEnv();
  const std::vector<std::string> base = {"clickhouse-client", "--host=" + ch.host,
                                         "--port=" + std::to_string(ch.port)};
  auto as = [&](std::vector<std::string> extra, const std::string& query) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--query=" + query);
    return RunCommand(argv);
  };
  CommandResult auth =
      as({"--user=" + ch.auth_user, "--password=" + ch.auth_password}, "SELECT 42");
  EXPECT_EQ(auth.exit_code, 0) << auth.err;
  EXPECT_EQ(auth.out, "42\n");
  CommandResult bad = as({"--user=" + ch.auth_user, "--password=wrong"}, "SELECT 42");
  EXPECT_NE(bad.exit_code, 0);
  CommandResult readonly =
      as({"--user=" + ch.readonly_user}, "CREATE TABLE ro_probe (x UInt8) ENGINE = Memory");
  EXPECT_NE(readonly.exit_code, 0);
  EXPECT_NE(readonly.err.find("readonly"), std::string::npos) << readonly.err;
}

TEST(TestServers, ClickHouseAnswersOnTheHttpPort) {
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  const ClickHouseAddress ch = ClickHouseFromEnv();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(ch.http_port);
  ASSERT_EQ(::inet_pton(AF_INET, ch.host.c_str(), &addr.sin_addr), 1);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
      << "cannot connect to " << ch.host << ":" << ch.http_port;
  const std::string request = "GET /?query=SELECT%2040%2B2 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_EQ(::write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) response.append(buffer, n);
  ::close(fd);
  EXPECT_EQ(response.rfind("HTTP/1.0 200", 0), 0u) << response;
  EXPECT_EQ(response.substr(response.size() - 3), "42\n") << response;
}

TEST(TestServers, MissingEnvironmentIsAnErrorNotAnEmptyAddress) {
  const char* saved = std::getenv("ROWBRIDGE_TEST_MYSQL_PORT");
  const std::string value = saved ? saved : "";
  ::unsetenv("ROWBRIDGE_TEST_MYSQL_PORT");
  EXPECT_NE(MissingMysqlEnv().find("ROWBRIDGE_TEST_MYSQL_PORT"), std::string::npos);
  EXPECT_THROW(MysqlFromEnv(), Error);
  if (saved) ::setenv("ROWBRIDGE_TEST_MYSQL_PORT", value.c_str(), 1);
}

TEST(ScopedMariaDb, RunsWithItsOwnOptionsAndSurvivesRestartAndCrash) {
  ScopedMariaDb server({"--binlog-row-image=MINIMAL", "--binlog-row-metadata=FULL"});
  const MysqlAddress& mysql = server.address();
  EXPECT_EQ(server.Sql("SELECT @@binlog_row_image, @@binlog_row_metadata, @@port"),
            "MINIMAL\tFULL\t" + std::to_string(mysql.port) + "\n");
  if (MissingMysqlEnv().empty()) {
    EXPECT_NE(mysql.port, MysqlFromEnv().port);
    EXPECT_NE(mysql.datadir, MysqlFromEnv().datadir);
  }
  server.Sql(
      "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY) ENGINE=InnoDB;"
      "INSERT INTO d.t VALUES (1);");

  server.Stop();
  EXPECT_THROW(server.Sql("SELECT 1"), Error);
  server.Start();
  EXPECT_EQ(server.address().port, mysql.port);
  server.Sql("INSERT INTO d.t VALUES (2)");

  server.Kill();
  EXPECT_THROW(server.Sql("SELECT 1"), Error);
  server.Start({"--binlog-row-image=NOBLOB"});
  // Committed rows survive the crash; options of the first start stay, later ones win.
  EXPECT_EQ(server.Sql("SELECT GROUP_CONCAT(id ORDER BY id) FROM d.t"), "1,2\n");
  EXPECT_EQ(server.Sql("SELECT @@binlog_row_image, @@binlog_row_metadata"), "NOBLOB\tFULL\n");
}

// The pid is the server's own (tests SIGSTOP it), and a restart updates it.
TEST(ScopedMariaDb, AddressNamesTheServerProcess) {
  ScopedMariaDb server;
  auto command_of = [](int pid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    return name;
  };
  const std::string program = server.address().is_mysql() ? "mysqld" : "mariadbd";
  const int first = server.address().pid;
  ASSERT_GT(first, 0);
  EXPECT_EQ(command_of(first), program);
  server.Kill();
  server.Start();
  EXPECT_NE(server.address().pid, first);
  EXPECT_EQ(command_of(server.address().pid), program);
}

// A server that will not start fails the test with the reason from its error log in the message,
// not just a pointer to a file in a directory CI may not keep.
TEST(ScopedMariaDb, AFailedStartCarriesTheServersErrorLog) {
  // The failed start keeps its directory for inspection; keep it out of the real TMPDIR.
  const char* saved = std::getenv("TMPDIR");
  const std::string saved_value = saved ? saved : "";
  std::string scratch = std::filesystem::temp_directory_path() / "rowbridge-failstart.XXXXXX";
  ASSERT_NE(::mkdtemp(scratch.data()), nullptr);
  ::setenv("TMPDIR", scratch.c_str(), 1);
  std::string message;
  try {
    ScopedMariaDb server({"--rowbridge-no-such-option"});
    ADD_FAILURE() << "mariadbd started with an unknown option";
  } catch (const Error& e) {
    message = e.what();
  }
  if (saved) {
    ::setenv("TMPDIR", saved_value.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  std::filesystem::remove_all(scratch);
  EXPECT_NE(message.find("mariadb failed to start in " + scratch), std::string::npos) << message;
  EXPECT_NE(message.find("last lines of " + scratch), std::string::npos) << message;
  EXPECT_NE(message.find("unknown option '--rowbridge-no-such-option'"), std::string::npos)
      << message;
}

TEST(ScopedMariaDb, DestructorStopsTheServerAndRemovesItsDirectory) {
  std::string dir;
  int port = 0;
  {
    ScopedMariaDb server;
    dir = server.address().servers_dir;
    port = server.address().port;
    ASSERT_TRUE(std::filesystem::is_directory(dir));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  MysqlAddress gone;
  gone.host = "127.0.0.1";
  gone.port = static_cast<uint16_t>(port);
  gone.user = "root";
  EXPECT_THROW(RunMysqlSql(gone, "SELECT 1"), Error);
}

}  // namespace
}  // namespace rowbridge::testing

namespace rowbridge::testing {
namespace {

TEST(ScopedClickHouse, KeepsItsDataAndPortsAcrossRestartAndCrash) {
  ScopedClickHouse server;
  const ClickHouseAddress first = server.address();
  EXPECT_NE(first.tls_port, 0);
  EXPECT_TRUE(std::filesystem::is_regular_file(first.ssl_ca)) << first.ssl_ca;
  if (MissingClickHouseEnv().empty()) {
    EXPECT_NE(first.port, ClickHouseFromEnv().port);
  }
  server.Sql(
      "CREATE TABLE default.t (id UInt32) ENGINE = MergeTree ORDER BY id;"
      "INSERT INTO default.t VALUES (1), (2);");
  server.Stop();
  EXPECT_THROW(server.Sql("SELECT 1"), Error);
  server.Start();
  EXPECT_EQ(server.address().port, first.port);
  EXPECT_EQ(server.address().http_port, first.http_port);
  EXPECT_EQ(server.address().tls_port, first.tls_port);
  server.Kill();
  EXPECT_THROW(server.Sql("SELECT 1"), Error);
  server.Start();
  EXPECT_EQ(server.Sql("SELECT groupArray(id) FROM (SELECT id FROM default.t ORDER BY id)"),
            "[1,2]\n");
}

// testservers.sh --cluster: two shards, the second with two replicas, macros per node, ON CLUSTER
// DDL through ZooKeeper, replication between the replicas, and a node that stops and comes back
// on its data and ports.
TEST(ScopedClickHouseCluster, ShardsReplicateAndANodeComesBack) {
  ScopedCluster cluster;
  ASSERT_EQ(cluster.size(), 3u);
  EXPECT_EQ(cluster.Sql(0,
                        "SELECT shard_num, replica_num, port FROM system.clusters WHERE cluster "
                        "= '" +
                            cluster.name() + "' ORDER BY shard_num, replica_num"),
            "1\t1\t" + std::to_string(cluster.node(0).port) + "\n2\t1\t" +
                std::to_string(cluster.node(1).port) + "\n2\t2\t" +
                std::to_string(cluster.node(2).port) + "\n");
  for (size_t n = 0; n < 3; ++n) {
    EXPECT_EQ(cluster.Sql(n, "SELECT substitution FROM system.macros ORDER BY macro"),
              std::string(n == 0   ? "node1\n01\n"
                          : n == 1 ? "node2\n02\n"
                                   : "node3\n02\n"));
  }
  const std::string on = " ON CLUSTER " + cluster.name();
  cluster.Sql(0, "CREATE DATABASE smoke" + on + ";" + "CREATE TABLE smoke.t_local" + on +
                     " (id UInt32) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/smoke/"
                     "t_local', '{replica}') ORDER BY id;" +
                     "CREATE TABLE smoke.t" + on + " AS smoke.t_local ENGINE = Distributed(" +
                     cluster.name() + ", smoke, t_local, id)");
  cluster.Sql(0, "SET insert_distributed_sync = 1; INSERT INTO smoke.t VALUES (1), (2), (3), (4)");
  EXPECT_EQ(cluster.Sql(0, "SELECT count() FROM smoke.t_local"), "2\n");
  cluster.Sql(2, "SYSTEM SYNC REPLICA smoke.t_local");
  EXPECT_EQ(cluster.Sql(2, "SELECT groupArray(id) FROM (SELECT id FROM smoke.t_local ORDER BY id)"),
            "[1,3]\n");
  cluster.StopNode(1);
  EXPECT_THROW(cluster.Sql(1, "SELECT 1"), Error);
  cluster.Sql(0, "SET insert_distributed_sync = 1; INSERT INTO smoke.t VALUES (5)");
  cluster.Start();
  cluster.Sql(1, "SYSTEM SYNC REPLICA smoke.t_local");
  EXPECT_EQ(cluster.Sql(1, "SELECT groupArray(id) FROM (SELECT id FROM smoke.t_local ORDER BY id)"),
            "[1,3,5]\n");
}

}  // namespace
}  // namespace rowbridge::testing
