// ALTER: TABLE (each specification: columns, indexes, keys, renames, options; partition
// maintenance flagged when it loses rows) and DATABASE | SCHEMA (ddl_parser_impl.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"

namespace rowbridge::schema {

DdlStatement DdlParser::Alter() {
  Accept("ONLINE") || Accept("OFFLINE");
  Accept("IGNORE");
  if (Accept("TABLE")) return AlterTableRest();
  if (Accept("DATABASE") || Accept("SCHEMA")) {
    AlterDatabase d;
    if (IsName(Peek()) && !IsDatabaseOptionStart(Peek())) {
      d.database = Name("a database name");
    } else {
      d.database = std::string(options_.default_database);
    }
    if (Accept("UPGRADE")) {
      SkipToEnd();
      return NoTableChange{"ALTER DATABASE", false};
    }
    d.options = TableOptionList(/*in_alter=*/false);
    return d;
  }
  if (Accept("DEFINER")) SkipDefiner();
  if (IsNoTableObject(Peek())) {
    NoTableChange n{"ALTER " + ToUpper(Peek().text), false};
    SkipToEnd();
    return n;
  }
  Error("TABLE, DATABASE or an object name");
}

bool DdlParser::IsDatabaseOptionStart(const Token& t) {
  return IsOneOf(t, {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "COMMENT", "ENCRYPTION", "READ",
                     "UPGRADE"});
}

DdlStatement DdlParser::AlterTableRest() {
  AlterTable alter;
  AcceptIfExists(alter.if_exists);
  alter.table = Table();
  AcceptWait();
  while (!AtEnd() && !(Peek().IsSymbol(";") && Peek(1).kind == TokenKind::kEnd)) {
    if (Peek().IsWord("PARTITION") && Peek(1).IsWord("BY")) {
      AlterSpec spec;
      spec.kind = AlterSpec::Kind::kPartition;
      spec.verb = "PARTITION BY";
      SkipToEnd();
      alter.specs.push_back(std::move(spec));
      break;
    }
    AlterSpecification(alter.specs);
    AcceptSymbol(",");
  }
  return alter;
}

AlterSpec DdlParser::Partition(std::string verb, bool changes_rows) {
  AlterSpec spec;
  spec.kind = AlterSpec::Kind::kPartition;
  spec.verb = std::move(verb);
  spec.changes_rows = changes_rows;
  SkipToComma();
  return spec;
}

void DdlParser::ColumnPlacement(AlterSpec& spec) {
  if (Accept("FIRST")) {
    spec.place = ColumnPlace::kFirst;
  } else if (Accept("AFTER")) {
    spec.place = ColumnPlace::kAfter;
    spec.after_column = Name("a column name");
  }
}

void DdlParser::AlterSpecification(std::vector<AlterSpec>& specs) {
  if (Accept("ADD")) {
    if (AcceptSymbol("(")) {
      // ADD [COLUMN] (definition, ...): every column is added at the end, in order.
      do {
        specs.push_back(AddSpec());
      } while (AcceptSymbol(","));
      ExpectSymbol(")");
      return;
    }
    if (Peek().IsWord("COLUMN") && Peek(1).IsSymbol("(")) {
      Take();
      Take();
      do {
        specs.push_back(AddSpec());
      } while (AcceptSymbol(","));
      ExpectSymbol(")");
      return;
    }
    specs.push_back(AddSpec());
    return;
  }
  if (Accept("DROP")) {
    specs.push_back(DropSpec());
    return;
  }
  specs.push_back(OtherAlterSpec());
}

AlterSpec DdlParser::OtherAlterSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Accept("MODIFY")) return ModifyColumnSpec();
  if (Accept("CHANGE")) return ChangeColumnSpec();
  if (Accept("RENAME")) return RenameSpec();
  if (Accept("ALTER")) return AlterSubjectSpec();
  if (Accept("CONVERT")) return ConvertSpec();
  if (Accept("ALGORITHM") || Accept("LOCK")) {
    spec.verb = ToUpper(tokens_[pos_ - 1].text);
    AcceptSymbol("=");
    Name("a value");
    return spec;
  }
  if (Accept("FORCE")) {
    spec.verb = "FORCE";
    return spec;
  }
  if (Accept("ENABLE") || Accept("DISABLE")) {
    spec.verb = ToUpper(tokens_[pos_ - 1].text) + " KEYS";
    Expect("KEYS");
    return spec;
  }
  if (Accept("DISCARD") || Accept("IMPORT")) {
    const std::string verb = ToUpper(tokens_[pos_ - 1].text);
    if (Peek().IsWord("PARTITION")) return Partition(verb + " PARTITION", false);
    Expect("TABLESPACE");
    spec.verb = verb + " TABLESPACE";
    return spec;
  }
  if (Accept("ORDER")) {
    Expect("BY");
    spec.verb = "ORDER BY";
    SkipToComma();
    return spec;
  }
  if (Accept("WITH") || Accept("WITHOUT")) {
    spec.verb = ToUpper(tokens_[pos_ - 1].text) + " VALIDATION";
    if (Accept("SYSTEM")) {
      // MariaDB system versioning adds hidden row_start/row_end columns we cannot follow.
      Error("a statement without SYSTEM VERSIONING");
    }
    Expect("VALIDATION");
    return spec;
  }
  if (IsOneOf(Peek(), {"TRUNCATE", "EXCHANGE", "REORGANIZE", "COALESCE", "ANALYZE", "CHECK",
                       "OPTIMIZE", "REBUILD", "REPAIR", "REMOVE", "UPGRADE"}))
    return PartitionMaintenanceSpec();
  if (IsTableOptionStart()) {
    spec.kind = Kind::kTableOptions;
    spec.verb = "TABLE OPTIONS";
    TableOption(spec.options);
    return spec;
  }
  Error("an ALTER TABLE specification");
}

AlterSpec DdlParser::ModifyColumnSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  Accept("COLUMN");
  spec.kind = Kind::kModifyColumn;
  spec.verb = "MODIFY COLUMN";
  AcceptIfExists(spec.if_exists);
  spec.definition = Column(/*in_alter=*/true);
  spec.column = spec.definition.name;
  ColumnPlacement(spec);
  return spec;
}

AlterSpec DdlParser::ChangeColumnSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  Accept("COLUMN");
  spec.kind = Kind::kChangeColumn;
  spec.verb = "CHANGE COLUMN";
  AcceptIfExists(spec.if_exists);
  spec.column = Name("a column name");
  spec.definition = Column(/*in_alter=*/true);
  ColumnPlacement(spec);
  return spec;
}

AlterSpec DdlParser::RenameSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Accept("COLUMN")) {
    spec.kind = Kind::kRenameColumn;
    spec.verb = "RENAME COLUMN";
    AcceptIfExists(spec.if_exists);
    spec.column = Name("a column name");
    Expect("TO");
    spec.new_name = Name("a column name");
    return spec;
  }
  if (Accept("INDEX") || Accept("KEY")) {
    spec.kind = Kind::kRenameIndex;
    spec.verb = "RENAME INDEX";
    AcceptIfExists(spec.if_exists);
    spec.name = Name("an index name");
    Expect("TO");
    spec.new_name = Name("an index name");
    return spec;
  }
  Accept("TO") || Accept("AS");
  spec.kind = Kind::kRenameTable;
  spec.verb = "RENAME TO";
  spec.new_table = Table();
  return spec;
}

AlterSpec DdlParser::AlterSubjectSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Accept("INDEX") || Accept("KEY")) {
    spec.verb = "ALTER INDEX";
    Name("an index name");
    Accept("NOT");
    if (!Accept("VISIBLE") && !Accept("INVISIBLE") && !Accept("IGNORED")) {
      Error("VISIBLE, INVISIBLE or IGNORED");
    }
    return spec;
  }
  if (Accept("CHECK") || Accept("CONSTRAINT")) {
    spec.verb = "ALTER CONSTRAINT";
    Name("a constraint name");
    Accept("NOT");
    Expect("ENFORCED");
    return spec;
  }
  Accept("COLUMN");
  AcceptIfExists(spec.if_exists);
  spec.column = Name("a column name");
  if (AcceptSequence({"SET", "DEFAULT"})) {
    spec.kind = Kind::kSetColumnDefault;
    spec.verb = "SET DEFAULT";
    spec.default_value = DefaultValue();
  } else if (AcceptSequence({"DROP", "DEFAULT"})) {
    spec.kind = Kind::kDropColumnDefault;
    spec.verb = "DROP DEFAULT";
  } else if (AcceptSequence({"SET", "VISIBLE"})) {
    spec.kind = Kind::kSetColumnVisibility;
    spec.verb = "SET VISIBLE";
  } else if (AcceptSequence({"SET", "INVISIBLE"})) {
    spec.kind = Kind::kSetColumnVisibility;
    spec.verb = "SET INVISIBLE";
    spec.invisible = true;
  } else {
    Error("SET DEFAULT, DROP DEFAULT, SET VISIBLE or SET INVISIBLE");
  }
  return spec;
}

AlterSpec DdlParser::ConvertSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Peek().IsWord("PARTITION")) return Partition("CONVERT PARTITION", true);
  if (Peek().IsWord("TABLE")) return Partition("CONVERT TABLE", true);
  Expect("TO");
  spec.kind = Kind::kConvertCharset;
  spec.verb = "CONVERT TO CHARACTER SET";
  if (!AcceptSequence({"CHARACTER", "SET"}) && !Accept("CHARSET")) Error("CHARACTER SET");
  AcceptSymbol("=");
  spec.options.charset = ToLowerAscii(NameOrString("a character set"));
  if (Accept("COLLATE")) {
    AcceptSymbol("=");
    spec.options.collation = ToLowerAscii(NameOrString("a collation"));
  }
  return spec;
}

AlterSpec DdlParser::PartitionMaintenanceSpec() {
  const std::string verb = ToUpper(Take().text);
  const bool changes_rows = verb == "TRUNCATE" || verb == "EXCHANGE";
  if (verb == "REMOVE" || verb == "UPGRADE") {
    Expect("PARTITIONING");
    return Partition(verb + " PARTITIONING", false);
  }
  if (!Peek().IsWord("PARTITION")) Error("PARTITION");
  return Partition(verb + " PARTITION", changes_rows);
}

AlterSpec DdlParser::AddSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Peek().IsWord("PARTITION")) return Partition("ADD PARTITION", false);
  if (Peek().IsWord("PERIOD") || Peek().IsWord("SYSTEM")) {
    Error("a statement without PERIOD / SYSTEM VERSIONING");
  }
  const bool column_keyword = Accept("COLUMN");
  bool if_not_exists = false;
  AcceptIfNotExists(if_not_exists);
  if (!column_keyword && IsIndexStart()) {
    spec.kind = Kind::kAddIndex;
    spec.verb = "ADD INDEX";
    std::vector<ColumnSpec> unused;
    std::vector<IndexSpec> indexes;
    CreateDefinition(unused, indexes);
    spec.index = std::move(indexes.at(0));
    spec.index.if_not_exists = spec.index.if_not_exists || if_not_exists;
    return spec;
  }
  spec.kind = Kind::kAddColumn;
  spec.verb = "ADD COLUMN";
  spec.if_not_exists = if_not_exists;
  spec.definition = Column(/*in_alter=*/true);
  spec.column = spec.definition.name;
  ColumnPlacement(spec);
  return spec;
}

AlterSpec DdlParser::DropSpec() {
  using Kind = AlterSpec::Kind;
  AlterSpec spec;
  if (Accept("PRIMARY")) {
    Expect("KEY");
    spec.kind = Kind::kDropPrimaryKey;
    spec.verb = "DROP PRIMARY KEY";
    return spec;
  }
  if (Accept("INDEX") || Accept("KEY")) {
    spec.kind = Kind::kDropIndex;
    spec.verb = "DROP INDEX";
    AcceptIfExists(spec.if_exists);
    spec.name = Name("an index name");
    return spec;
  }
  if (Accept("FOREIGN")) {
    Expect("KEY");
    spec.kind = Kind::kDropForeignKey;
    spec.verb = "DROP FOREIGN KEY";
    AcceptIfExists(spec.if_exists);
    spec.name = Name("a foreign key name");
    return spec;
  }
  if (Accept("CHECK") || Accept("CONSTRAINT")) {
    spec.kind = Kind::kDropConstraint;
    spec.verb = "DROP CONSTRAINT";
    AcceptIfExists(spec.if_exists);
    spec.name = Name("a constraint name");
    return spec;
  }
  if (Peek().IsWord("PARTITION")) return Partition("DROP PARTITION", true);
  if (Peek().IsWord("SYSTEM") || Peek().IsWord("PERIOD")) {
    Error("a statement without PERIOD / SYSTEM VERSIONING");
  }
  Accept("COLUMN");
  spec.kind = Kind::kDropColumn;
  spec.verb = "DROP COLUMN";
  AcceptIfExists(spec.if_exists);
  spec.column = Name("a column name");
  Accept("RESTRICT") || Accept("CASCADE");
  return spec;
}

}  // namespace rowbridge::schema
