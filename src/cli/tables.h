// Registers the table lifecycle commands (see tables.cpp):
//
//   rowbridge tables -c FILE [--json] [--address HOST:PORT]
//       every matched table with its state. From the running `run` (GET /status on http.listen,
//       or --address) when it answers; else from the state store's checkpoint and the source's
//       table list matched against the rules (a source that cannot be reached is said, and the
//       checkpoint is still shown).
//   rowbridge resume|pause|resnapshot|repair -c FILE DB.TABLE [--address HOST:PORT]
//       POST /tables/DB.TABLE/<action> to the running `run` and print its answer; exit status 0
//       when it accepted the command. When no `run` answers, the command is checked against the
//       checkpoint and recorded in the state store for the next `run`, which carries it out once
//       its stream runs (cli/recorded_table_command.h); refused while a `run` of the job is
//       alive.
//
// Both send "Authorization: Bearer <http.token>" when the config sets a token.
#pragma once

#include <CLI/CLI.hpp>

namespace rowbridge::cli {

void RegisterTables(CLI::App& app);

}  // namespace rowbridge::cli
