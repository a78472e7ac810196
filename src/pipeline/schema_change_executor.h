// SchemaChangeExecutor: a statement's route through the stream, statement -> decision ->
// execution. Every QUERY event is applied to the schema history (schema/schema_history.h); the
// tables it changes are met in the router's catalog, schema_changes::Planner decides what each
// change means (schema_changes/planner.h), and the executor carries the decision out: ClickHouse
// DDL through the router's TargetDdl, the tables' catalog entries through the router, what the
// checkpoint must record through the RouterContext's callbacks (saved at once where a crash must
// not lose it). Then the history, pruned to the statement's position, joins the checkpoint at the
// statement's boundary.
//
// A decision's steps run in order; a step that cannot run ends the decision as its comment in
// schema_changes/decision.h says. Transient errors (a server gone, DDL retried past its policy)
// propagate and end the session, which meets the statement again from its checkpoint: every step
// is idempotent.
//
// Used by the reader thread only.
#pragma once

#include <string_view>

#include "binlog/query_event.h"
#include "pipeline/router_catalog_view.h"
#include "pipeline/table_router.h"
#include "schema_changes/decision.h"

namespace rowbridge::pipeline {

class SchemaChangeExecutor {
 public:
  explicit SchemaChangeExecutor(TableRouter& router) : router_(router), view_(router) {}

  // A statement (QUERY event) at `position`, in the transaction of `gtid`. Throws transient
  // errors, and Error(kUnsupported) for a decision that ends the run (statement-based DML on a
  // replicated table under source.on_statement_dml: stop_run; a statement the history cannot
  // follow whose tables cannot even be named). `next_version`: the version the reader gives the
  // next row change (the rows before the statement have lower ones).
  void OnStatement(std::string_view sql, const binlog::QueryEvent& query,
                   const schema::BinlogPosition& position, const TransactionGtid& gtid,
                   uint64_t next_version);

 private:
  // Resolves the tables a change names that the stream has not met.
  void MeetTables(const std::vector<schema_changes::Meet>& meets);
  // Carries `decision` out; false when a step ended it.
  bool Execute(const schema_changes::Decision& decision);

  bool Run(const schema_changes::Note& step);
  bool Run(const schema_changes::FailRun& step);
  bool Run(const schema_changes::StopTable& step);
  bool Run(const schema_changes::DrainTable& step);
  bool Run(const schema_changes::AlterTarget& step);
  bool Run(const schema_changes::SetColumns& step);
  bool Run(const schema_changes::TruncateTarget& step);
  bool Run(const schema_changes::DropTarget& step);
  bool Run(const schema_changes::RetireTable& step);
  bool Run(const schema_changes::EndStop& step);
  bool Run(const schema_changes::Announce& step);
  bool Run(const schema_changes::EndAlias& step);
  bool Run(const schema_changes::RenameTarget& step);
  bool Run(const schema_changes::ReplicateUnderName& step);
  bool Run(const schema_changes::RecordAlias& step);
  bool Run(const schema_changes::ReconcileNewName& step);

  // The streaming table under `name`, or nullptr.
  StreamedTable* Streaming(const tables::SourceTableName& name);

  TableRouter& router_;
  RouterCatalogView view_;
  schema::BinlogPosition position_;  // the statement's, while it is carried out
  uint64_t next_version_ = 0;
};

}  // namespace rowbridge::pipeline
