// The example configuration the package installs as /etc/rowbridge/example.yaml
// (packaging/example.yaml) loads without a problem or a warning, as the service would load it:
// with the variables of /etc/rowbridge/<name>.env and systemd's STATE_DIRECTORY, and by hand
// without STATE_DIRECTORY.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "config/loader.h"
#include "support/paths.h"

namespace rowbridge::config {
namespace {

std::string ExamplePath() {
  return (rowbridge::testing::SourceDir() / "packaging/example.yaml");
}

Config LoadExample(const std::map<std::string, std::string>& env) {
  LoadOptions options;
  options.env = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  Config config;
  try {
    config = LoadConfigFile(ExamplePath(), options);
  } catch (const Error& e) {
    ADD_FAILURE() << "the packaged example does not load:\n" << e.what();
    return config;
  }
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  return config;
}

TEST(PackagingExample, LoadsAsTheServiceLoadsIt) {
  Config config = LoadExample({{"MYSQL_PASSWORD", "mysql-secret-1"},
                               {"CH_PASSWORD", "clickhouse-secret-2"},
                               {"STATE_DIRECTORY", "/var/lib/rowbridge/shop"}});
  EXPECT_EQ(config.source.password, "mysql-secret-1");
  EXPECT_EQ(config.target.password, "clickhouse-secret-2");
  EXPECT_EQ(config.target.port, 9000);
  EXPECT_EQ(config.state.store, StateStore::kFile);
  EXPECT_EQ(config.state.path, "/var/lib/rowbridge/shop");
  EXPECT_EQ(config.tables.size(), 2u);
}

TEST(PackagingExample, LoadsByHandWithoutStateDirectoryOrClickHousePassword) {
  Config config = LoadExample({{"MYSQL_PASSWORD", "mysql-secret-1"}});
  EXPECT_EQ(config.state.path, "/var/lib/rowbridge/example");
  EXPECT_EQ(config.target.password, "");
}

}  // namespace
}  // namespace rowbridge::config
