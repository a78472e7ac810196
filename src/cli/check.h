// Registers `rowbridge check` (see check.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterCheck(CLI::App& app);

}  // namespace rowbridge::cli
