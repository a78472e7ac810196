// `rowbridge snapshot -c FILE`: a one-off initial copy of every table the rules match
// (snapshot::SnapshotRunner), without streaming afterwards. Resumable: run it again after a stop
// or a crash and it continues at the first unfinished chunk. Progress: a live bar on a terminal,
// log lines otherwise; /metrics and /status while it runs (when http is enabled).
// SIGTERM/SIGINT: the chunks in flight are written, the progress is saved, exit 0.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterSnapshot(CLI::App& app);

}  // namespace rowbridge::cli
