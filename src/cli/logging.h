// Log output of the long-running commands: one line per event worth knowing, to stderr, as text
// ("2024-05-01 12:00:00.123 info  message") or as JSON lines ({"time":...,"level":...,"msg":...}).
#pragma once

#include "config/config.h"

namespace rowbridge::cli {

void ConfigureLogging(const config::LogConfig& log);

}  // namespace rowbridge::cli
