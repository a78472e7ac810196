// DROP (TABLE, INDEX ... ON t as an AlterTable, DATABASE | SCHEMA, objects that are no table) and
// RENAME TABLE (ddl_parser_impl.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"

namespace rowbridge::schema {

DdlStatement DdlParser::Drop() {
  DropTables d;
  if (Accept("TEMPORARY")) d.temporary = true;
  if (Accept("TABLE") || Accept("TABLES")) {
    AcceptIfExists(d.if_exists);
    do {
      d.tables.push_back(Table());
    } while (AcceptSymbol(","));
    AcceptWait();
    Accept("RESTRICT") || Accept("CASCADE");
    return d;
  }
  if (d.temporary) Error("TABLE");
  if (Accept("DATABASE") || Accept("SCHEMA")) {
    DropDatabase db;
    AcceptIfExists(db.if_exists);
    db.database = Name("a database name");
    return db;
  }
  if (Accept("INDEX")) {
    Accept("ONLINE") || Accept("OFFLINE");
    AlterSpec spec;
    spec.kind = AlterSpec::Kind::kDropIndex;
    spec.verb = "DROP INDEX";
    AcceptIfExists(spec.if_exists);
    spec.name = Name("an index name");
    if (EqualsIgnoreCase(spec.name, "PRIMARY")) spec.kind = AlterSpec::Kind::kDropPrimaryKey;
    Expect("ON");
    AlterTable alter;
    alter.verb = "DROP INDEX";
    alter.table = Table();
    AlgorithmAndLock();
    alter.specs.push_back(std::move(spec));
    return alter;
  }
  if (IsNoTableObject(Peek()) || Peek().IsWord("PREPARE")) {
    NoTableChange n{"DROP " + ToUpper(Peek().text), false};
    SkipToEnd();
    return n;
  }
  Error("TABLE, DATABASE, INDEX or an object name");
}

DdlStatement DdlParser::Rename() {
  if (Accept("TABLE") || Accept("TABLES")) {
    RenameTables r;
    bool if_exists = false;
    AcceptIfExists(if_exists);
    do {
      TableRef from = Table();
      AcceptWait();
      Expect("TO");
      TableRef to = Table();
      r.renames.emplace_back(std::move(from), std::move(to));
    } while (AcceptSymbol(","));
    return r;
  }
  if (Peek().IsWord("USER")) {
    SkipToEnd();
    return NoTableChange{"RENAME USER", false};
  }
  Error("TABLE or USER");
}

}  // namespace rowbridge::schema
