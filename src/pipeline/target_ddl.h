// TargetDdl: the DDL the stream runs on its target tables when it carries a schema change or a
// table command (pipeline/schema_change_executor.h, table_lifecycle.h) or finds a target lacking
// a column at a TABLE_MAP (TableRouter::Use). Each statement is idempotent and retried after a
// transient error (ClickHouse busy: too many queries, memory, a lost connection) per the router's
// ddl_retry, the target's columns read again first (so a step that landed before its connection
// broke is not sent twice); once the policy is used up the error propagates, and the session
// restarts. A permanent error (Error(kUnsupported) for a change ClickHouse cannot make, a server's
// refusal) propagates at once: the caller stops the table.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "binlog/table_map.h"
#include "common/retry.h"
#include "config/config.h"
#include "mapping/ddl.h"
#include "tables/replicated_table.h"
#include "tables/table_resolver.h"
#include "tables/target_tables.h"

namespace rowbridge::pipeline {

class TargetDdl {
 public:
  struct Options {
    const config::Config* config = nullptr;
    tables::TableResolver* resolver = nullptr;
    tables::TargetCatalog* targets = nullptr;
    RetryPolicy retry;
    const std::atomic<bool>* stop = nullptr;  // ends the waiting (optional)
    // The first version of the session (rows a replay wrote under a column's old name).
    uint64_t session_first_version = 1;
    // Called when a column's source DEFAULT is not carried to its target (it was warned about).
    std::function<void(const tables::SourceTableName&, const std::string& column)>
        on_default_not_carried;
  };
  explicit TargetDdl(Options options) : o_(std::move(options)) {}

  // Brings `table`'s target (keyed by `keys`) to `after`, the source's columns after a change:
  // `renames` (old -> new), then drops of `before`'s columns that `after` lacks (`before` null:
  // not known, only adds follow), adds and type changes (pipeline/target_alter.h). `next_version`:
  // the version the next row change gets (0: no renames to fill in).
  void Reconcile(const tables::ReplicatedTable& table, const std::vector<std::string>& keys,
                 const std::vector<binlog::ColumnDef>* before,
                 const std::vector<binlog::ColumnDef>& after,
                 const std::vector<std::pair<std::string, std::string>>& renames,
                 uint64_t next_version);
  // Truncates the target (on every node of a cluster).
  void Truncate(const tables::TargetTable& target);
  // Drops the target (on every node of a cluster) and retires its record.
  void Drop(tables::TargetTable& target);
  // Renames the target to `name` (TableResolver::RenameTarget).
  void Rename(tables::TargetTable& target, const config::QualifiedName& name);
  // Puts `fresh` in the place of `name` (TableResolver::ReplaceWithFresh).
  void ReplaceWithFresh(const config::QualifiedName& name, const config::QualifiedName& fresh);

 private:
  void Run(const std::string& what, const std::function<void()>& step);
  mapping::DdlOptions ClusterOptions() const;

  Options o_;
};

}  // namespace rowbridge::pipeline
