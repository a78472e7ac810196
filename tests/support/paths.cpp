#include "support/paths.h"

#include <cstdlib>

namespace rowbridge::testing {

std::filesystem::path SourceDir() {
  return ROWBRIDGE_SOURCE_DIR;
}

std::filesystem::path TestDataDir() {
  return SourceDir() / "tests" / "data";
}

std::filesystem::path MysqlFixturesDir() {
  if (const char* env = std::getenv("ROWBRIDGE_MYSQL_FIXTURES")) {
    if (std::filesystem::is_directory(env)) return env;
  }
  for (auto dir = SourceDir(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    auto candidate = dir / "shared" / "fixtures" / "mysql-binlogs";
    if (std::filesystem::is_directory(candidate)) return candidate;
  }
  return {};
}

}  // namespace rowbridge::testing
