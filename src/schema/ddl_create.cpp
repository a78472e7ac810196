// CREATE: TABLE (definitions, LIKE, ... SELECT; partitioning skipped), INDEX ... ON t (as an
// AlterTable), DATABASE | SCHEMA, and the objects whose CREATE changes no table
// (ddl_parser_impl.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"

namespace rowbridge::schema {

DdlStatement DdlParser::Create() {
  bool or_replace = false;
  if (AcceptSequence({"OR", "REPLACE"})) or_replace = true;
  bool temporary = false;
  IndexKind index_kind = IndexKind::kIndex;
  for (;;) {
    if (Accept("TEMPORARY")) {
      temporary = true;
    } else if (Accept("DEFINER")) {
      SkipDefiner();
    } else if (Accept("ALGORITHM")) {
      AcceptSymbol("=");
      Name("a view algorithm");
    } else if (AcceptSequence({"SQL", "SECURITY"})) {
      Name("DEFINER or INVOKER");
    } else if (Accept("ONLINE") || Accept("OFFLINE")) {
    } else if (Peek().IsWord("UNIQUE")) {
      Take();
      index_kind = IndexKind::kUnique;
    } else if (Peek().IsWord("FULLTEXT")) {
      Take();
      index_kind = IndexKind::kFulltext;
    } else if (Peek().IsWord("SPATIAL") && Peek(1).IsWord("INDEX")) {
      Take();
      index_kind = IndexKind::kSpatial;
    } else {
      break;
    }
  }
  if (Accept("TABLE")) return CreateTableRest(or_replace, temporary);
  if (Accept("INDEX")) return CreateIndexRest(index_kind);
  if (Accept("DATABASE") || Accept("SCHEMA")) {
    CreateDatabase d;
    d.or_replace = or_replace;
    AcceptIfNotExists(d.if_not_exists);
    d.database = Name("a database name");
    d.options = TableOptionList(/*in_alter=*/false);
    return d;
  }
  if (IsNoTableObject(Peek())) {
    NoTableChange n{"CREATE " + ToUpper(Peek().text), false};
    SkipToEnd();
    return n;
  }
  Error("TABLE, INDEX, DATABASE or an object name");
}

DdlStatement DdlParser::CreateTableRest(bool or_replace, bool temporary) {
  CreateTable c;
  c.or_replace = or_replace;
  c.temporary = temporary;
  AcceptIfNotExists(c.if_not_exists);
  c.table = Table();
  if (Accept("LIKE")) {
    c.like = Table();
    return c;
  }
  if (Peek().IsSymbol("(") && Peek(1).IsWord("LIKE")) {
    Take();
    Take();
    c.like = Table();
    ExpectSymbol(")");
    return c;
  }
  if (Peek().IsSymbol("(") && !Peek(1).IsWord("SELECT") && !Peek(1).IsWord("WITH") &&
      !Peek(1).IsSymbol("(")) {
    Take();
    do {
      CreateDefinition(c.columns, c.indexes);
    } while (AcceptSymbol(","));
    ExpectSymbol(")");
  }
  c.options = TableOptionList(/*in_alter=*/false);
  if (Peek().IsWord("PARTITION")) SkipPartitioning();
  Accept("IGNORE") || Accept("REPLACE");
  Accept("AS");
  if (Peek().IsWord("SELECT") || Peek().IsWord("WITH") || Peek().IsWord("VALUES") ||
      Peek().IsWord("TABLE") || Peek().IsSymbol("(")) {
    c.as_select = true;
    SkipToEnd();
  }
  if (c.columns.empty() && !c.as_select) Error("column definitions, LIKE or SELECT");
  return c;
}

void DdlParser::SkipPartitioning() {
  // PARTITION BY ... [PARTITIONS n] [SUBPARTITION BY ...] [(definitions)]; may be followed by
  // AS SELECT in CREATE TABLE ... SELECT.
  while (!AtEnd() && !Peek().IsWord("AS") && !Peek().IsWord("SELECT") &&
         !(Peek().IsSymbol(";") && Peek(1).kind == TokenKind::kEnd)) {
    if (Peek().IsSymbol("(")) {
      Balanced();
    } else {
      Take();
    }
  }
}

DdlStatement DdlParser::CreateIndexRest(IndexKind kind) {
  AlterSpec spec;
  spec.kind = AlterSpec::Kind::kAddIndex;
  spec.verb = "CREATE INDEX";
  spec.index.kind = kind;
  AcceptIfNotExists(spec.index.if_not_exists);
  spec.index.name = Name("an index name");
  if (Accept("USING") || Accept("TYPE")) Name("an index type");
  Expect("ON");
  AlterTable alter;
  alter.verb = "CREATE INDEX";
  alter.table = Table();
  spec.index.columns = KeyParts();
  IndexOptions();
  AlgorithmAndLock();
  alter.specs.push_back(std::move(spec));
  return alter;
}

}  // namespace rowbridge::schema
