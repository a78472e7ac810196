// RangeRepairer: makes one key range of a live target equal to its source table(s) by writing
// into the target, while the stream keeps writing into it too (check/table_repair.h says why that
// is exact: the repair's versions sit in a band below every version the stream hands out after
// the repair was recorded).
//
// For a range the check found different (table_check.h), in this order:
//   1. `before_range` (the pipeline waits there until its stream has applied the source's binlog
//      up to the source's current end, so a difference that was only the stream's lag is gone);
//   2. the target's current rows of the range are read and normalised, as the check reads them;
//   3. the source rows of the range are read with the check's normalised columns plus every
//      column as the copy selects it: a row whose key the target lacks is written as an insert, a
//      row whose values differ as an update (changelog mode tells the two apart), each converted
//      by the stream's own conversion plan; an equal row is not written;
//   4. the target's keys no source row has get a delete: a copy of the target's current row with
//      the deleted flag (replica) or event type 'delete' (changelog), written by ClickHouse itself
//      (INSERT ... SELECT), addressed by key literals that are first proved to select exactly
//      those keys (or fewer, when the stream deleted some meanwhile); a key type whose literals do
//      not (e.g. a DateTime in another time zone) fails the range with a message rather than
//      deleting anything else.
// Keys that several source tables of one target share are left alone (the check reports them).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/row_normalizer.h"
#include "clickhouse/client.h"
#include "config/target_template.h"
#include "mapping/conversion_plan.h"
#include "mapping/text_cell.h"
#include "mysql/connection.h"
#include "tables/replicated_table.h"

namespace rowbridge::check {

// A key range as the check reads it: the WHERE condition on the source tables (empty: all rows)
// and the query of the target's current rows in the range (RowNormalizer::target_select_list()).
struct CheckedRange {
  std::string source_where;
  std::string target_rows_sql;
};

struct RepairCounts {
  uint64_t ranges = 0;        // ranges repaired
  uint64_t rows_written = 0;  // inserts and updates
  uint64_t keys_deleted = 0;
  uint64_t keys_shared = 0;  // keys in several source tables, left alone
};

class RangeRepairer {
 public:
  // `sources` (columns known) go into `target` (database, table), whose columns are `columns`
  // (tables::TargetCatalog::ReadColumns); `plans[i]` is the plan options of sources[i]
  // (tables::TableResolver::PlanOptionsFor). Versions are handed out from `version_base` up; the
  // band ends 2^48 above it.
  RangeRepairer(std::vector<tables::ReplicatedTable> sources,
                std::vector<mapping::PlanOptions> plans, config::QualifiedName target,
                const std::vector<mapping::TargetColumn>& columns, uint64_t version_base,
                mysql::Connection& source, clickhouse::Client& client,
                std::function<void(mysql::Connection&)> before_range);

  // Repairs `range` (see above). Throws Error on a server error or a key it cannot address.
  void Repair(RowNormalizer& normalizer, const CheckedRange& range);

  const RepairCounts& counts() const { return counts_; }
  // Every row written from now on takes `version` (a cascade repair's one version,
  // check/cascade_repair.h says why that is exact) instead of the next one of the band.
  void UseOneVersion(uint64_t version) {
    version_base_ = next_version_ = version;
    one_version_ = true;
  }

 private:
  struct SourcePlan {
    std::vector<binlog::ColumnDef> selected;  // every column, as the copy's SELECT reads it
    std::string select_list;
    std::unique_ptr<mapping::TextRowEncoder> encoder;
    mapping::ConversionPlan plan;
    std::string insert_sql;
  };
  struct TargetRow {
    uint64_t hash = 0;
    std::vector<std::string> values;
    int seen = 0;  // source rows with its key
  };

  uint64_t TakeVersion();
  void ReadTarget(RowNormalizer& normalizer, const CheckedRange& range);
  void WriteSourceRows(RowNormalizer& normalizer, const CheckedRange& range);
  void DeleteExtraKeys(RowNormalizer& normalizer, const CheckedRange& range);
  // "FROM ... WHERE ...": the target's current row of each key `condition` selects.
  std::string CurrentRows(const std::string& condition) const;
  // "(k1, k2) IN ((1, 'a'), ...)" for normalised keys; the literal of each key column follows
  // its target type.
  std::string KeyCondition(const std::vector<const std::string*>& keys) const;

  std::vector<tables::ReplicatedTable> sources_;
  config::QualifiedName target_;
  std::string target_label_;  // db.table
  std::string target_table_;  // quoted
  bool replica_ = true;
  std::string version_column_, is_deleted_column_, event_type_column_;
  std::vector<SourcePlan> plans_;
  std::vector<std::string> key_names_;       // quoted, in key order
  std::string key_list_;                     // key_names_ joined by ", "
  std::vector<bool> key_numeric_;            // literal without quotes
  std::vector<std::string> copied_columns_;  // quoted: the target columns a delete copies
  uint64_t version_base_ = 0;
  uint64_t next_version_ = 0;
  bool one_version_ = false;
  mysql::Connection& source_;
  clickhouse::Client& client_;
  std::function<void(mysql::Connection&)> before_range_;
  std::unordered_map<std::string, TargetRow> target_rows_;  // by normalised key
  NormalizedRow scratch_;
  RepairCounts counts_;
};

}  // namespace rowbridge::check
