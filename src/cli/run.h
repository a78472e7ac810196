// `rowbridge run -c FILE`: continuous replication (pipeline::Pipeline) with the admin HTTP
// endpoint (/metrics, /status, /healthz). SIGTERM or SIGINT: flush, checkpoint, exit 0. A
// non-transient error is printed once and the exit status is non-zero.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterRun(CLI::App& app);

}  // namespace rowbridge::cli
