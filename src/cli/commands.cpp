#include "cli/commands.h"

namespace rowbridge::cli {

// Commands are registered from their own files; add a line here for each new one.
void RegisterCommands(CLI::App& app) { (void)app; }

}  // namespace rowbridge::cli
