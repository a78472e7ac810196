// Which replicated tables a statement in a QUERY event touches, and whether it may change their
// columns. Full DDL tracking is its own module (src/schema, later); until it exists the pipeline
// uses this to make sure a schema change never silently shifts columns: it stops the tables a
// statement may change (see Pipeline) and lets the harmless ones pass.
//
// Recognised (case-insensitive, leading comments skipped; names `quoted` or bare, db-qualified or
// in the event's default database):
//   ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] t ...   changes columns unless every clause only
//                                                   adds/drops/renames an index or key, or sets
//                                                   ENGINE, COMMENT, AUTO_INCREMENT, ALGORITHM,
//                                                   LOCK or FORCE
//   DROP [TEMPORARY] TABLE [IF EXISTS] a, b ...        changes (the table is gone)
//   RENAME TABLE a TO b [, c TO d]                    changes (all four names)
//   TRUNCATE [TABLE] t                                changes (rows vanish without row events)
//   CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] t   changes only with OR REPLACE
//   CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX i ON t / DROP INDEX i ON t   harmless
//   INSERT/REPLACE [INTO] t, UPDATE t, DELETE FROM t, LOAD DATA ... INTO TABLE t
//                                                   statement-based DML: its rows never reach
//                                                   the binlog as row events, so it "changes" t
//   BEGIN, COMMIT, ROLLBACK, SAVEPOINT, XA, and anything else: touches nothing
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tables/source_schema.h"

namespace rowbridge::pipeline {

struct StatementTables {
  std::vector<tables::SourceTableName> tables;  // every table named
  bool changes = false;  // the named tables may have changed columns or rows unseen
  std::string verb;      // "ALTER TABLE", "DROP TABLE", ... for messages; empty if none
};

StatementTables ClassifyStatement(std::string_view sql, std::string_view default_database);

}  // namespace rowbridge::pipeline
