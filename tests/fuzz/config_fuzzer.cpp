// libFuzzer target for the config loader: any text must yield a Config or an Error(kConfig); a
// yaml-cpp exception (or anything else) escaping is a bug. Loaded configs are also rendered and
// matched, since those read what the loader produced.
//
// Seed corpus: tests/data/config/*.yaml.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "config/effective_config.h"
#include "config/loader.h"
#include "config/table_matcher.h"
#include "config/target_template.h"

using namespace rowbridge;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  config::LoadOptions options;
  // A fixed environment keeps runs reproducible.
  options.env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "MYSQL_PASSWORD") return "secret";
    if (name == "PORT") return "3306";
    return std::nullopt;
  };
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  try {
    config::Config config = config::ParseConfig(text, "fuzz.yaml", options);
    config::RenderEffectiveConfig(config, config::RenderFormat::kJson);
    config::RenderEffectiveConfig(config, config::RenderFormat::kYaml);
    config::TableMatcher matcher(config.tables);
    int rule = matcher.Match("shop", "orders");
    if (rule != config::TableMatcher::kNoRule) {
      config::ExpandTarget(config.tables[rule].target, config.target.database, "shop", "orders");
    }
    config::ParseListenAddress(config.http.listen);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kConfig) std::abort();
  }
  return 0;
}
