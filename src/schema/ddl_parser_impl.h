// Internal to the DDL parser (ddl_parser.h, the contract): DdlParser, the recursive-descent
// parser behind ParseDdl, declared once for the files that hold its parts, one per statement
// family: ddl_parser.cpp (tokens, the first keyword, ParseDdl), ddl_create.cpp (CREATE TABLE,
// INDEX, DATABASE), ddl_alter.cpp (ALTER TABLE and DATABASE), ddl_drop_rename.cpp (DROP, RENAME,
// TRUNCATE), ddl_definitions.cpp (column and index definitions, shared by CREATE and ALTER) and
// ddl_table_options.cpp. Nothing outside those files includes it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "schema/ddl_parser.h"
#include "schema/ddl_statement.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

// One statement's parse: Run once, on the tokens of `sql`. Throws Error(kUnsupported) naming the
// offset and the token where parsing stopped.
class DdlParser {
 public:
  DdlParser(std::string_view sql, const ParseOptions& options);

  DdlStatement Run();

 private:
  // ---- token helpers and common clauses (ddl_parser.cpp) ----

  const Token& Peek(size_t ahead = 0) const;
  bool AtEnd() const;
  const Token& Take();
  bool Accept(std::string_view word);
  bool AcceptSymbol(std::string_view symbol);
  void Expect(std::string_view word);
  void ExpectSymbol(std::string_view symbol);
  bool AcceptSequence(std::initializer_list<std::string_view> words);

  [[noreturn]] void Error(std::string_view expected) const;

  // Whether `t` is one of `words` (keywords, case ignored).
  static bool IsOneOf(const Token& t, std::initializer_list<std::string_view> words);

  bool IsName(const Token& t) const;

  std::string Name(std::string_view what = "a name");

  // A name that may be a string too (charset and collation names, user names).
  std::string NameOrString(std::string_view what);

  TableRef Table();

  uint32_t Number(std::string_view what);

  // Skips a parenthesised group (the current token must be "(") and returns its text.
  std::string Balanced();

  // Skips tokens up to (not including) a "," at nesting depth 0 or the end.
  void SkipToComma();

  void SkipToEnd();

  void AcceptIfExists(bool& flag);
  void AcceptIfNotExists(bool& flag);
  void AcceptWait();

  // ---- the statement: its first keyword (ddl_parser.cpp) ----

  DdlStatement Statement();

  // WITH [RECURSIVE] cte [(columns)] AS (query) [, ...] followed by a SELECT, or by an UPDATE or
  // DELETE (MySQL 8), which is statement-based DML like any other. The CTE list is skipped by
  // nesting only: its names cannot be reserved words, so the first word at depth 0 that starts a
  // statement ends it.
  DdlStatement AfterCommonTableExpressions();

  static bool IsNoTableObject(const Token& t);

  // DEFINER = user, where user is name[@host] or CURRENT_USER[()].
  void SkipDefiner();

  // ---- CREATE (ddl_create.cpp) ----

  DdlStatement Create();

  static std::string ToUpper(std::string_view s);

  DdlStatement CreateTableRest(bool or_replace, bool temporary);

  void SkipPartitioning();

  DdlStatement CreateIndexRest(IndexKind kind);

  // ---- common clauses (ddl_parser.cpp) ----

  void AlgorithmAndLock();

  // ---- ALTER (ddl_alter.cpp) ----

  DdlStatement Alter();

  static bool IsDatabaseOptionStart(const Token& t);

  DdlStatement AlterTableRest();

  AlterSpec Partition(std::string verb, bool changes_rows);

  void ColumnPlacement(AlterSpec& spec);

  void AlterSpecification(std::vector<AlterSpec>& specs);

  AlterSpec OtherAlterSpec();
  // After MODIFY: [COLUMN] [IF EXISTS] definition [FIRST | AFTER column].
  AlterSpec ModifyColumnSpec();
  // After CHANGE: [COLUMN] [IF EXISTS] old_name definition [FIRST | AFTER column].
  AlterSpec ChangeColumnSpec();
  // After RENAME: COLUMN a TO b, INDEX | KEY a TO b, or [TO | AS] table.
  AlterSpec RenameSpec();
  // After ALTER: INDEX | KEY (visibility), CHECK | CONSTRAINT (enforcement), or [COLUMN] c
  // (its default or visibility).
  AlterSpec AlterSubjectSpec();
  // After CONVERT: PARTITION or TABLE (partition maintenance), or TO CHARACTER SET.
  AlterSpec ConvertSpec();
  // TRUNCATE, EXCHANGE, REORGANIZE, ... PARTITION, REMOVE | UPGRADE PARTITIONING: partition
  // maintenance, flagged when it loses rows (TRUNCATE, EXCHANGE).
  AlterSpec PartitionMaintenanceSpec();

  AlterSpec AddSpec();

  AlterSpec DropSpec();

  // ---- DROP, RENAME, TRUNCATE (ddl_drop_rename.cpp) ----

  DdlStatement Drop();

  DdlStatement Rename();

  // ---- definitions of indexes and keys (ddl_definitions.cpp) ----

  bool IsIndexStart() const;

  void CreateDefinition(std::vector<ColumnSpec>& columns, std::vector<IndexSpec>& indexes);

  std::vector<std::string> KeyParts();

  void IndexOptions();

  void References();

  // ---- columns (ddl_definitions.cpp) ----

  ColumnSpec Column(bool in_alter);

  TypeSpec Type();

  static std::string KnownTypeName(const std::string& name);

  // A DEFAULT or ON UPDATE value: a literal (optionally signed or with a charset introducer),
  // NULL/TRUE/FALSE, a function call such as CURRENT_TIMESTAMP(6), or a parenthesised expression.
  std::string DefaultValue();

  void ColumnAttributes(ColumnSpec& c, bool in_alter);

  void GeneratedExpression(ColumnSpec& c);

  // ---- table options (ddl_table_options.cpp) ----

  bool IsTableOptionStart() const;

  TableOptions TableOptionList(bool in_alter);

  void OptionValue();

  void TableOption(TableOptions& options);

  std::string_view sql_;
  ParseOptions options_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace rowbridge::schema
