// The ALTERs that bring a target table's columns in line with its source table after a schema
// change: renames, then drops, then adds and type changes, then DEFAULT changes. Added columns
// take the source's default, which fills the rows the target already holds (mapping/
// column_default.h says which defaults ClickHouse can express; the others are reported through
// `on_default_not_carried` and a warning, and the column is added or kept without them). Each
// statement is sent only if the target's current columns (read again after every statement) still
// need it, so applying the same change twice (a retry after a cut connection) sends nothing twice.
// A rename whose new column the target has already (a replay over a rename ClickHouse had, or a
// name an older column had) still fills the new column of the rows written before it.
// A change ClickHouse cannot make (a key column renamed, dropped or retyped) throws
// Error(kUnsupported) before any statement of its step.
// With a cluster (target.cluster) each statement runs on the local Replicated tables ON CLUSTER
// and on every host's Distributed table, in the order tables/cluster_alter.h gives.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binlog/table_map.h"
#include "clickhouse/type_name.h"
#include "config/config.h"
#include "tables/cluster_alter.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::pipeline {

struct SourceColumnChange {
  const std::vector<binlog::ColumnDef>* before = nullptr;  // null: not known; only adds follow
  const std::vector<binlog::ColumnDef>* after = nullptr;
  const std::vector<std::pair<std::string, std::string>>* renames = nullptr;  // old -> new
  // The versions of the rows this session wrote before the change, [first, next): a replay from
  // an older checkpoint wrote them under the old names into a target that already had the new
  // ones (next == first: none, or not known).
  uint64_t session_first_version = 0;
  uint64_t next_version = 0;
};

class TargetAlter {
 public:
  // `key`: the target's key (ORDER BY) columns; `source` names the source table in messages;
  // `cluster`: target.cluster ("" for one server). `on_default_not_carried` (optional) is called
  // with the column's name when a source default is not carried.
  TargetAlter(std::string source, tables::TargetTable& target, const config::TableRule& rule,
              std::vector<std::string> key, tables::TargetCatalog& targets,
              tables::TableResolver& resolver, const std::string& cluster = {},
              std::function<void(const std::string&)> on_default_not_carried = {});

  void Apply(const SourceColumnChange& change);

 private:
  void RenameColumns(const SourceColumnChange& change);
  // A rename into a target that has both columns (a replay over a rename ClickHouse had, or a
  // name used before): the rows written before it get the new column's values from the old one.
  void FillReplayedRows(const SourceColumnChange& change, const std::string& from,
                        const std::string& to, const binlog::ColumnDef& now, bool rename_supported);
  void DropColumns(const SourceColumnChange& change);
  void AddOrRetypeColumns(const SourceColumnChange& change);
  void FollowDefaults(const SourceColumnChange& change);

  // The column `column` was before the change (through renames), or nullptr.
  static const binlog::ColumnDef* ColumnBefore(const SourceColumnChange& change,
                                               const std::string& column);
  // " DEFAULT <expression>" for a column added as `type`, or "" (reported if not carried).
  std::string AddedDefault(const binlog::ColumnDef& column, const clickhouse::TypeDesc& type);
  void ReportDefault(const binlog::ColumnDef& column, const std::string& why);
  // Writes the column's values into the parts that lack it and waits for the mutation.
  void MaterializeColumn(const std::string& column);
  // The target's parts without `column` / mutation work left (TargetCatalog::PendingMutations;
  // on a cluster: of its data tables, summed over every host).
  uint64_t PartsWithoutColumn(const std::string& column);
  uint64_t PendingMutations();
  // Returns once the target has no mutation work left (at most 10 minutes, then Error kTimeout
  // naming `before`, what waits for them; a warning after 30 s).
  void WaitForMutations(const std::string& before);

  bool IsKey(const std::string& name) const;
  clickhouse::TypeDesc TargetTypeOf(const binlog::ColumnDef& column) const;
  std::string TypeOf(const binlog::ColumnDef& column) const;
  // Runs `ALTER TABLE <target> <action>` (on a cluster: after WaitForMutations, ClusterAlter::Run
  // with `order`, and `leaves` to skip what is done already), then reads the target's columns
  // again.
  void Run(const std::string& action, tables::ClusterAlter::Order order,
           const std::optional<tables::ColumnState>& leaves = std::nullopt);
  // The same for an ALTER that drops, retypes or renames a column, after WaitForMutations.
  void RunAfterMutations(const std::string& action, tables::ClusterAlter::Order order,
                         const std::optional<tables::ColumnState>& leaves = std::nullopt);

  std::string source_;
  tables::TargetTable& target_;
  const config::TableRule& rule_;
  std::vector<std::string> key_;
  tables::TargetCatalog& targets_;
  tables::TableResolver& resolver_;
  std::string quoted_;  // the target's qualified name
  std::function<void(const std::string&)> on_default_not_carried_;
  std::optional<tables::ClusterAlter> cluster_;
};

}  // namespace rowbridge::pipeline
