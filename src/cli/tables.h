// Registers the table lifecycle commands (see tables.cpp):
//
//   rowbridge tables -c FILE [--json] [--address HOST:PORT]
//       every matched table with its state. From the running `run` (GET /status on http.listen,
//       or --address) when it answers; else from the state store's checkpoint and the source's
//       table list matched against the rules (a source that cannot be reached is said, and the
//       checkpoint is still shown).
//   rowbridge resume|pause|resnapshot -c FILE DB.TABLE [--address HOST:PORT]
//       POST /tables/DB.TABLE/<action> to the running `run` and print its answer; exit status 0
//       when it accepted the command. Needs `run` to be running: without it they fail naming the
//       address they tried.
//
// Both send "Authorization: Bearer <http.token>" when the config sets a token.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterTables(CLI::App& app);

}  // namespace rowbridge::cli
