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
  // MariaDB 10.11's TABLE_MAP signedness for this table reads wrong (testfloat UNSIGNED,
  // test_unsinged_tinyint signed; mariadb-binlog --print-table-metadata shows the same), so the
  // signedness is taken from the schema, as the pipeline takes it from information_schema.
  const std::vector<std::string> unsigned_columns = SeedUnsignedColumns();
  std::vector<binlog::ColumnDef> columns = source.map.columns;
  for (binlog::ColumnDef& def : columns) {
    def.signedness_known = true;
    def.is_unsigned = std::find(unsigned_columns.begin(), unsigned_columns.end(), def.name) !=
                      unsigned_columns.end();
  }
  std::vector<mapping::TargetColumn> target;
  for (const auto& [name, type] : SeedClickHouseColumns())
    target.push_back({name, clickhouse::ParseTypeName(type), ""});
  mapping::PlanOptions options;
  options.source_database = source.map.database;
  options.source_table = source.map.table;
  options.mode = mapping::TableMode::kChangelog;
  options.meta.event_type = "binlog_event_type";
  options.meta.version = "bifrost_data_version";
  plan_ = mapping::ConversionPlan::Build(columns, target, options);
  block_ = plan_.NewBlock();
}

void SeedBlockBuilder::AddRow(std::span<const binlog::Cell> after, int64_t version) {
  plan_.AppendRow(after, block_, {mapping::RowKind::kInsert, static_cast<uint64_t>(version)});
}

void SeedBlockBuilder::AddNext(binlog::RowCursor& cursor, int64_t version) {
  plan_.AppendNext(cursor, block_, {mapping::RowKind::kInsert, static_cast<uint64_t>(version)});
}

}  // namespace rowbridge::bench
