// Where tests find their data: the repository's tests/data, and the shared MySQL binlog fixtures
// that live beside the repository (../shared/fixtures/mysql-binlogs).
#pragma once

#include <filesystem>
#include <string>

namespace rowbridge::testing {

std::filesystem::path SourceDir();
std::filesystem::path TestDataDir();

// The MySQL binlog fixtures, or an empty path if they cannot be found. Tests that need them call
// RequireMysqlFixtures() which skips the test with a loud message naming where it looked.
std::filesystem::path MysqlFixturesDir();

}  // namespace rowbridge::testing

// GTEST_SKIP() from a helper does not stop the calling test, so this is a macro.
#define ROWBRIDGE_REQUIRE_MYSQL_FIXTURES()                                              \
  do {                                                                                  \
    if (::rowbridge::testing::MysqlFixturesDir().empty()) {                             \
      GTEST_SKIP() << "\n\n*** MySQL binlog fixtures NOT FOUND (looked for "            \
                      "../shared/fixtures/mysql-binlogs next to the repository and in " \
                      "$ROWBRIDGE_MYSQL_FIXTURES); this test did NOT run ***\n";        \
    }                                                                                   \
  } while (0)
