// The effective configuration, every default filled in, for people to read: `rowbridge validate`
// prints it and /status includes it. Secrets (source.password, target.password) are replaced by
// "***" (an empty password stays empty: that is not a secret, and worth seeing).
//
// Sizes and durations are rendered as text ("64MiB", "1m30s") and keys that are unset are left
// out, so the YAML rendering is itself a valid config file that loads back to the same Config
// (once the passwords are put back).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/config.h"

namespace rowbridge::config {

inline constexpr std::string_view kRedacted = "***";

nlohmann::ordered_json EffectiveConfigJson(const Config& config);

enum class RenderFormat { kYaml, kJson };

std::string RenderEffectiveConfig(const Config& config, RenderFormat format);

}  // namespace rowbridge::config
