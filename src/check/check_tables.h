// What `check` (and its repair) reads and how: the connections, set up for exact text, and the
// matched source tables grouped by the target they go into.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clickhouse/client.h"
#include "config/config.h"
#include "mysql/connection.h"
#include "tables/replicated_table.h"
#include "tables/table_resolver.h"

namespace rowbridge::check {

// A source connection whose text the copy's encoder reads (mapping/text_cell.h): strings as
// stored, TIMESTAMPs in UTC; `program` names it on the server.
std::unique_ptr<mysql::Connection> ConnectCheckSource(const config::SourceConfig& config,
                                                      const std::string& program);
std::unique_ptr<clickhouse::Client> ConnectCheckTarget(const config::TargetConfig& config,
                                                       const std::string& program);

// `name` under `rule`, with its columns as the source has them now. Throws Error(kConfig) if the
// table is gone, Error(kUnsupported) for a column type check cannot describe at all.
tables::ReplicatedTable LoadSourceTable(mysql::Connection& source,
                                        const tables::TableResolver& resolver,
                                        const tables::SourceTableName& name, int rule);

// The source tables one target receives, with the rule that matched them.
struct TargetGroup {
  config::QualifiedName target;
  int rule = -1;
  std::vector<tables::SourceTableName> sources;
};

// Every matched source table of `listed`, grouped by target ("db.table" of the target -> group);
// with `only` not empty, only the groups of those source tables ("db.table").
std::map<std::string, TargetGroup> GroupByTarget(tables::TableResolver& resolver,
                                                 const std::vector<tables::SourceTableName>& listed,
                                                 const std::vector<std::string>& only);

}  // namespace rowbridge::check
