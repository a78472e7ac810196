#include "cli/commands.h"

#include "cli/check.h"
#include "cli/dump_binlog.h"
#include "cli/run.h"
#include "cli/snapshot.h"
#include "cli/tables.h"
#include "cli/validate.h"

namespace rowbridge::cli {

// Commands are registered from their own files; add a line here for each new one.
void RegisterCommands(CLI::App& app) {
  RegisterDumpBinlog(app);
  RegisterRun(app);
  RegisterSnapshot(app);
  RegisterValidate(app);
  RegisterCheck(app);
  RegisterTables(app);
}

}  // namespace rowbridge::cli
