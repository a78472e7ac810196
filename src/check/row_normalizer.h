// Canonical text of a row on either side of a replicated table, so source and target rows can be
// compared value by value after the very conversions the pipeline applies.
//
// For each compared column the pipeline's converter is chosen once (mapping::SelectConverter for
// the source column and the target column's ClickHouse type, with the rule's out-of-range
// policy and time zone). A source value (text from a SELECT of source_select_list(): the copy's
// select expressions and text encoding, mapping/text_cell.h) is encoded as the binlog cell the
// pipeline would have seen, converted into a one-value column of the target type
// and rendered with Column::AppendText; a target value is rendered with AppendText straight from
// the block ClickHouse returned. Equal texts mean the pipeline would have written exactly what
// the target holds.
//
// NULL: "\N" for a Nullable target; into a non-Nullable target the pipeline's null_into_not_null
// rule applies (clamp writes the type's default). A value the rule's policy refuses renders as
// "<not convertible: ...>", which never equals a target value.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clickhouse/block.h"
#include "clickhouse/columns/column.h"
#include "mapping/converter.h"
#include "mapping/text_cell.h"
#include "mysql/connection.h"
#include "tables/replicated_table.h"

namespace rowbridge::check {

struct TargetColumn {
  std::string name;
  std::string type;  // as the target table declares it
};

// One row in canonical form.
struct NormalizedRow {
  std::string key;                  // key column texts, each followed by '\0'
  std::vector<std::string> values;  // one per compared column, in compared order
  uint64_t hash = 0;                // of every value (key included)
};

class RowNormalizer {
 public:
  // Compares every column of `source` (its columns known) that its rule replicates
  // (tables::IsReplicatedColumn) and `target` has, and every primary-key column. Columns that
  // cannot be compared (missing in the target, a type check cannot read, no converter for the
  // pair) are appended to `problems` by name and left out; throws Error(kConfig) if a primary-key
  // column is among them, or if the source has no primary key. The session the source rows are
  // read on must have time_zone = '+00:00' and character_set_results = binary (text_cell.h).
  RowNormalizer(const tables::ReplicatedTable& source, const std::vector<TargetColumn>& target,
                const mapping::ConverterSettings& settings, std::vector<std::string>& problems);

  // The SELECT lists for each side, in compared order.
  const std::string& source_select_list() const { return source_select_; }
  const std::string& target_select_list() const { return target_select_; }
  size_t column_count() const { return columns_.size(); }
  const std::string& column_name(size_t i) const { return columns_[i].name; }
  // Position of the first key column among compared columns, and its source definition.
  size_t first_key_column() const { return key_positions_.front(); }
  const binlog::ColumnDef& first_key_source() const;
  // "id=5" or "(a=1, b='x')" for a NormalizedRow::key.
  std::string DescribeKey(std::string_view key) const;

  // `row` is the current row of a result set selected with source_select_list().
  void NormalizeSource(const mysql::ResultSet& row, NormalizedRow& out);
  void NormalizeTarget(const clickhouse::Block& block, size_t row, NormalizedRow& out);

 private:
  struct Compared {
    std::string name;
    std::string context;  // db.table.column, for errors
    uint32_t source_index = 0;
    binlog::ColumnDef selected;  // the source column as the SELECT delivers it
    bool target_nullable = false;
    mapping::Converter converter;
    clickhouse::ColumnPtr scratch;  // of the converter's (unwrapped) target type
    std::array<uint8_t, mapping::kTextCellBufferSize> cell_buffer;
  };
  void Finish(NormalizedRow& out) const;

  const tables::SourceTableSchema& source_;
  std::vector<Compared> columns_;
  std::vector<size_t> key_positions_;  // into columns_, in key order
  std::string source_select_;
  std::string target_select_;
  mapping::ConvertScratch scratch_;
};

// Whether check can read a source column of this type from the text protocol: every type a
// source table can have (the types of row events only, and the pre-5.0 DECIMAL, are not).
bool IsCheckableSourceType(const binlog::ColumnDef& column);

}  // namespace rowbridge::check
