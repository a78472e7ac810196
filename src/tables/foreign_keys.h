// The foreign keys among the source's tables, as information_schema describes them
// (REFERENTIAL_CONSTRAINTS for the actions, KEY_COLUMN_USAGE for the columns in order), and
// which of them change child rows on their own when a parent row changes: ON DELETE / ON UPDATE
// CASCADE, SET NULL and SET DEFAULT. MariaDB, and MySQL up to 9.5 (or 9.6 on with
// innodb_native_foreign_keys=ON), run those changes inside InnoDB and do not write them to the
// binlog (docs/running.md, "Foreign-key cascades").
//
// Pure logic: the rows are read by source_foreign_keys.h. A graph is immutable once built, so
// any number of threads may read one.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/column_type.h"
#include "tables/source_schema.h"

namespace rowbridge::tables {

enum class ForeignKeyAction { kRestrict, kNoAction, kCascade, kSetNull, kSetDefault };

// RESTRICT, NO ACTION, CASCADE, SET NULL, SET DEFAULT (information_schema's spelling); nullopt
// for anything else.
std::optional<ForeignKeyAction> ParseForeignKeyAction(std::string_view text);
const char* ForeignKeyActionName(ForeignKeyAction action);
// Whether the action changes child rows (CASCADE, SET NULL, SET DEFAULT).
bool ChangesChildren(ForeignKeyAction action);

// Whether a cascade can carry a key column of this type: integers (by value) and strings (by
// their bytes); the stream collects such keys and the repair addresses child rows by them.
bool IsCascadeIntegerKey(binlog::ColumnType type);
bool IsCascadeStringKey(binlog::ColumnType type);

struct ForeignKey {
  SourceTableName child;
  std::string name;                        // the constraint's
  std::vector<std::string> child_columns;  // in the key's order
  SourceTableName parent;
  std::vector<std::string> parent_columns;  // referenced, in the same order
  ForeignKeyAction on_delete = ForeignKeyAction::kRestrict;
  ForeignKeyAction on_update = ForeignKeyAction::kRestrict;

  bool cascades() const { return ChangesChildren(on_delete) || ChangesChildren(on_update); }
  // "db.child(pid) -> db.parent(id) ON DELETE CASCADE ON UPDATE CASCADE"
  std::string Describe() const;
  bool operator==(const ForeignKey&) const = default;
};

// One row of KEY_COLUMN_USAGE joined with REFERENTIAL_CONSTRAINTS (source_foreign_keys.h).
struct ForeignKeyColumnRow {
  std::string child_database, child_table, constraint_name, child_column;
  std::string parent_database, parent_table, parent_column;
  uint32_t position = 0;  // ORDINAL_POSITION, 1-based
  std::string delete_rule, update_rule;
};

// The relations of `rows`, one per constraint, columns in ORDINAL_POSITION order. Throws
// Error(kInvalidArgument) for a rule that is not one of the five actions.
std::vector<ForeignKey> ForeignKeysFromRows(std::vector<ForeignKeyColumnRow> rows);

class ForeignKeyGraph {
 public:
  ForeignKeyGraph() = default;
  explicit ForeignKeyGraph(std::vector<ForeignKey> keys);
  // Movable, not copyable: the index points into keys_.
  ForeignKeyGraph(ForeignKeyGraph&&) = default;
  ForeignKeyGraph& operator=(ForeignKeyGraph&&) = default;
  ForeignKeyGraph(const ForeignKeyGraph&) = delete;
  ForeignKeyGraph& operator=(const ForeignKeyGraph&) = delete;

  // The relations whose parent is `parent` and whose actions change child rows (any order).
  const std::vector<const ForeignKey*>& CascadingChildren(const SourceTableName& parent) const;
  const std::vector<ForeignKey>& keys() const { return keys_; }
  bool empty() const { return keys_.empty(); }

 private:
  std::vector<ForeignKey> keys_;
  std::map<SourceTableName, std::vector<const ForeignKey*>> children_;
};

// For `rowbridge validate`: one line per cascading relation that touches a replicated table
// (`replicated`), saying how its actions reach the targets: "logged by the source", "repaired by
// rowbridge", "child not replicated" (and which tables below it are), or "cannot be exact" and
// why. `logged`/`how`: tables::SourceLogsCascades; `minimal_images`: binlog_row_image=MINIMAL.
std::vector<std::string> DescribeCascadeHandling(const ForeignKeyGraph& graph,
                                                 const std::set<SourceTableName>& replicated,
                                                 bool logged, const std::string& how,
                                                 bool minimal_images);

}  // namespace rowbridge::tables
