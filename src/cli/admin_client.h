// The admin HTTP of a running `rowbridge run`, as the other commands reach it: where it listens
// (http.listen, or --address), one request, and a table command sent there, or recorded for the
// next `run` when none answers (recorded_table_command.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "server/table_commands.h"

namespace rowbridge::cli {

struct AdminEndpoint {
  std::string host;  // to connect to
  uint16_t port = 0;
  std::string label;  // the address as configured (or given), for messages
};

// The admin address from `address_flag` or http.listen; nullopt with the reason when none is
// known.
std::optional<AdminEndpoint> FindAdminEndpoint(const config::Config& config,
                                               const std::string& address_flag, std::string& why);

struct HttpAnswer {
  bool connected = false;
  std::string error;  // why not connected
  int status = 0;
  std::string body;
};

// One GET or POST (empty body), with "Authorization: Bearer <token>" when `token` is set.
HttpAnswer CallAdmin(const AdminEndpoint& endpoint, const std::string& token,
                     const std::string& method, const std::string& path);

// /tables/<db.table>/<action> with the name percent-encoded: table names may hold any byte.
std::string TableCommandPath(const std::string& name, const std::string& action);

struct TableCommandOutcome {
  bool refused = false;   // by the running `run`, or by the checks before recording
  bool recorded = false;  // no `run` answered: recorded in the checkpoint for the next one
  std::optional<AdminEndpoint> endpoint;  // the `run` that accepted it
  std::string message;                    // one line for the operator: "<action> <table>: ..."
};

// Sends `action` on `table` ("db.table") to the running `run` (POST /tables/...), or records it
// for the next `run` when none answers. Throws Error for a malformed table name, a refused
// recording (Error(kInvalidArgument)) or a store that cannot be read.
TableCommandOutcome SubmitTableCommand(const config::Config& config, server::TableAction action,
                                       const std::string& table, const std::string& address_flag);

}  // namespace rowbridge::cli
