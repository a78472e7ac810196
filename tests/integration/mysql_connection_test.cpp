#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "mysql/connection.h"
#include "support/mysql_options.h"
#include "support/test_servers.h"

namespace rowbridge::mysql {
namespace {

// The server's default authentication: mysql_native_password on MariaDB, caching_sha2_password
// (full authentication over plain TCP on a fresh server) on MySQL.
TEST(MysqlConnection, DefaultPasswordLoginQueryAndPing) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const testing::MysqlAddress server = testing::MysqlFromEnv();
  ConnectOptions o = testing::MysqlConnectOptions(server);
  auto c = Connection::Connect(o);
  EXPECT_EQ(c->is_mariadb(), !server.is_mysql());
  EXPECT_EQ(c->auth_plugin(),
            server.is_mysql() ? "caching_sha2_password" : "mysql_native_password");
  ResultSet rs = c->Query("SELECT 1 AS one, NULL AS nothing, 'x\\0y' AS bin, @@version AS v");
  ASSERT_EQ(rs.column_count(), 4u);
  EXPECT_EQ(rs.columns()[0].name, "one");
  EXPECT_EQ(rs.ColumnIndex("v"), 3u);
  ASSERT_TRUE(rs.Next());
  EXPECT_EQ(rs.Field(0), "1");
  EXPECT_TRUE(rs.IsNull(1));
  EXPECT_EQ(rs.Field(2), std::string_view("x\0y", 3));
  EXPECT_EQ(rs.Field(3).find("MariaDB") != std::string_view::npos, !server.is_mysql());
  EXPECT_FALSE(rs.Next());
  c->Ping();
  EXPECT_EQ(c->QueryValue("SELECT CONNECTION_ID()"), std::to_string(c->connection_id()));
  auto r = c->Execute("DO 1");
  EXPECT_EQ(r.affected_rows, 0u);
}

TEST(MysqlConnection, WrongPasswordIsServerError1045) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  o.password += "-wrong";
  try {
    Connection::Connect(o);
    FAIL() << "login with a wrong password succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kServer) << e.what();
    EXPECT_EQ(e.server_code(), 1045) << e.what();
    EXPECT_EQ(e.sql_state(), "28000");
    std::string msg = e.what();
    EXPECT_NE(msg.find("1045"), std::string::npos) << msg;
    EXPECT_NE(msg.find("28000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Access denied"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fmt::format("{}:{}", o.host, o.port)), std::string::npos) << msg;
  }
}

TEST(MysqlConnection, QueryErrorCarriesCodeAndState) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  auto c = Connection::Connect(o);
  try {
    // In a database that exists: MySQL reports a missing database first (1049).
    c->Query("SELECT * FROM mysql.no_such_table");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.server_code(), 1146) << e.what();
    EXPECT_EQ(e.sql_state(), "42S02");
  }
  c->Ping();  // the session is still usable after a server error
}

}  // namespace
}  // namespace rowbridge::mysql

namespace rowbridge::mysql {
namespace {

// Creates (once per process) a user authenticated by MariaDB's ed25519 plugin with a password
// longer than 32 bytes, the case OpenSSL's Ed25519 cannot sign for.
TEST(MysqlConnection, Ed25519LoginMariaDbOnly) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  auto admin = Connection::Connect(o);
  auto plugin = admin->QueryRows(
      "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME='ed25519'");
  if (plugin.empty()) {
    try {
      admin->Execute("INSTALL SONAME 'auth_ed25519'");
    } catch (const Error& e) {
      GTEST_SKIP() << "auth_ed25519 plugin cannot be installed: " << e.what();
    }
  }
  const std::string user = fmt::format("rb_ed_{}", getpid());
  const std::string password = "an ed25519 password that is well over 32 bytes long";
  // Both loopback host names, so an anonymous ''@localhost account cannot shadow ours.
  for (const char* host : {"localhost", "127.0.0.1"}) {
    admin->Execute(fmt::format("DROP USER IF EXISTS '{}'@'{}'", user, host));
    admin->Execute(fmt::format("CREATE USER '{}'@'{}' IDENTIFIED VIA ed25519 USING PASSWORD('{}')",
                               user, host, password));
  }
  ConnectOptions eo = o;
  eo.user = user;
  eo.password = password;
  auto c = Connection::Connect(eo);
  EXPECT_EQ(c->auth_plugin(), "client_ed25519");
  EXPECT_EQ(c->QueryValue("SELECT SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"), user);
  eo.password = "wrong";
  try {
    Connection::Connect(eo);
    ADD_FAILURE() << "wrong ed25519 password accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.server_code(), 1045) << e.what();
  }
  for (const char* host : {"localhost", "127.0.0.1"}) {
    admin->Execute(fmt::format("DROP USER '{}'@'{}'", user, host));
  }
}

TEST(MysqlConnection, TlsRequiredAndVerifyCa) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  const std::string ca = testing::MysqlFromEnv().ssl_ca;
  for (TlsMode mode :
       {TlsMode::kPreferred, TlsMode::kRequired, TlsMode::kVerifyCa, TlsMode::kVerifyIdentity}) {
    if (mode >= TlsMode::kVerifyCa && ca.empty()) {
      ADD_FAILURE() << "ROWBRIDGE_TEST_MYSQL_SSL_CA unset; cannot test " << TlsModeName(mode);
      continue;
    }
    ConnectOptions t = o;
    t.tls.mode = mode;
    t.tls.ca_file = ca;
    auto c = Connection::Connect(t);
    EXPECT_TRUE(c->tls_active()) << TlsModeName(mode);
    auto cipher = c->QueryRows("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    ASSERT_EQ(cipher.size(), 1u);
    EXPECT_FALSE(cipher[0][1].value_or("").empty()) << TlsModeName(mode);
  }
}

// caching_sha2_password's full authentication, which a login takes while the server has no hash
// of the password cached (ALTER USER empties that user's entry): over plain TCP the password goes
// RSA-encrypted under the public key the server sends on request, over TLS as it is. The next
// login takes the fast path. A wrong password is refused on either path.
TEST(MysqlConnection, CachingSha2FullAuthenticationOverTcpAndTlsMySqlOnly) {
  ROWBRIDGE_REQUIRE_MYSQL();
  const testing::MysqlAddress server = testing::MysqlFromEnv();
  if (!server.is_mysql()) GTEST_SKIP() << "caching_sha2_password is MySQL's";
  auto admin = Connection::Connect(testing::MysqlConnectOptions(server));
  const std::string user = "rb_sha2_" + std::to_string(::getpid());
  admin->Execute("DROP USER IF EXISTS '" + user + "'@'%'");
  admin->Execute("CREATE USER '" + user +
                 "'@'%' IDENTIFIED WITH caching_sha2_password BY 'S3cret-full-auth'");
  for (TlsMode mode : {TlsMode::kDisabled, TlsMode::kRequired}) {
    SCOPED_TRACE(TlsModeName(mode));
    admin->Execute("ALTER USER '" + user + "'@'%' IDENTIFIED BY 'S3cret-full-auth'");
    ConnectOptions o = testing::MysqlConnectOptions(server);
    o.user = user;
    o.password = "S3cret-full-auth";
    o.tls.mode = mode;
    for (int login = 0; login < 2; ++login) {  // full authentication, then the fast path
      auto c = Connection::Connect(o);
      EXPECT_EQ(c->tls_active(), mode != TlsMode::kDisabled);
      EXPECT_EQ(c->auth_plugin(), "caching_sha2_password");
      EXPECT_EQ(c->QueryValue("SELECT CURRENT_USER()"), user + "@%");
    }
    admin->Execute("ALTER USER '" + user + "'@'%' IDENTIFIED BY 'S3cret-full-auth'");
    o.password = "not-the-password";
    try {
      Connection::Connect(o);
      ADD_FAILURE() << "a wrong password logged in";
    } catch (const Error& e) {
      EXPECT_EQ(e.server_code(), 1045) << e.what();
    }
  }
  admin->Execute("DROP USER '" + user + "'@'%'");
}

// A source port that does not speak MySQL and waits for its client (here ClickHouse's native
// port) is named within the connect timeout, not after the read timeout.
TEST(MysqlConnection, APortThatSendsNoGreetingIsNamedWithinTheConnectTimeout) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ROWBRIDGE_REQUIRE_CLICKHOUSE();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  o.port = testing::ClickHouseFromEnv().port;
  o.tcp.connect_timeout = std::chrono::seconds(2);
  o.tcp.read_timeout = std::chrono::seconds(300);
  const auto started = std::chrono::steady_clock::now();
  try {
    Connection::Connect(o);
    ADD_FAILURE() << "connected to ClickHouse's native port as if it were MySQL";
  } catch (const Error& e) {
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(6)) << e.what();
    EXPECT_NE(std::string(e.what()).find("sent no MySQL greeting within 2000 ms"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(o.port)), std::string::npos) << e.what();
  }
}

TEST(MysqlConnection, TlsVerifyCaRejectsAForeignCa) {
  ROWBRIDGE_REQUIRE_MYSQL();
  ConnectOptions o = testing::MysqlConnectOptions(testing::MysqlFromEnv());
  // A CA that did not sign the server's certificate: a throwaway self-signed one.
  auto dir = std::filesystem::temp_directory_path() / fmt::format("rb-foreign-ca-{}", getpid());
  std::filesystem::create_directories(dir);
  std::string cmd = fmt::format(
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout {0}/k.pem -out {0}/ca.pem -days 1 "
      "-subj /CN=foreign >/dev/null 2>&1",
      dir.string());
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  o.tls.mode = TlsMode::kVerifyCa;
  o.tls.ca_file = (dir / "ca.pem").string();
  try {
    Connection::Connect(o);
    ADD_FAILURE() << "verify-ca accepted a certificate from another CA";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNetwork) << e.what();
    EXPECT_NE(std::string(e.what()).find("certificate"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rowbridge::mysql
