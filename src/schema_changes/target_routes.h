// TargetRoutes: the target renames and aliases in flight, as the checkpoint records them
// (state::Checkpoint::target_renames, target_aliases), and what they mean for a table's rows at
// a position.
//
// A target rename (a RENAME of a source table whose target rowbridge renamed with it) is recorded
// before ClickHouse's RENAME runs, so that a replay from a checkpoint before it sends the old
// name's rows to the target under its new name. An alias sends a renamed table's rows into its
// old name's target, from the RENAME until the table leaves the name again. Both are kept in the
// order they were made; a replay that meets a rename or alias again does not add it twice.
//
// Pure data: the pipeline records each change in the checkpoint.
#pragma once

#include <string>
#include <vector>

#include "schema/schema_history.h"
#include "state/checkpoint.h"

namespace rowbridge::schema_changes {

class TargetRoutes {
 public:
  TargetRoutes() = default;
  TargetRoutes(std::vector<state::TargetRename> renames, std::vector<state::TargetAlias> aliases)
      : renames_(std::move(renames)), aliases_(std::move(aliases)) {}

  // The names renames after `at` give the target named `label`, in their order (a -> b, b -> c:
  // {b, c}); empty when none does.
  std::vector<std::string> RenamesAfter(const std::string& label,
                                        const schema::BinlogPosition& at) const;
  // Whether a rename after `at` gives some target the name `label`.
  bool RenamedToLater(const std::string& label, const schema::BinlogPosition& at) const;
  // The alias that sends the rows of source table `table` ("db.table") at `at` elsewhere than
  // the rules' target; nullptr when none does.
  const state::TargetAlias* AliasAt(const std::string& table,
                                    const schema::BinlogPosition& at) const;

  // Adds `rename` unless the same statement's rename of the same target is there.
  void AddRename(const state::TargetRename& rename);
  // Adds `alias` unless an alias of that table made at the same position is there.
  void AddAlias(const state::TargetAlias& alias);
  // `table` left its name at `at`: every open alias of it made at or before `at` ends there.
  // Returns the aliases ended (with their end set).
  std::vector<state::TargetAlias> EndAliases(const std::string& table,
                                             const schema::BinlogPosition& at);

  const std::vector<state::TargetRename>& renames() const { return renames_; }
  const std::vector<state::TargetAlias>& aliases() const { return aliases_; }

 private:
  std::vector<state::TargetRename> renames_;
  std::vector<state::TargetAlias> aliases_;
};

}  // namespace rowbridge::schema_changes
