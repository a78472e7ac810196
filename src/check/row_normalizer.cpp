#include "check/row_normalizer.h"

#include <fmt/format.h>

#include <algorithm>

#include "clickhouse/columns/factory.h"
#include "clickhouse/sql_quote.h"
#include "clickhouse/type_name.h"
#include "common/error.h"
#include "mapping/mysql_text.h"
#include "mapping/text_cell.h"
#include "mysql/sql_quote.h"

namespace rowbridge::check {

namespace {

// FNV-1a over the value and its length (so "ab","c" and "a","bc" differ).
uint64_t HashValue(uint64_t h, std::string_view value) {
  for (unsigned char c : value) h = (h ^ c) * 0x100000001b3ULL;
  const uint64_t n = value.size();
  for (int i = 0; i < 8; ++i) h = (h ^ ((n >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  return h;
}

}  // namespace

bool IsCheckableSourceType(const binlog::ColumnDef& column) {
  switch (column.type) {
    case binlog::ColumnType::kNull:
    case binlog::ColumnType::kTypedArray:
    case binlog::ColumnType::kInvalid:
    case binlog::ColumnType::kDecimal:
      return false;
    default:
      return true;
  }
}

RowNormalizer::RowNormalizer(const tables::ReplicatedTable& table,
                             const std::vector<TargetColumn>& target,
                             const mapping::ConverterSettings& settings,
                             std::vector<std::string>& problems)
    : source_(*table.known) {
  const tables::SourceTableSchema& source = *table.known;
  const std::string where = source.name.ToString();
  if (source.primary_key.empty())
    Fail(ErrorCode::kConfig, "source table {} has no primary key: check compares rows by key",
         where);
  for (uint32_t i = 0; i < source.columns.size(); ++i) {
    const binlog::ColumnDef& def = source.columns[i];
    const bool is_key = def.is_primary_key;
    if (!is_key && !tables::IsReplicatedColumn(def, *table.rule)) continue;
    auto t = std::find_if(target.begin(), target.end(),
                          [&](const TargetColumn& c) { return c.name == def.name; });
    std::string problem;
    if (t == target.end()) {
      problem = fmt::format("column {}: not in the target table", def.name);
    } else if (!IsCheckableSourceType(def)) {
      problem = fmt::format("column {}: check cannot read source type {}", def.name,
                            binlog::ColumnTypeName(def.type));
    } else {
      const clickhouse::TypeDesc type = clickhouse::ParseTypeName(t->type);
      binlog::ColumnDef selected = mapping::SelectedColumn(def);
      std::string why_not;
      mapping::Converter converter = mapping::SelectConverter(
          selected, type, {source.name.database, source.name.table, def.name}, settings, why_not);
      if (converter.fn == nullptr) {
        problem = fmt::format("column {}: no conversion from {} to {}: {}", def.name,
                              mapping::MysqlTypeName(def), t->type, why_not);
      } else {
        Compared c;
        c.name = def.name;
        c.context = where + "." + def.name;
        c.source_index = i;
        c.selected = std::move(selected);
        c.target_nullable = type.code == clickhouse::TypeCode::kNullable;
        c.scratch = clickhouse::CreateColumn(converter.target);
        c.converter = std::move(converter);
        columns_.push_back(std::move(c));
        continue;
      }
    }
    if (is_key) Fail(ErrorCode::kConfig, "{}: primary key {}", where, problem);
    problems.push_back(std::move(problem));
  }
  for (uint32_t key_index : source.primary_key) {
    for (size_t p = 0; p < columns_.size(); ++p)
      if (columns_[p].source_index == key_index) key_positions_.push_back(p);
  }
  for (size_t p = 0; p < columns_.size(); ++p) {
    if (p > 0) {
      source_select_ += ", ";
      target_select_ += ", ";
    }
    source_select_ += mapping::TextSelectExpression(source.columns[columns_[p].source_index],
                                                    mysql::QuoteIdentifier(columns_[p].name));
    target_select_ += clickhouse::QuoteIdentifier(columns_[p].name);
  }
}

const binlog::ColumnDef& RowNormalizer::first_key_source() const {
  return source_.columns[columns_[key_positions_.front()].source_index];
}

std::string RowNormalizer::DescribeKey(std::string_view key) const {
  std::string out;
  size_t pos = 0;
  for (size_t k = 0; k < key_positions_.size(); ++k) {
    const size_t end = key.find('\0', pos);
    const std::string_view value = key.substr(pos, end - pos);
    pos = end == std::string_view::npos ? key.size() : end + 1;
    if (k > 0) out += ", ";
    out += fmt::format("{}={}", columns_[key_positions_[k]].name, value);
  }
  return key_positions_.size() > 1 ? "(" + out + ")" : out;
}

void RowNormalizer::NormalizeSource(const mysql::ResultSet& row, NormalizedRow& out) {
  out.values.resize(columns_.size());
  for (size_t p = 0; p < columns_.size(); ++p) {
    Compared& c = columns_[p];
    std::string& text = out.values[p];
    text.clear();
    binlog::Cell cell;
    mapping::EncodeTextCell(c.selected, c.source_index, row.Get(p), c.cell_buffer, c.context, cell);
    c.scratch->Clear();
    try {
      if (cell.is_null) {
        if (c.target_nullable) {
          text = "\\N";
          continue;
        }
        if (!c.converter.NullIsEmptyArray() &&
            c.converter.policies[mapping::RangeRule::kNullIntoNotNull] ==
                mapping::RangePolicy::kError) {
          text = "<not convertible: NULL into a column that is not Nullable>";
          continue;
        }
        c.scratch->AppendDefault();
      } else {
        c.converter.Append(cell, *c.scratch, scratch_);
      }
      c.scratch->AppendText(0, text);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kConversion) throw;
      text = fmt::format("<not convertible: {}>", e.what());
    }
  }
  Finish(out);
}

void RowNormalizer::NormalizeTarget(const clickhouse::Block& block, size_t row,
                                    NormalizedRow& out) {
  out.values.resize(columns_.size());
  for (size_t p = 0; p < columns_.size(); ++p) {
    out.values[p].clear();
    block.At(p).AppendText(row, out.values[p]);
  }
  Finish(out);
}

void RowNormalizer::Finish(NormalizedRow& out) const {
  out.key.clear();
  for (size_t p : key_positions_) {
    out.key += out.values[p];
    out.key += '\0';
  }
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const std::string& v : out.values) h = HashValue(h, v);
  out.hash = h;
}

}  // namespace rowbridge::check
