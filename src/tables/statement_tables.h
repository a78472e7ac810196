// Which replicated tables a statement in a QUERY event touches, and whether it may change their
// columns or rows without row events. The schema history (src/schema) follows DDL; the pipeline
// uses this to name the tables of a statement the history could not follow (so that only those
// stop) and the tables that statement-based DML writes (their row changes never reach the binlog
// as row events, see schema_changes::Planner::UnloggedRows).
//
// Recognised (case-insensitive, comments skipped, versioned comments read; names `quoted` or
// bare, db-qualified or in the event's default database), tokenized by schema::LexSql:
//   ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] t ...   changes columns unless every clause only
//                                                   adds/drops/renames an index or key, or sets
//                                                   ENGINE, COMMENT, AUTO_INCREMENT, ALGORITHM,
//                                                   LOCK or FORCE
//   DROP [TEMPORARY] TABLE [IF EXISTS] a, b ...        changes (the table is gone)
//   RENAME TABLE a TO b [, c TO d]                    changes (all four names)
//   TRUNCATE [TABLE] t                                changes (rows vanish without row events)
//   CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] t   changes only with OR REPLACE
//   CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX i ON t / DROP INDEX i ON t   harmless
//   statement-based DML (`dml` and `changes` set; `tables` are the tables it WRITES):
//     INSERT/REPLACE [INTO] t ... [SELECT ... FROM u]   t only (u is read)
//     UPDATE table_references SET ...                 every table of table_references, joins and
//                                                     comma lists included (which ones the SET
//                                                     writes is not worked out); not the tables of
//                                                     subqueries or derived tables (read only)
//     DELETE FROM t ...                               t
//     DELETE a, b FROM table_references ...           a and b, aliases resolved against
//     DELETE FROM a, b USING table_references ...     table_references
//     LOAD DATA|XML ... INTO TABLE t                  t
//     each optionally after WITH cte AS (...) [, ...] (whose names are not tables) or MariaDB's
//     SET STATEMENT var=value FOR
//   BEGIN, COMMIT, ROLLBACK, SAVEPOINT, XA, and anything else: touches nothing
//
// Throws Error(kInvalidArgument) when the statement cannot be tokenized (an unterminated string,
// quoted name or comment, see sql_lexer.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/sql_lexer.h"
#include "tables/source_schema.h"

namespace rowbridge::tables {

struct StatementTables {
  std::vector<SourceTableName> tables;  // every table named (DML: every table written)
  bool changes = false;                 // the named tables may have changed columns or rows unseen
  bool dml = false;  // statement-based DML: the rows it changed are not in the binlog
  std::string verb;  // "ALTER TABLE", "DROP TABLE", "UPDATE", ... for messages; empty if none
};

StatementTables ClassifyStatement(std::string_view sql, std::string_view default_database,
                                  const schema::LexOptions& lex = {});

}  // namespace rowbridge::tables
