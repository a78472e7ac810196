// Parses the statement of a QUERY event into a DdlStatement (schema/ddl_statement.h).
//
// Contract:
//   - Table-changing statements are parsed completely (see ddl_statement.h for the forms):
//     CREATE [OR REPLACE] [TEMPORARY] TABLE (definitions, LIKE, ... SELECT), ALTER TABLE,
//     CREATE/DROP INDEX ... ON t (as an AlterTable), RENAME TABLE, DROP TABLE, TRUNCATE,
//     CREATE/ALTER/DROP DATABASE|SCHEMA. PARTITION BY clauses and partition maintenance are
//     skipped (partition specs that lose rows are flagged).
//   - Statements that change no table (GRANT, users and roles, views, triggers, routines,
//     events, sequences, transactions, SET, ANALYZE/OPTIMIZE/REPAIR/FLUSH ..., statement-based
//     DML) become NoTableChange; DML (INSERT, REPLACE, UPDATE, DELETE, LOAD DATA/XML, and
//     WITH ... UPDATE/DELETE) has is_dml set.
//   - Anything else throws Error(kUnsupported) whose message names the offset and token where
//     parsing stopped and the statement (truncated to 200 bytes); the caller adds the binlog
//     position. Lexing errors (unterminated string) come out the same way.
//   - Unqualified table names get `default_database` (the QUERY event's database).
#pragma once

#include <cstdint>
#include <string_view>

#include "schema/ddl_statement.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

struct ParseOptions {
  std::string_view default_database;
  bool ansi_quotes = false;           // sql_mode ANSI_QUOTES
  bool no_backslash_escapes = false;  // sql_mode NO_BACKSLASH_ESCAPES
  bool real_as_float = false;         // sql_mode REAL_AS_FLOAT: REAL means FLOAT, not DOUBLE

  // Options for a QUERY event's database and its sql_mode status variable (absent = 0).
  static ParseOptions ForQuery(std::string_view database, uint64_t sql_mode);
  // The lexer's share of them (quoting and escapes).
  LexOptions lex() const { return LexOptions{ansi_quotes, no_backslash_escapes}; }
};

DdlStatement ParseDdl(std::string_view sql, const ParseOptions& options);

}  // namespace rowbridge::schema
