#include "server/table_commands.h"

namespace rowbridge::server {

const char* TableActionName(TableAction action) {
  switch (action) {
    case TableAction::kResume:
      return "resume";
    case TableAction::kPause:
      return "pause";
    case TableAction::kResnapshot:
      return "resnapshot";
    case TableAction::kRepair:
      return "repair";
  }
  return "?";
}

std::optional<TableAction> ParseTableAction(std::string_view name) {
  for (TableAction action : {TableAction::kResume, TableAction::kPause, TableAction::kResnapshot,
                             TableAction::kRepair}) {
    if (name == TableActionName(action)) return action;
  }
  return std::nullopt;
}

}  // namespace rowbridge::server
