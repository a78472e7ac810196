// ConversionPlan: how the rows of one source MySQL table become rows of one target ClickHouse
// table. Built once per (table, schema) from the source columns and the target table's columns;
// AppendRow then converts a row image into a TargetBlock with one converter call per column.
//
// Mapping rules (docs/type-mapping.md):
//  - Columns are matched by NAME (exact, else a unique case-insensitive match). include/exclude
//    lists (source names) choose which source columns are replicated.
//  - Every replicated source column needs a target column it can convert into; target columns
//    that are MATERIALIZED or ALIAS can never be written.
//  - Meta columns: replica mode writes `version` (UInt64 or Int64) and `is_deleted` (UInt8, Int8
//    or Bool); changelog mode writes `event_type` (String, LowCardinality(String) or an Enum8/16
//    declaring 'insert', 'update' and 'delete') and `version`. Names are configurable.
//  - Target columns that are neither replicated nor meta are left out of the INSERT, so the
//    server fills them with their DEFAULT expression (or the type's default).
//  - Every problem of the table is collected; Build throws one Error(kConfig) listing them all,
//    one line per column: "db.table.column: <MySQL type> → <ClickHouse type>: <why>".
//
// Partial row images (binlog_row_image=MINIMAL/NOBLOB leave columns out):
//  - changelog: a missing column gets the target column's default (NULL if Nullable);
//  - replica: a row must be complete, since the row it writes replaces the whole previous row;
//    the one exception is a DELETE whose image has every key column (the other columns are
//    irrelevant once _is_deleted = 1). Anything else throws Error(kConfig) naming the missing
//    columns and binlog_row_image.
//
// NULL into a target column that is not Nullable follows the null_into_not_null rule (clamp:
// the type's default value).
//
// A plan is used by one thread at a time (it owns scratch buffers). After AppendRow throws, the
// block may hold a partial row: Clear() it (the batch is failed anyway).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/cell.h"
#include "binlog/row_cursor.h"
#include "binlog/table_map.h"
#include "clickhouse/block.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/type_name.h"
#include "mapping/converter.h"

namespace rowbridge::mapping {

enum class TableMode { kReplica, kChangelog };

struct MetaColumnNames {
  std::string version = "_version";
  std::string is_deleted = "_is_deleted";  // replica mode
  std::string event_type = "_event_type";  // changelog mode
};

enum class RowKind : uint8_t { kInsert, kUpdate, kDelete };
// "insert", "update", "delete": the event_type values of changelog tables.
std::string_view RowKindName(RowKind kind);

struct RowMeta {
  RowKind kind = RowKind::kInsert;
  uint64_t version = 0;
};

// One column of the target table, as system.columns describes it.
struct TargetColumn {
  std::string name;
  clickhouse::TypeDesc type;
  std::string default_kind;  // "", "DEFAULT", "MATERIALIZED", "ALIAS", "EPHEMERAL"
};
// The columns of a sample block (e.g. the header a server sends for INSERT ... VALUES).
std::vector<TargetColumn> TargetColumnsFromBlock(const clickhouse::Block& block);

struct PlanOptions {
  std::string source_database;  // for db.table.column in messages and counters
  std::string source_table;
  TableMode mode = TableMode::kReplica;
  MetaColumnNames meta;
  std::vector<std::string> include_columns;  // source names; empty = all
  std::vector<std::string> exclude_columns;
  std::vector<std::string> key_columns;  // source key; lets replica DELETEs use MINIMAL images
  ConverterSettings converter;
  // A source column the target lacks is left out instead of being a problem. Only for checking a
  // table at startup before a replay whose later schema changes the target already has (a column
  // dropped after the checkpoint); a plan that writes rows never skips. Meta columns are never
  // skipped: without them versions and event types would be lost silently.
  bool skip_missing_target_columns = false;
};

// A Block made by ConversionPlan::NewBlock, with its columns already resolved to the classes the
// converters write into.
class TargetBlock {
 public:
  TargetBlock() = default;
  // A moved-from block has no columns and no identity.
  TargetBlock(TargetBlock&& other) noexcept { *this = std::move(other); }
  TargetBlock& operator=(TargetBlock&& other) noexcept {
    block_ = std::move(other.block_);
    values_ = std::move(other.values_);
    nullables_ = std::move(other.nullables_);
    rows_ = std::exchange(other.rows_, 0);
    id_ = std::exchange(other.id_, 0);
    return *this;
  }

  clickhouse::Block& block() { return block_; }
  const clickhouse::Block& block() const { return block_; }
  size_t rows() const { return rows_; }
  // Empties the block, keeping its buffers.
  void Clear() {
    block_.Clear();
    rows_ = 0;
  }
  size_t HeldBytes() const { return block_.HeldBytes(); }
  // Empties the block and frees its buffers; the plan's bindings to its columns stay valid.
  void ReleaseMemory() {
    block_.ReleaseMemory();
    rows_ = 0;
  }
  // A block of the same columns with no rows and no buffers, and an identity of its own (a plan
  // binds to it anew).
  TargetBlock EmptyLike() const;

 private:
  friend class ConversionPlan;
  // Fills values_ and nullables_ from block_'s columns.
  void ResolveColumns();

  clickhouse::Block block_;
  std::vector<clickhouse::Column*> values_;             // value column (nested one for Nullable)
  std::vector<clickhouse::ColumnNullable*> nullables_;  // the Nullable wrapper or nullptr
  size_t rows_ = 0;
  // Unique per NewBlock (0: none): names the column objects a plan's bound steps point to.
  uint64_t id_ = 0;
};

class ConversionPlan {
 public:
  ConversionPlan() = default;
  // Move-only: the plan keeps pointers into its own bindings.
  ConversionPlan(ConversionPlan&&) = default;
  ConversionPlan& operator=(ConversionPlan&&) = default;
  ConversionPlan(const ConversionPlan&) = delete;
  ConversionPlan& operator=(const ConversionPlan&) = delete;

  // `source`: every column of the source table in table order, with names. `target`: the target
  // table's columns. Throws Error(kConfig) listing every problem.
  static ConversionPlan Build(std::span<const binlog::ColumnDef> source,
                              std::span<const TargetColumn> target, const PlanOptions& options);
  // The same, appending problems to `problems` instead of throwing (to report many tables at
  // once); the returned plan is only usable when nothing was appended.
  static ConversionPlan Build(std::span<const binlog::ColumnDef> source,
                              std::span<const TargetColumn> target, const PlanOptions& options,
                              std::vector<std::string>& problems);

  // The columns an INSERT carries, in block order.
  const std::vector<TargetColumn>& insert_columns() const { return insert_columns_; }
  // "INSERT INTO `db`.`t` (`a`, `b`) VALUES" for these columns.
  std::string InsertQuery(std::string_view database, std::string_view table) const;
  TargetBlock NewBlock() const;

  // Appends one row image (cells of the present columns, in column order, as RowCursor yields
  // them) plus its meta values. Throws Error(kConversion) under policy error, Error(kConfig) for
  // an incomplete image in replica mode, Error(kCorruption) for malformed cells.
  void AppendRow(std::span<const binlog::Cell> cells, TargetBlock& block, const RowMeta& meta);

  // Replica mode: why a row image of `kind` cannot be written (the source columns it lacks, and
  // binlog_row_image named as the cause), or empty when it can. A DELETE needs its key columns
  // only. Changelog mode writes any image: always empty.
  std::string Incomplete(std::span<const binlog::Cell> cells, RowKind kind) const;

  // The one-pass path of full images (the usual binlog_row_image=FULL rows): whether rows of
  // `table` may go through AppendNext, i.e. its columns have the types the plan was built for.
  bool Fits(const binlog::TableInfo& table) const;
  // Appends the next row change of `cursor`, converting each value as the cursor decodes it
  // (RowCursor::NextInto: the after image of WRITE and UPDATE, the before image of DELETE) plus
  // its meta values. The cursor must be on an event with full_images() of a table the plan
  // Fits(), and not AtEnd(). Returns the bytes of the image in the event. Throws as AppendRow,
  // and as RowCursor::Next for malformed rows.
  size_t AppendNext(binlog::RowCursor& cursor, TargetBlock& block, const RowMeta& meta);

 private:
  enum class Role : uint8_t { kSource, kVersion, kIsDeleted, kEventType };
  struct Binding {
    Role role = Role::kSource;
    uint32_t source_index = 0;
    bool key = false;
    bool lc_nullable = false;  // LowCardinality(Nullable(String)): NULL goes to the column itself
    Converter converter;       // kSource only
    clickhouse::TypeCode meta_code = clickhouse::TypeCode::kUInt8;  // meta columns
    int16_t event_values[3] = {0, 0, 0};                            // Enum event_type
  };

  // What a source column's values need, packed small: the per-value loops read these 16-byte
  // entries instead of the Bindings (hundreds of bytes each).
  struct SourceStep {
    ConvertFn fn = nullptr;  // null: the column is not replicated
    uint16_t slot = 0;       // binding index = block column
    binlog::ColumnType source_type{};
  };
  // A SourceStep with the column objects of one block resolved: all a value needs.
  struct BoundStep {
    ConvertFn fn = nullptr;  // null: the column is not replicated
    DirectStore direct = DirectStore::kNone;
    const Converter* converter = nullptr;
    clickhouse::Column* column = nullptr;  // the value column (the nested one for Nullable)
    clickhouse::ColumnNullable* nullable = nullptr;
  };
  class ImageSink;

  // The steps for `block`, one per source column, rebuilt only when the block differs from the
  // last one (a reader alternates between two batches' blocks).
  const BoundStep* Bind(const TargetBlock& block);
  // Fills by_source_ and meta_slots_ from bindings_ (end of Build).
  void Index();
  void AppendFullImage(std::span<const binlog::Cell> cells, TargetBlock& block);
  void AppendNull(const Binding& b, const binlog::Cell& cell, TargetBlock& block, size_t i);
  [[noreturn]] void FailCell(const Binding& b, const binlog::Cell& cell) const;
  void AppendMissing(const Binding& b, size_t i, TargetBlock& block, const RowMeta& meta,
                     std::span<const binlog::Cell> cells);
  void AppendMeta(const Binding& b, size_t i, TargetBlock& block, const RowMeta& meta);
  [[noreturn]] void FailIncomplete(std::span<const binlog::Cell> cells, const RowMeta& meta) const;

  std::string table_name_;  // db.table
  TableMode mode_ = TableMode::kReplica;
  size_t source_count_ = 0;
  std::vector<std::string> source_names_;
  std::vector<TargetColumn> insert_columns_;
  std::vector<Binding> bindings_;      // one per insert column
  std::vector<SourceStep> by_source_;  // one per source column
  std::vector<uint16_t> meta_slots_;   // the bindings of meta columns
  std::vector<int32_t> positions_;     // scratch: source index → position in cells (-1 = absent)
  std::vector<BoundStep> bound_;       // Bind's steps for the block with id bound_block_
  uint64_t bound_block_ = 0;
  ConvertScratch scratch_;
};

// Throws one Error(kConfig) listing `problems` (no-op when empty).
void ThrowIfProblems(const std::vector<std::string>& problems);

}  // namespace rowbridge::mapping
