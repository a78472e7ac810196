// `rowbridge validate -c FILE`: checks everything `run` needs without changing anything — the
// file, both connections, the source's settings (log_bin, binlog_format=ROW, binlog_row_image,
// server_id clash, replication grants), the state store, and every matched table's target columns
// (or the columns its CREATE TABLE would make) — and prints every problem at once. Secrets are
// never printed. Exit status 0 only when there is no problem.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterValidate(CLI::App& app);

}  // namespace rowbridge::cli
