// Each rowbridge command adds itself to the CLI here. A command's callback does its work and
// throws rowbridge::Error on failure; main() reports it.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterCommands(CLI::App& app);

}  // namespace rowbridge::cli
