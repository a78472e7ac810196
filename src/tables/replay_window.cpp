#include "tables/replay_window.h"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "common/error.h"
#include "mysql/sql_quote.h"
#include "schema/ddl_parser.h"

namespace rowbridge::tables {
namespace {

constexpr int kEventsPerQuery = 1000;

// SHOW BINLOG EVENTS shows a QUERY event as "use `db`; <statement>" when it had a default
// database: splits that prefix off (a backtick inside the name is doubled).
std::pair<std::string, std::string_view> SplitDefaultDatabase(std::string_view info) {
  constexpr std::string_view kUse = "use `";
  if (!info.starts_with(kUse)) return {"", info};
  std::string database;
  for (size_t i = kUse.size(); i < info.size(); ++i) {
    if (info[i] != '`') {
      database += info[i];
    } else if (i + 1 < info.size() && info[i + 1] == '`') {
      database += '`';
      ++i;
    } else {
      std::string_view rest = info.substr(i + 1);
      if (rest.starts_with(";")) rest.remove_prefix(1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      return {database, rest};
    }
  }
  return {"", info};
}

void AddCreated(std::string_view info, std::set<SourceTableName>& created) {
  const auto [database, sql] = SplitDefaultDatabase(info);
  schema::DdlStatement statement;
  try {
    statement = schema::ParseDdl(sql, schema::ParseOptions::ForQuery(database, 0));
  } catch (const Error&) {
    return;
  }
  auto add = [&](const schema::TableRef& t) { created.insert({t.database, t.table}); };
  if (const auto* create = std::get_if<schema::CreateTable>(&statement)) {
    if (!create->temporary) add(create->table);
  } else if (const auto* rename = std::get_if<schema::RenameTables>(&statement)) {
    for (const auto& [from, to] : rename->renames) add(to);
  } else if (const auto* alter = std::get_if<schema::AlterTable>(&statement)) {
    for (const schema::AlterSpec& spec : alter->specs) {
      if (spec.kind == schema::AlterSpec::Kind::kRenameTable) add(spec.new_table);
    }
  }
}

}  // namespace

std::set<SourceTableName> TablesCreatedSince(mysql::Connection& source, const std::string& file,
                                             uint64_t position) {
  std::vector<std::string> files;
  bool listed = false;
  for (const auto& row : source.QueryRows("SHOW BINARY LOGS")) {
    if (row.empty() || !row[0]) continue;
    if (*row[0] == file) listed = true;
    if (listed) files.push_back(*row[0]);
  }
  std::set<SourceTableName> created;
  for (const std::string& name : files) {
    // Pages go by each event's own Pos: MariaDB 11 shows End_log_pos 0 for the events inside a
    // transaction, so the last row's End_log_pos cannot say where the next page begins. A page
    // after the first starts at the previous page's last event and skips that one row.
    uint64_t from = name == file ? position : 4;
    int skip = 0;
    for (;;) {
      const auto rows =
          source.QueryRows(fmt::format("SHOW BINLOG EVENTS IN {} FROM {} LIMIT {}, {}",
                                       mysql::QuoteString(name), from, skip, kEventsPerQuery));
      // Log_name, Pos, Event_type, Server_id, End_log_pos, Info
      uint64_t last_pos = from;
      for (const auto& row : rows) {
        if (row.size() < 6 || !row[1] || !row[2]) continue;
        if (*row[2] == "Query" && row[5]) AddCreated(*row[5], created);
        last_pos = std::strtoull(row[1]->c_str(), nullptr, 10);
      }
      if (rows.size() < static_cast<size_t>(kEventsPerQuery)) break;
      if (last_pos < from || (last_pos == from && skip == 1)) {
        Fail(ErrorCode::kProtocol,
             "SHOW BINLOG EVENTS IN {} did not move past position {}: cannot list the tables the "
             "binlog creates after the checkpoint",
             name, from);
      }
      from = last_pos;
      skip = 1;
    }
  }
  return created;
}

}  // namespace rowbridge::tables
