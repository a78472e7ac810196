#include "pipeline/target_ddl.h"

#include <fmt/format.h>

#include "common/log_fields.h"
#include "mapping/ddl.h"
#include "pipeline/target_alter.h"

namespace rowbridge::pipeline {

void TargetDdl::Run(const std::string& what, const std::function<void()>& step) {
  RetryOptions retry;
  retry.policy = o_.retry;
  retry.stop = o_.stop;
  Retry(what, retry, step);
}

mapping::DdlOptions TargetDdl::ClusterOptions() const {
  mapping::DdlOptions options;
  options.cluster = o_.config->target.cluster;
  return options;
}

void TargetDdl::Reconcile(const tables::ReplicatedTable& table,
                          const std::vector<std::string>& keys,
                          const std::vector<binlog::ColumnDef>* before,
                          const std::vector<binlog::ColumnDef>& after,
                          const std::vector<std::pair<std::string, std::string>>& renames,
                          uint64_t next_version) {
  bool first = true;
  Run(fmt::format("applying the schema change of {} to {}", table.name.ToString(),
                  table.target->label),
      [&] {
        if (!first) o_.resolver->RereadColumns(*table.target);
        first = false;
        LogFields fields;
        fields.Table(table.name.database, table.name.table);
        TargetAlter alter(table.name.ToString(), *table.target, *table.rule, keys, *o_.targets,
                          *o_.resolver, o_.config->target.cluster, [&](const std::string& column) {
                            if (o_.on_default_not_carried)
                              o_.on_default_not_carried(table.name, column);
                          });
        alter.Apply({.before = before,
                     .after = &after,
                     .renames = &renames,
                     .session_first_version = o_.session_first_version,
                     .next_version = renames.empty() ? 0 : next_version});
      });
}

void TargetDdl::Truncate(const tables::TargetTable& target) {
  const std::string sql =
      mapping::TruncateTableStatement(target.database, target.table, ClusterOptions());
  Run(fmt::format("running {} on ClickHouse", sql), [&] { o_.targets->Execute(sql); });
}

void TargetDdl::Drop(tables::TargetTable& target) {
  for (const std::string& sql :
       mapping::DropTableStatements(target.database, target.table, ClusterOptions())) {
    Run(fmt::format("running {} on ClickHouse", sql), [&] { o_.targets->Execute(sql); });
  }
  o_.resolver->Retire(target);
}

void TargetDdl::Rename(tables::TargetTable& target, const config::QualifiedName& name) {
  Run(fmt::format("renaming {} to {}.{} on ClickHouse", target.label, name.database, name.table),
      [&] { o_.resolver->RenameTarget(target, name); });
}

void TargetDdl::ReplaceWithFresh(const config::QualifiedName& name,
                                 const config::QualifiedName& fresh) {
  Run(fmt::format("putting {}.{} in the place of {}.{}", fresh.database, fresh.table, name.database,
                  name.table),
      [&] { o_.resolver->ReplaceWithFresh(name, fresh); });
}

}  // namespace rowbridge::pipeline
