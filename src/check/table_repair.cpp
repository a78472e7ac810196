#include "check/table_repair.h"

#include <fmt/format.h>

#include "check/check_tables.h"
#include "common/error.h"
#include "endpoints/connection_options.h"
#include "tables/source_schema.h"
#include "tables/target_tables.h"

namespace rowbridge::check {

TableRepairResult RepairTable(const config::Config& config, const std::string& table,
                              uint64_t version_base,
                              const std::function<void(mysql::Connection&)>& before_range,
                              const std::atomic<bool>* stop) {
  const std::string program = "rowbridge repair";
  std::unique_ptr<mysql::Connection> source = ConnectCheckSource(config.source, program);
  std::unique_ptr<clickhouse::Client> target = ConnectCheckTarget(config.target, program);
  tables::TargetCatalog catalog(endpoints::TargetClientOptions(config.target));
  tables::ResolverOptions resolver_options;
  resolver_options.dry_run = true;
  tables::TableResolver resolver(config, catalog, std::move(resolver_options));

  const std::map<std::string, TargetGroup> groups =
      GroupByTarget(resolver, tables::ListSourceTables(*source), {table});
  if (groups.empty())
    Fail(ErrorCode::kConfig, "repair: source table {} does not exist on {}, or no rule matches it",
         table, source->peer());
  const TargetGroup& group = groups.begin()->second;

  TableCheckSpec spec;
  std::vector<mapping::PlanOptions> plans;
  for (const tables::SourceTableName& name : group.sources) {
    spec.sources.push_back(LoadSourceTable(*source, resolver, name, group.rule));
    const tables::SourceTableSchema& schema = *spec.sources.back().known;
    std::vector<std::string> keys;
    for (uint32_t k : schema.primary_key) keys.push_back(schema.columns[k].name);
    plans.push_back(resolver.PlanOptionsFor(spec.sources.back(), std::move(keys)));
  }
  spec.target = group.target;
  spec.settings = plans.front().converter;
  spec.stop = stop;
  const std::optional<std::vector<mapping::TargetColumn>> columns =
      catalog.ReadColumns(group.target.database, group.target.table);
  if (!columns)
    Fail(ErrorCode::kConfig, "repair: target table {}.{} does not exist on ClickHouse {}",
         group.target.database, group.target.table, catalog.client().peer());
  RangeRepairer repairer(spec.sources, std::move(plans), group.target, *columns, version_base,
                         *source, *target, before_range);
  spec.repairer = &repairer;
  TableRepairResult result;
  result.check = CheckTable(spec, *source, *target);
  result.counts = repairer.counts();
  return result;
}

}  // namespace rowbridge::check
