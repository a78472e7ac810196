// The `rowbridge` command: parses the command line and dispatches to one command per file in
// src/cli/. Every command reports failure by throwing rowbridge::Error; this is the one place that
// turns an Error into a message on stderr and an exit status.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "common/error.h"

int main(int argc, char** argv) {
  CLI::App app{"rowbridge: replicate MySQL and MariaDB into ClickHouse"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("rowbridge ") + ROWBRIDGE_VERSION);
  rowbridge::cli::RegisterCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const rowbridge::Error& e) {
    std::fprintf(stderr, "rowbridge: %s: %s\n", rowbridge::ErrorCodeName(e.code()), e.what());
    return 1;
  }
  return 0;
}
