// Commands an operator sends to one replicated table of the running process over the admin HTTP
// server (POST /tables/<db>.<table>/<action>, admin_server.h) or `rowbridge resume|pause|
// resnapshot|repair` (src/cli/tables.cpp, which posts there).
//
// The server only parses, authenticates and answers; what an action does is the pipeline's: it
// registers a TableCommandHandler (AdminServer::SetTableCommandHandler) while it can act on
// tables, and clears it when it cannot. The handler decides and answers with the HTTP status:
//   202  accepted (the action is under way or done)
//   404  no such table among the replicated ones
//   409  the table is not in a state the action applies to (e.g. resume of a streaming table)
//   503  not ready (e.g. still starting); also the server's own answer while no handler is set
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace rowbridge::server {

enum class TableAction { kResume, kPause, kResnapshot, kRepair };

// "resume", "pause", "resnapshot", "repair": the action's name in the URL and on the command line.
const char* TableActionName(TableAction action);
// nullopt for any other name.
std::optional<TableAction> ParseTableAction(std::string_view name);

struct TableCommandResult {
  int http_status = 503;
  std::string message;  // for a person: what was done, or why not
};

// Called on an HTTP worker thread with the source table's names; must return quickly (hand the
// work to the pipeline, do not wait for it) and must not call SetTableCommandHandler.
using TableCommandHandler = std::function<TableCommandResult(
    const std::string& database, const std::string& table, TableAction action)>;

}  // namespace rowbridge::server
