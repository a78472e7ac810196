// Runs a program from a test and captures what it prints: for driving the mariadb,
// clickhouse-client, mariadb-binlog and rowbridge command lines. Test support only; production code
// never spawns.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::testing {

struct CommandResult {
  int exit_code = 0;  // the program's exit status, or 128 + signal number if a signal ended it
  std::string out;    // everything it wrote to stdout
  std::string err;    // everything it wrote to stderr
};

// Runs argv (argv[0] is looked up in PATH) with `input` on its stdin, and waits for it to end.
// No shell is involved, so arguments need no quoting. A non-zero exit is returned, not thrown: the
// caller decides. Throws rowbridge::Error if the program cannot be started (kIo) or is still
// running after `timeout` (kTimeout; it is killed first). Ignores SIGPIPE in this process, so a
// program that exits without reading its input is reported instead of killing the test.
CommandResult RunCommand(const std::vector<std::string>& argv, std::string_view input = {},
                         std::chrono::seconds timeout = std::chrono::seconds(300));

// argv joined with spaces, for messages.
std::string CommandLine(const std::vector<std::string>& argv);

}  // namespace rowbridge::testing
