// Where the MySQL integration tests find their server: the ROWBRIDGE_TEST_MYSQL_* variables that
// tests/servers/testservers.sh exports. A small local stand-in for tests/support/test_servers.h
// (not merged on this branch yet); switch to it once it lands.
//
// ROWBRIDGE_REQUIRE_TEST_MYSQL(opts) fills `opts` (a mysql::ConnectOptions) or skips the test
// loudly (fails when ROWBRIDGE_REQUIRE_SERVERS=1).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mysql/connection.h"

namespace rowbridge::testing {

inline std::string EnvOr(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// Empty string when every needed variable is set; otherwise the missing names.
inline std::string MysqlEnvMissing() {
  std::string missing;
  for (const char* name : {"ROWBRIDGE_TEST_MYSQL_HOST", "ROWBRIDGE_TEST_MYSQL_PORT",
                           "ROWBRIDGE_TEST_MYSQL_USER", "ROWBRIDGE_TEST_MYSQL_PASSWORD"}) {
    if (std::getenv(name) == nullptr) missing += std::string(missing.empty() ? "" : " ") + name;
  }
  return missing;
}

inline mysql::ConnectOptions MysqlOptionsFromEnv() {
  mysql::ConnectOptions o;
  o.host = EnvOr("ROWBRIDGE_TEST_MYSQL_HOST");
  o.port = static_cast<uint16_t>(std::stoi(EnvOr("ROWBRIDGE_TEST_MYSQL_PORT", "0")));
  o.user = EnvOr("ROWBRIDGE_TEST_MYSQL_USER");
  o.password = EnvOr("ROWBRIDGE_TEST_MYSQL_PASSWORD");
  o.tcp.connect_timeout = std::chrono::seconds(10);
  o.tcp.read_timeout = std::chrono::seconds(60);
  return o;
}

}  // namespace rowbridge::testing

#define ROWBRIDGE_REQUIRE_TEST_MYSQL(opts)                                                \
  do {                                                                                    \
    std::string rb_missing_ = ::rowbridge::testing::MysqlEnvMissing();                    \
    if (!rb_missing_.empty()) {                                                           \
      if (::rowbridge::testing::EnvOr("ROWBRIDGE_REQUIRE_SERVERS") == "1") {              \
        GTEST_FAIL() << "\n\n*** MariaDB test server NOT AVAILABLE although "             \
                        "ROWBRIDGE_REQUIRE_SERVERS=1: unset "                             \
                     << rb_missing_ << " ***\n";                                          \
      }                                                                                   \
      GTEST_SKIP() << "\n\n*** MariaDB test server NOT AVAILABLE (unset: " << rb_missing_ \
                   << "); this test did NOT run ***\n";                                   \
    }                                                                                     \
    opts = ::rowbridge::testing::MysqlOptionsFromEnv();                                   \
  } while (0)
