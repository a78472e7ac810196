#include "check/check_tables.h"

#include <algorithm>

#include "common/error.h"
#include "endpoints/connection_options.h"
#include "tables/source_schema.h"

namespace rowbridge::check {

std::unique_ptr<mysql::Connection> ConnectCheckSource(const config::SourceConfig& c,
                                                      const std::string& program) {
  mysql::ConnectOptions o = endpoints::SourceConnectOptions(c);
  // Checksum queries over large key ranges may take longer than a replication read.
  o.tcp.read_timeout = std::max(c.read_timeout, config::Duration(300000));
  o.program_name = program;
  auto conn = mysql::Connection::Connect(o);
  // The text the copy's encoder reads (mapping/text_cell.h): strings as stored, without conversion
  // to a client character set; TIMESTAMPs as their UTC wall time, which maps one-to-one to the
  // seconds the binlog carries (no daylight-saving gaps or repeats in UTC).
  conn->Execute("SET SESSION character_set_results = binary, time_zone = '+00:00'");
  return conn;
}

std::unique_ptr<clickhouse::Client> ConnectCheckTarget(const config::TargetConfig& c,
                                                       const std::string& program) {
  clickhouse::ClientOptions o = endpoints::TargetClientOptions(c);
  o.database = c.database;
  o.client_name = program;
  return std::make_unique<clickhouse::Client>(std::move(o));
}

tables::ReplicatedTable LoadSourceTable(mysql::Connection& source,
                                        const tables::TableResolver& resolver,
                                        const tables::SourceTableName& name, int rule) {
  tables::ReplicatedTable table = resolver.Describe(name, rule);
  table.known = tables::LoadSourceTableSchema(source, name.database, name.table);
  if (!table.known)
    Fail(ErrorCode::kConfig, "source table {} does not exist on {}", name.ToString(),
         source.peer());
  const tables::SourceTableSchema& schema = *table.known;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    // MariaDB's INET4/INET6/UUID look like BINARY(n) but read as text.
    const std::string& type = schema.column_types[i];
    if (type == "inet4" || type == "inet6" || type == "uuid")
      Fail(ErrorCode::kUnsupported, "source column {}.{}: type {} is not supported by check",
           name.ToString(), schema.columns[i].name, type);
  }
  return table;
}

std::map<std::string, TargetGroup> GroupByTarget(tables::TableResolver& resolver,
                                                 const std::vector<tables::SourceTableName>& listed,
                                                 const std::vector<std::string>& only) {
  std::map<std::string, TargetGroup> groups;
  std::vector<std::string> wanted_targets;
  for (const tables::SourceTableName& table : listed) {
    const int rule = resolver.Match(table);
    if (rule == config::TableMatcher::kNoRule) continue;
    const config::QualifiedName name = resolver.TargetName(table, rule);
    const std::string key = name.database + "." + name.table;
    TargetGroup& group = groups[key];
    group.target = name;
    group.rule = rule;
    group.sources.push_back(table);
    if (std::find(only.begin(), only.end(), table.ToString()) != only.end())
      wanted_targets.push_back(key);
  }
  if (only.empty()) return groups;
  std::erase_if(groups, [&](const auto& entry) {
    return std::find(wanted_targets.begin(), wanted_targets.end(), entry.first) ==
           wanted_targets.end();
  });
  return groups;
}

}  // namespace rowbridge::check
