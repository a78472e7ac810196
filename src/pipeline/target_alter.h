// The ALTERs that bring a target table's columns in line with its source table after a schema
// change: renames, then drops, then adds and type changes. Each statement is sent only if the
// target's current columns (read again after every statement) still need it, so applying the same
// change twice (a retry after a cut connection) sends nothing twice. A change ClickHouse cannot
// make (a key column renamed, dropped or retyped) throws Error(kUnsupported) before any statement
// of its step.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "binlog/table_map.h"
#include "config/config.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::pipeline {

struct SourceColumnChange {
  const std::vector<binlog::ColumnDef>* before = nullptr;  // null: not known; only adds follow
  const std::vector<binlog::ColumnDef>* after = nullptr;
  const std::vector<std::pair<std::string, std::string>>* renames = nullptr;  // old -> new
  // Literal defaults of added columns: the source fills its existing rows with them.
  const std::map<std::string, std::string>* added_defaults = nullptr;
};

class TargetAlter {
 public:
  // `key`: the target's key (ORDER BY) columns; `source` names the source table in messages.
  TargetAlter(std::string source, tables::TargetTable& target, const config::TableRule& rule,
              std::vector<std::string> key, tables::TargetCatalog& targets,
              tables::TableResolver& resolver);

  void Apply(const SourceColumnChange& change);

 private:
  void RenameColumns(const SourceColumnChange& change);
  void DropColumns(const SourceColumnChange& change);
  void AddOrRetypeColumns(const SourceColumnChange& change);

  bool IsKey(const std::string& name) const;
  std::string TypeOf(const binlog::ColumnDef& column) const;
  // Runs one ALTER and reads the target's columns again.
  void Run(const std::string& sql);

  std::string source_;
  tables::TargetTable& target_;
  const config::TableRule& rule_;
  std::vector<std::string> key_;
  tables::TargetCatalog& targets_;
  tables::TableResolver& resolver_;
  std::string quoted_;  // the target's qualified name
};

}  // namespace rowbridge::pipeline
