#include "mapping/conversion_plan.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "mapping/mysql_text.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnDef;
using clickhouse::Column;
using clickhouse::TypeCode;
using clickhouse::TypeDesc;

constexpr std::string_view kKindNames[] = {"insert", "update", "delete"};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return EqualsIgnoreCase(n, name); });
}

// Index of the target column called `name`: exact match first, else a unique case-insensitive
// one. -1 if none, -2 if the case-insensitive match is ambiguous.
int FindTarget(std::span<const TargetColumn> target, std::string_view name) {
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i].name == name) return static_cast<int>(i);
  int found = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (EqualsIgnoreCase(target[i].name, name)) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  }
  return found;
}

bool Writable(const TargetColumn& column) {
  return column.default_kind != "MATERIALIZED" && column.default_kind != "ALIAS";
}

const TypeDesc& Unwrapped(const TypeDesc& type) {
  return type.code == TypeCode::kNullable ? type.nested.at(0) : type;
}

bool IsLowCardinalityNullable(const TypeDesc& type) {
  return type.code == TypeCode::kLowCardinality && type.nested.at(0).code == TypeCode::kNullable;
}

}  // namespace

std::string_view RowKindName(RowKind kind) {
  return kKindNames[static_cast<size_t>(kind)];
}

std::vector<TargetColumn> TargetColumnsFromBlock(const clickhouse::Block& block) {
  std::vector<TargetColumn> columns;
  for (size_t i = 0; i < block.ColumnCount(); ++i)
    columns.push_back({block.Name(i), clickhouse::ParseTypeName(block.At(i).type_name()), ""});
  return columns;
}

void ThrowIfProblems(const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  std::string message = fmt::format(
      "cannot replicate into ClickHouse: {} problem(s) in the column mapping:", problems.size());
  for (const auto& p : problems) message += "\n  " + p;
  throw Error(ErrorCode::kConfig, message);
}

ConversionPlan ConversionPlan::Build(std::span<const ColumnDef> source,
                                     std::span<const TargetColumn> target,
                                     const PlanOptions& options) {
  std::vector<std::string> problems;
  ConversionPlan plan = Build(source, target, options, problems);
  ThrowIfProblems(problems);
  return plan;
}

ConversionPlan ConversionPlan::Build(std::span<const ColumnDef> source,
                                     std::span<const TargetColumn> target,
                                     const PlanOptions& options,
                                     std::vector<std::string>& problems) {
  ConversionPlan plan;
  plan.table_name_ = options.source_database + "." + options.source_table;
  plan.mode_ = options.mode;
  plan.source_count_ = source.size();
  plan.positions_.assign(source.size(), -1);
  const std::string& table = plan.table_name_;
  auto problem = [&](std::string text) { problems.push_back(std::move(text)); };

  for (const auto& c : source) plan.source_names_.push_back(c.name);
  for (const auto* list : {&options.include_columns, &options.exclude_columns}) {
    for (const auto& name : *list) {
      if (!Contains(plan.source_names_, name))
        problem(fmt::format("{}.{}: named in the {} list but the source table has no such column",
                            table, name, list == &options.include_columns ? "include" : "exclude"));
    }
  }

  const MetaColumnNames& meta = options.meta;
  const bool replica = options.mode == TableMode::kReplica;
  std::vector<std::pair<Role, std::string>> meta_roles;
  if (replica) {
    meta_roles = {{Role::kVersion, meta.version}, {Role::kIsDeleted, meta.is_deleted}};
  } else {
    meta_roles = {{Role::kEventType, meta.event_type}, {Role::kVersion, meta.version}};
  }

  std::vector<bool> target_used(target.size(), false);
  // Source columns, in source order.
  for (uint32_t i = 0; i < source.size(); ++i) {
    const ColumnDef& column = source[i];
    if (column.name.empty()) {
      problem(fmt::format(
          "{}: column #{} has no name (run the source with binlog_row_metadata=FULL or supply "
          "the column definitions)",
          table, i + 1));
      continue;
    }
    const std::string qualified = table + "." + column.name;
    if (!options.include_columns.empty() && !Contains(options.include_columns, column.name))
      continue;
    if (Contains(options.exclude_columns, column.name)) continue;
    for (const auto& [role, name] : meta_roles) {
      if (EqualsIgnoreCase(name, column.name))
        problem(
            fmt::format("{}: the source column has the name of the meta column `{}`; rename "
                        "the meta column or exclude the source column",
                        qualified, name));
    }
    const int t = FindTarget(target, column.name);
    if (t == -2) {
      problem(fmt::format("{}: several target columns match this name when case is ignored",
                          qualified));
      continue;
    }
    if (t < 0 && options.skip_missing_target_columns) continue;
    if (t < 0) {
      problem(
          fmt::format("{}: {} → (none): the target table has no column of this name; add it "
                      "or exclude the column",
                      qualified, MysqlTypeName(column)));
      continue;
    }
    const TargetColumn& tc = target[static_cast<size_t>(t)];
    target_used[static_cast<size_t>(t)] = true;
    if (!Writable(tc)) {
      problem(fmt::format("{}: target column `{}` is {} and cannot be written", qualified, tc.name,
                          tc.default_kind));
      continue;
    }
    std::string why_not;
    Binding b;
    b.role = Role::kSource;
    b.source_index = i;
    b.key = Contains(options.key_columns, column.name);
    b.lc_nullable = IsLowCardinalityNullable(tc.type);
    b.converter = SelectConverter(column, tc.type,
                                  {options.source_database, options.source_table, column.name},
                                  options.converter, why_not);
    if (b.converter.fn == nullptr) {
      problem(
          fmt::format("{}: {} → {}: {}", qualified, MysqlTypeName(column), tc.type.name, why_not));
      continue;
    }
    plan.insert_columns_.push_back(tc);
    plan.bindings_.push_back(std::move(b));
  }

  // Meta columns.
  for (const auto& [role, name] : meta_roles) {
    const int t = FindTarget(target, name);
    const char* mode_name = replica ? "replica" : "changelog";
    if (t < 0) {
      problem(fmt::format("{}: the target table lacks the meta column `{}` that {} mode writes",
                          table, name, mode_name));
      continue;
    }
    const TargetColumn& tc = target[static_cast<size_t>(t)];
    if (target_used[static_cast<size_t>(t)]) continue;  // already reported as a clash
    target_used[static_cast<size_t>(t)] = true;
    Binding b;
    b.role = role;
    const TypeDesc& type = tc.type;
    b.meta_code = type.code;
    bool ok = false;
    switch (role) {
      case Role::kVersion:
        ok = type.code == TypeCode::kUInt64 || type.code == TypeCode::kInt64;
        break;
      case Role::kIsDeleted:
        ok = type.code == TypeCode::kUInt8 || type.code == TypeCode::kInt8 ||
             type.code == TypeCode::kBool;
        break;
      case Role::kEventType:
        if (type.code == TypeCode::kString ||
            (type.code == TypeCode::kLowCardinality &&
             Unwrapped(type.nested.at(0)).code == TypeCode::kString)) {
          ok = true;
        } else if (type.code == TypeCode::kEnum8 || type.code == TypeCode::kEnum16) {
          ok = true;
          for (size_t k = 0; k < 3; ++k) {
            auto it = std::find_if(type.enum_items.begin(), type.enum_items.end(),
                                   [&](const auto& item) { return item.first == kKindNames[k]; });
            if (it == type.enum_items.end()) {
              ok = false;
            } else {
              b.event_values[k] = it->second;
            }
          }
        }
        break;
      case Role::kSource:
        break;
    }
    if (!ok || !Writable(tc)) {
      const char* wanted = role == Role::kVersion     ? "UInt64 or Int64"
                           : role == Role::kIsDeleted ? "UInt8, Int8 or Bool"
                                                      : "String, LowCardinality(String) or an "
                                                        "Enum8/Enum16 declaring 'insert', "
                                                        "'update' and 'delete'";
      problem(fmt::format("{}: meta column `{}` is {}{}; {} mode needs {}", table, tc.name,
                          tc.type.name, Writable(tc) ? "" : " " + tc.default_kind, mode_name,
                          wanted));
      continue;
    }
    plan.insert_columns_.push_back(tc);
    plan.bindings_.push_back(std::move(b));
  }
  plan.Index();
  return plan;
}

void ConversionPlan::Index() {
  if (bindings_.size() > std::numeric_limits<uint16_t>::max())
    Fail(ErrorCode::kConfig, "{}: {} columns is more than a plan holds", table_name_,
         bindings_.size());
  by_source_.assign(source_count_, SourceStep{});
  meta_slots_.clear();
  for (size_t i = 0; i < bindings_.size(); ++i) {
    const Binding& b = bindings_[i];
    const auto slot = static_cast<uint16_t>(i);
    if (b.role == Role::kSource)
      by_source_[b.source_index] = {b.converter.fn, slot, b.converter.source.type};
    else
      meta_slots_.push_back(slot);
  }
}

const ConversionPlan::BoundStep* ConversionPlan::Bind(const TargetBlock& block) {
  if (block.id_ == bound_block_ && bound_.size() == source_count_) [[likely]]
    return bound_.data();
  if (block.values_.size() != bindings_.size())
    Fail(ErrorCode::kInternal, "{}: a block of {} columns for a plan of {}", table_name_,
         block.values_.size(), bindings_.size());
  bound_.assign(source_count_, BoundStep{});
  for (size_t i = 0; i < source_count_; ++i) {
    const SourceStep& step = by_source_[i];
    if (step.fn == nullptr) continue;
    const Converter& converter = bindings_[step.slot].converter;
    bound_[i] = {step.fn, converter.direct, &converter, block.values_[step.slot],
                 block.nullables_[step.slot]};
  }
  bound_block_ = block.id_;
  return bound_.data();
}

// Converts the values of one row image into a block, column by column: the one conversion step
// of every path (values straight from RowCursor::NextInto, or cells from Next()).
class ConversionPlan::ImageSink {
 public:
  ImageSink(ConversionPlan& plan, TargetBlock& block, const ColumnDef* defs)
      : plan_(plan), block_(block), steps_(plan.Bind(block)), defs_(defs) {}

  // RowCursor::NextInto's interface. Inlined into the cursor's loop: as a call, saving and
  // restoring registers cost as much as the direct stores themselves.
  [[gnu::always_inline]] void Value(size_t col, const uint8_t* data, size_t size) {
    const BoundStep& step = steps_[col];
    bool stored = false;
    switch (step.direct) {
      case DirectStore::kNone:
        if (step.fn == nullptr) return;  // not replicated
        break;
      case DirectStore::kInt8:
        stored = StoreInteger<int8_t>(step, data, size);
        break;
      case DirectStore::kUInt8:
        stored = StoreInteger<uint8_t>(step, data, size);
        break;
      case DirectStore::kInt16:
        stored = StoreInteger<int16_t>(step, data, size);
        break;
      case DirectStore::kUInt16:
        stored = StoreInteger<uint16_t>(step, data, size);
        break;
      case DirectStore::kInt32:
        stored = StoreInteger<int32_t>(step, data, size);
        break;
      case DirectStore::kUInt32:
        stored = StoreInteger<uint32_t>(step, data, size);
        break;
      case DirectStore::kInt64:
        stored = StoreInteger<int64_t>(step, data, size);
        break;
      case DirectStore::kUInt64:
        stored = StoreInteger<uint64_t>(step, data, size);
        break;
      case DirectStore::kBytesToString:
        static_cast<clickhouse::ColumnString&>(*step.column)
            .Append({reinterpret_cast<const char*>(data), size});
        stored = true;
        break;
      default:
        __builtin_unreachable();  // every DirectStore is a case; spares the jump table's range
                                  // check
    }
    if (!stored) {
      step.fn(*step.converter,
              Cell{defs_ + col, static_cast<uint32_t>(col), false, false, data, size}, *step.column,
              plan_.scratch_);
    }
    if (step.nullable != nullptr) step.nullable->AppendNotNull();
  }
  void Null(size_t col) {
    const BoundStep& step = steps_[col];
    if (step.fn == nullptr) return;
    PutNull(col, Cell{defs_ + col, static_cast<uint32_t>(col), true, false, nullptr, 0});
  }

  const BoundStep& step(size_t col) const { return steps_[col]; }
  void Put(const BoundStep& step, const Cell& cell) {
    step.fn(*step.converter, cell, *step.column, plan_.scratch_);
    if (step.nullable != nullptr) step.nullable->AppendNotNull();
  }
  void PutNull(size_t col, const Cell& cell) {
    const uint16_t slot = plan_.by_source_[col].slot;
    plan_.AppendNull(plan_.bindings_[slot], cell, block_, slot);
  }

 private:
  // A value of exactly the column's width is stored as it is; anything else (a malformed value)
  // is left to the converter, which reports it.
  template <typename T>
  static bool StoreInteger(const BoundStep& step, const uint8_t* data, size_t size) {
    if (size != sizeof(T)) [[unlikely]]
      return false;
    T value;
    std::memcpy(&value, data, sizeof(T));
    static_cast<clickhouse::ColumnNumber<T>&>(*step.column).Append(value);
    return true;
  }

  ConversionPlan& plan_;
  TargetBlock& block_;
  const BoundStep* const steps_;
  const ColumnDef* const defs_;
};

bool ConversionPlan::Fits(const binlog::TableInfo& table) const {
  const auto& columns = table.map.columns;
  if (columns.size() != source_count_) return false;
  for (size_t i = 0; i < source_count_; ++i) {
    if (by_source_[i].fn != nullptr && columns[i].type != by_source_[i].source_type) return false;
  }
  return true;
}

size_t ConversionPlan::AppendNext(binlog::RowCursor& cursor, TargetBlock& block,
                                  const RowMeta& meta) {
  ImageSink sink(*this, block, cursor.table().map.columns.data());
  const size_t bytes = cursor.NextInto(sink);
  for (const uint16_t i : meta_slots_) AppendMeta(bindings_[i], i, block, meta);
  ++block.rows_;
  return bytes;
}

std::string ConversionPlan::InsertQuery(std::string_view database, std::string_view table) const {
  std::string query = "INSERT INTO " + clickhouse::QuoteQualified(database, table) + " (";
  for (size_t i = 0; i < insert_columns_.size(); ++i) {
    if (i > 0) query += ", ";
    query += clickhouse::QuoteIdentifier(insert_columns_[i].name);
  }
  query += ") VALUES";
  return query;
}

namespace {

uint64_t NextBlockId() {
  static std::atomic<uint64_t> last_id{0};
  return ++last_id;
}

}  // namespace

TargetBlock ConversionPlan::NewBlock() const {
  TargetBlock block;
  block.id_ = NextBlockId();
  for (const auto& column : insert_columns_) {
    block.block_.AddColumn(column.name, clickhouse::CreateColumn(column.type));
  }
  block.ResolveColumns();
  return block;
}

TargetBlock TargetBlock::EmptyLike() const {
  TargetBlock block;
  block.id_ = NextBlockId();
  block.block_ = block_.EmptyLike();
  block.ResolveColumns();
  return block;
}

void TargetBlock::ResolveColumns() {
  values_.clear();
  nullables_.clear();
  for (size_t i = 0; i < block_.ColumnCount(); ++i) {
    Column& column = block_.At(i);
    auto* nullable = dynamic_cast<clickhouse::ColumnNullable*>(&column);
    nullables_.push_back(nullable);
    values_.push_back(nullable != nullptr ? &nullable->nested() : &column);
  }
}

void ConversionPlan::AppendMeta(const Binding& b, size_t i, TargetBlock& block,
                                const RowMeta& meta) {
  Column& column = *block.values_[i];
  switch (b.role) {
    case Role::kVersion:
      if (b.meta_code == TypeCode::kUInt64) {
        static_cast<clickhouse::ColumnUInt64&>(column).Append(meta.version);
      } else {
        if (meta.version > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          Fail(ErrorCode::kConversion, "{}: version {} does not fit the Int64 column `{}`",
               table_name_, meta.version, insert_columns_[i].name);
        static_cast<clickhouse::ColumnInt64&>(column).Append(static_cast<int64_t>(meta.version));
      }
      break;
    case Role::kIsDeleted: {
      const bool deleted = meta.kind == RowKind::kDelete;
      if (b.meta_code == TypeCode::kBool)
        static_cast<clickhouse::ColumnBool&>(column).Append(deleted);
      else if (b.meta_code == TypeCode::kInt8)
        static_cast<clickhouse::ColumnInt8&>(column).Append(deleted ? 1 : 0);
      else
        static_cast<clickhouse::ColumnUInt8&>(column).Append(deleted ? 1 : 0);
      break;
    }
    case Role::kEventType: {
      const auto kind = static_cast<size_t>(meta.kind);
      if (b.meta_code == TypeCode::kString)
        static_cast<clickhouse::ColumnString&>(column).Append(kKindNames[kind]);
      else if (b.meta_code == TypeCode::kLowCardinality)
        static_cast<clickhouse::ColumnLowCardinalityString&>(column).Append(kKindNames[kind]);
      else if (b.meta_code == TypeCode::kEnum8)
        static_cast<clickhouse::ColumnEnum8&>(column).Append(b.event_values[kind]);
      else
        static_cast<clickhouse::ColumnEnum16&>(column).Append(b.event_values[kind]);
      break;
    }
    case Role::kSource:
      break;
  }
  if (block.nullables_[i] != nullptr) block.nullables_[i]->AppendNotNull();
}

std::string ConversionPlan::Incomplete(std::span<const Cell> cells, RowKind kind) const {
  if (mode_ != TableMode::kReplica || cells.size() == source_count_) return {};
  std::vector<bool> present(source_count_, false);
  for (const Cell& cell : cells)
    if (cell.index < source_count_) present[cell.index] = true;
  std::string missing;
  for (const Binding& b : bindings_) {
    if (b.role != Role::kSource || present[b.source_index]) continue;
    if (kind == RowKind::kDelete && !b.key) continue;
    if (!missing.empty()) missing += ", ";
    missing += source_names_[b.source_index];
  }
  if (missing.empty()) return {};
  return fmt::format(
      "{}: an {} row image lacks column(s) {}: the source logs partial row images "
      "(binlog_row_image=MINIMAL or NOBLOB; MariaDB 11 also leaves generated columns out of "
      "UPDATEs), but replica mode writes whole rows; set binlog_row_image=FULL on the source, "
      "or leave generated columns out with the rule's exclude_columns (then `rowbridge "
      "resnapshot` the table), or use changelog mode",
      table_name_, RowKindName(kind), missing);
}

void ConversionPlan::FailIncomplete(std::span<const Cell> cells, const RowMeta& meta) const {
  Fail(ErrorCode::kConfig, "{}", Incomplete(cells, meta.kind));
}

void ConversionPlan::AppendMissing(const Binding& b, size_t i, TargetBlock& block,
                                   const RowMeta& meta, std::span<const Cell> cells) {
  if (mode_ == TableMode::kReplica && (meta.kind != RowKind::kDelete || b.key)) {
    FailIncomplete(cells, meta);
  }
  Column& value = *block.values_[i];
  if (block.nullables_[i] != nullptr) {
    block.nullables_[i]->AppendNull();
  } else if (b.lc_nullable) {
    static_cast<clickhouse::ColumnLowCardinalityString&>(value).AppendNull();
  } else {
    value.AppendDefault();
  }
}

void ConversionPlan::AppendRow(std::span<const Cell> cells, TargetBlock& block,
                               const RowMeta& meta) {
  if (cells.size() == source_count_) [[likely]] {
    AppendFullImage(cells, block);
    for (const uint16_t i : meta_slots_) AppendMeta(bindings_[i], i, block, meta);
    ++block.rows_;
    return;
  }
  std::fill(positions_.begin(), positions_.end(), -1);
  for (size_t k = 0; k < cells.size(); ++k) {
    if (cells[k].index >= source_count_)
      Fail(ErrorCode::kCorruption, "{}: row cell for column index {} but the table has {}",
           table_name_, cells[k].index, source_count_);
    positions_[cells[k].index] = static_cast<int32_t>(k);
  }
  // In replica mode a DELETE may lack non-key columns but never a key column.
  if (mode_ == TableMode::kReplica && meta.kind == RowKind::kDelete) {
    for (const Binding& b : bindings_)
      if (b.role == Role::kSource && b.key && positions_[b.source_index] < 0)
        FailIncomplete(cells, meta);
  }
  ImageSink sink(*this, block, nullptr);
  for (size_t i = 0; i < bindings_.size(); ++i) {
    const Binding& b = bindings_[i];
    if (b.role != Role::kSource) {
      AppendMeta(b, i, block, meta);
      continue;
    }
    const int32_t position = positions_[b.source_index];
    if (position < 0) {
      AppendMissing(b, i, block, meta, cells);
      continue;
    }
    const Cell& cell = cells[static_cast<size_t>(position)];
    if (cell.column == nullptr || cell.column->type != b.converter.source.type) FailCell(b, cell);
    if (cell.is_null) {
      AppendNull(b, cell, block, i);
      continue;
    }
    sink.Put(sink.step(b.source_index), cell);
  }
  ++block.rows_;
}

// Full images as cells (when NextInto cannot be used, e.g. a replica UPDATE compares keys): the
// cells are checked against the plan, then converted as NextInto's values are.
void ConversionPlan::AppendFullImage(std::span<const Cell> cells, TargetBlock& block) {
  ImageSink sink(*this, block, nullptr);
  for (size_t k = 0; k < cells.size(); ++k) {
    const Cell& cell = cells[k];
    const SourceStep& planned = by_source_[k];
    if (cell.index != k) [[unlikely]] {
      Fail(ErrorCode::kCorruption, "{}: row cells are not in column order (cell {} is column {})",
           table_name_, k, cell.index);
    }
    if (planned.fn == nullptr) continue;
    if (cell.column == nullptr || cell.column->type != planned.source_type) [[unlikely]]
      FailCell(bindings_[planned.slot], cell);
    if (cell.is_null) [[unlikely]] {
      sink.PutNull(k, cell);
      continue;
    }
    sink.Put(sink.step(k), cell);
  }
}

void ConversionPlan::AppendNull(const Binding& b, const Cell& cell, TargetBlock& block, size_t i) {
  if (block.nullables_[i] != nullptr) {
    block.nullables_[i]->AppendNull();
  } else if (b.lc_nullable) {
    static_cast<clickhouse::ColumnLowCardinalityString&>(*block.values_[i]).AppendNull();
  } else {
    if (!b.converter.NullIsEmptyArray()) {
      b.converter.OutOfRange(RangeRule::kNullIntoNotNull, cell, "the target column is not Nullable",
                             "the type's default");
    }
    block.values_[i]->AppendDefault();
  }
}

void ConversionPlan::FailCell(const Binding& b, const Cell& cell) const {
  Fail(ErrorCode::kInternal,
       "{}: the row's column {} is not the {} the plan was built for (rebuild the plan after a "
       "schema change)",
       b.converter.column, cell.index, b.converter.source_type);
}

}  // namespace rowbridge::mapping
