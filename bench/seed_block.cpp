#include "seed_block.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "clickhouse/columns/factory.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "common/error.h"

namespace rowbridge::bench {
namespace {

std::string ReadSeedSchema() {
  const std::string path =
      std::string(ROWBRIDGE_SOURCE_DIR) + "/tests/data/seed/clickhouse_schema.sql";
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kIo, "cannot read {}", path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Columns declared UNSIGNED in the seed's MySQL schema.
std::vector<std::string> SeedUnsignedColumns() {
  const std::string path = std::string(ROWBRIDGE_SOURCE_DIR) + "/tests/data/seed/mysql_schema.sql";
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kIo, "cannot read {}", path);
  std::vector<std::string> names;
  static const std::regex kUnsigned("^\\s*`([A-Za-z0-9_]+)` [^,]* UNSIGNED");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, kUnsigned)) names.push_back(m[1].str());
  return names;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> SeedClickHouseColumns() {
  const std::string schema = ReadSeedSchema();
  const size_t open = schema.find("binlog_field_test_1 (");
  const size_t close = schema.find(") ENGINE", open);
  if (open == std::string::npos || close == std::string::npos)
    Fail(ErrorCode::kCorruption, "seed ClickHouse schema: no column list found");
  const std::string body = schema.substr(open, close - open);
  static const std::regex kColumn("`([A-Za-z0-9_]+)` ([A-Za-z0-9]+(\\([^)]*\\))?)");
  std::vector<std::pair<std::string, std::string>> columns;
  for (std::sregex_iterator it(body.begin(), body.end(), kColumn), end; it != end; ++it)
    columns.emplace_back((*it)[1].str(), (*it)[2].str());
  if (columns.size() != 32)
    Fail(ErrorCode::kCorruption, "seed ClickHouse schema: expected 32 columns, found {}",
         columns.size());
  return columns;
}

std::string SeedClickHouseDdl(const std::string& qualified_table) {
  std::string ddl;
  for (const auto& [name, type] : SeedClickHouseColumns())
    ddl += fmt::format("{}`{}` {}", ddl.empty() ? "" : ", ", name, type);
  return fmt::format("CREATE TABLE {} ({}) ENGINE = MergeTree() ORDER BY id", qualified_table, ddl);
}

SeedBlockBuilder::SeedBlockBuilder(const binlog::TableInfo& source) {
  std::vector<std::string> problems;
  mapping::ConverterSettings settings;
  // MariaDB 10.11's TABLE_MAP signedness for this table reads wrong (testfloat UNSIGNED,
  // test_unsinged_tinyint signed; mariadb-binlog --print-table-metadata shows the same), so the
  // signedness is taken from the schema, as the pipeline takes it from information_schema.
  const std::vector<std::string> unsigned_columns = SeedUnsignedColumns();
  for (const auto& [name, type] : SeedClickHouseColumns()) {
    clickhouse::Column& column = block_.AddColumn(name, clickhouse::CreateColumn(type));
    if (name == "binlog_event_type") {
      event_type_ = &column;
      continue;
    }
    if (name == "bifrost_data_version") {
      version_ = &column;
      continue;
    }
    uint32_t index = 0;
    while (index < source.map.columns.size() && source.map.columns[index].name != name) ++index;
    if (index == source.map.columns.size()) {
      problems.push_back(
          fmt::format("{}: not in the source TABLE_MAP (binlog_row_metadata=FULL?)", name));
      continue;
    }
    binlog::ColumnDef column_def = source.map.columns[index];
    column_def.signedness_known = true;
    column_def.is_unsigned =
        std::find(unsigned_columns.begin(), unsigned_columns.end(), name) != unsigned_columns.end();
    std::string why_not;
    mapping::Converter converter =
        mapping::SelectConverter(column_def, clickhouse::ParseTypeName(type),
                                 "bifrost_test.binlog_field_test_1." + name, settings, why_not);
    if (converter.fn == nullptr) {
      problems.push_back(fmt::format("{}: {}", name, why_not));
      continue;
    }
    plan_.push_back({index, std::move(converter), &column});
  }
  if (!problems.empty()) Fail(ErrorCode::kConfig, "seed block: {}", fmt::join(problems, "; "));
}

void SeedBlockBuilder::AddRow(std::span<const binlog::Cell> after, int64_t version) {
  // A full row image lists every column, so cell i is column i.
  for (Planned& p : plan_) {
    const binlog::Cell& cell = after[p.source_index];
    if (cell.is_null) {
      p.column->AppendDefault();
    } else {
      p.converter.Append(cell, *p.column, scratch_);
    }
  }
  static_cast<clickhouse::ColumnString*>(event_type_)->Append("insert");
  static_cast<clickhouse::ColumnInt64*>(version_)->Append(version);
  ++rows_;
}

}  // namespace rowbridge::bench
