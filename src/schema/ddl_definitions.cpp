// The definitions CREATE TABLE and ALTER TABLE share (ddl_parser_impl.h): index and key
// definitions with their key parts and options, foreign key references, and columns (type,
// attributes, default, generated expression).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"

namespace rowbridge::schema {

bool DdlParser::IsIndexStart() const {
  const Token& t = Peek();
  if (IsOneOf(t, {"CONSTRAINT", "PRIMARY", "UNIQUE", "INDEX", "KEY", "FULLTEXT", "FOREIGN"})) {
    return true;
  }
  if (t.IsWord("SPATIAL")) return true;  // reserved word: never a bare column name
  return t.IsWord("CHECK") && Peek(1).IsSymbol("(");
}

void DdlParser::CreateDefinition(std::vector<ColumnSpec>& columns,
                                 std::vector<IndexSpec>& indexes) {
  if (Peek().IsWord("PERIOD") && Peek(1).IsWord("FOR")) {
    Error("a table without PERIOD FOR");
  }
  if (!IsIndexStart()) {
    columns.push_back(Column(/*in_alter=*/false));
    return;
  }
  IndexSpec index;
  if (Accept("CONSTRAINT")) {
    if (!IsOneOf(Peek(), {"PRIMARY", "UNIQUE", "FOREIGN", "CHECK"})) {
      index.name = Name("a constraint name");
    }
  }
  if (Accept("PRIMARY")) {
    Expect("KEY");
    index.kind = IndexKind::kPrimary;
    index.name = "PRIMARY";
  } else if (Accept("UNIQUE")) {
    index.kind = IndexKind::kUnique;
    Accept("INDEX") || Accept("KEY");
  } else if (Accept("FULLTEXT")) {
    index.kind = IndexKind::kFulltext;
    Accept("INDEX") || Accept("KEY");
  } else if (Accept("SPATIAL")) {
    index.kind = IndexKind::kSpatial;
    Accept("INDEX") || Accept("KEY");
  } else if (Accept("INDEX") || Accept("KEY")) {
    index.kind = IndexKind::kIndex;
  } else if (Accept("FOREIGN")) {
    Expect("KEY");
    index.kind = IndexKind::kForeign;
  } else if (Accept("CHECK")) {
    index.kind = IndexKind::kCheck;
    Balanced();
    Accept("NOT");
    Accept("ENFORCED");
    indexes.push_back(std::move(index));
    return;
  } else {
    Error("PRIMARY KEY, UNIQUE, INDEX, FOREIGN KEY or CHECK");
  }
  AcceptIfNotExists(index.if_not_exists);
  if (index.kind != IndexKind::kPrimary && IsName(Peek()) && !Peek().IsWord("USING") &&
      !Peek().IsWord("TYPE")) {
    std::string name = Name("an index name");
    if (index.name.empty() || index.kind != IndexKind::kForeign) index.name = std::move(name);
  }
  if (Accept("USING") || Accept("TYPE")) Name("an index type");
  index.columns = KeyParts();
  if (index.kind == IndexKind::kForeign) {
    References();
  } else {
    IndexOptions();
  }
  indexes.push_back(std::move(index));
}

std::vector<std::string> DdlParser::KeyParts() {
  std::vector<std::string> columns;
  ExpectSymbol("(");
  do {
    if (Peek().IsSymbol("(")) {
      Balanced();  // functional key part: no column of its own
    } else {
      columns.push_back(Name("a key column"));
      if (Peek().IsSymbol("(")) Balanced();
    }
    Accept("ASC") || Accept("DESC");
  } while (AcceptSymbol(","));
  ExpectSymbol(")");
  return columns;
}

void DdlParser::IndexOptions() {
  for (;;) {
    if (Accept("KEY_BLOCK_SIZE")) {
      AcceptSymbol("=");
      Number("a number");
    } else if (Accept("USING") || Accept("TYPE")) {
      Name("an index type");
    } else if (AcceptSequence({"WITH", "PARSER"})) {
      Name("a parser name");
    } else if (Accept("COMMENT")) {
      AcceptSymbol("=");
      if (Peek().kind != TokenKind::kString) Error("a string");
      Take();
    } else if (Accept("VISIBLE") || Accept("INVISIBLE") || Accept("IGNORED") ||
               AcceptSequence({"NOT", "IGNORED"})) {
    } else if (Accept("ENGINE_ATTRIBUTE") || Accept("SECONDARY_ENGINE_ATTRIBUTE") ||
               Accept("CLUSTERING")) {
      AcceptSymbol("=");
      Take();
    } else {
      return;
    }
  }
}

void DdlParser::References() {
  Expect("REFERENCES");
  Table();
  if (Peek().IsSymbol("(")) KeyParts();
  for (;;) {
    if (Accept("MATCH")) {
      Name("FULL, PARTIAL or SIMPLE");
    } else if (Accept("ON")) {
      if (!Accept("DELETE") && !Accept("UPDATE")) Error("DELETE or UPDATE");
      if (Accept("RESTRICT") || Accept("CASCADE") || AcceptSequence({"SET", "NULL"}) ||
          AcceptSequence({"SET", "DEFAULT"}) || AcceptSequence({"NO", "ACTION"})) {
        continue;
      }
      Error("a referential action");
    } else {
      return;
    }
  }
}

ColumnSpec DdlParser::Column(bool in_alter) {
  ColumnSpec c;
  c.name = Name("a column name");
  c.type = Type();
  ColumnAttributes(c, in_alter);
  return c;
}

TypeSpec DdlParser::Type() {
  TypeSpec t;
  if (Peek().kind != TokenKind::kWord) Error("a column type");
  std::string name = ToLowerAscii(Take().text);
  // Multi-word type names.
  if (name == "double" && Accept("PRECISION")) {
    name = "double";
  } else if (name == "national") {
    if (Accept("VARCHAR")) {
      name = "nvarchar";
    } else {
      if (!Accept("CHAR") && !Accept("CHARACTER")) Error("CHAR or VARCHAR");
      name = Accept("VARYING") ? "nvarchar" : "nchar";
    }
  } else if (name == "nchar" && Accept("VARYING")) {
    name = "nvarchar";
  } else if (name == "nchar" && Accept("VARCHAR")) {
    name = "nvarchar";
  } else if ((name == "char" || name == "character") && Accept("VARYING")) {
    name = "varchar";
  } else if (name == "long") {
    if (Accept("VARBINARY")) {
      name = "mediumblob";
    } else if (Accept("VARCHAR") || AcceptSequence({"CHAR", "VARYING"})) {
      name = "mediumtext";
    } else {
      name = "mediumtext";
    }
  }
  if (name == "real" && options_.real_as_float) name = "float";
  t.name = KnownTypeName(name);
  if (t.name.empty()) {
    --pos_;
    Error("a column type");
  }
  if (t.name == "enum" || t.name == "set") {
    ExpectSymbol("(");
    do {
      if (Peek().kind != TokenKind::kString) Error("a quoted label");
      std::string label = Take().text;
      while (Peek().kind == TokenKind::kString) label += Take().text;
      t.labels.push_back(std::move(label));
    } while (AcceptSymbol(","));
    ExpectSymbol(")");
  } else if (AcceptSymbol("(")) {
    t.length = Number("a length");
    if (AcceptSymbol(",")) t.scale = Number("a scale");
    ExpectSymbol(")");
  }
  for (;;) {
    if (Accept("UNSIGNED")) {
      t.is_unsigned = true;
    } else if (Accept("SIGNED")) {
      t.is_unsigned = false;
    } else if (Accept("ZEROFILL")) {
      t.zerofill = true;
      t.is_unsigned = true;  // ZEROFILL implies UNSIGNED
    } else if (Accept("BINARY")) {
      t.binary = true;
    } else if (Accept("BYTE")) {
      t.charset = "binary";
    } else if (Accept("ASCII")) {
      t.charset = "latin1";
    } else if (Accept("UNICODE")) {
      t.charset = "ucs2";
    } else if (AcceptSequence({"CHARACTER", "SET"}) || Accept("CHARSET")) {
      AcceptSymbol("=");
      t.charset = ToLowerAscii(NameOrString("a character set"));
    } else if (Peek().IsWord("COLLATE")) {
      Take();
      AcceptSymbol("=");
      t.collation = ToLowerAscii(NameOrString("a collation"));
    } else {
      return t;
    }
  }
}

std::string DdlParser::KnownTypeName(const std::string& name) {
  static constexpr std::string_view kTypes[] = {"tinyint",
                                                "smallint",
                                                "mediumint",
                                                "middleint",
                                                "int",
                                                "integer",
                                                "bigint",
                                                "int1",
                                                "int2",
                                                "int3",
                                                "int4",
                                                "int8",
                                                "bool",
                                                "boolean",
                                                "bit",
                                                "serial",
                                                "float",
                                                "float4",
                                                "float8",
                                                "double",
                                                "real",
                                                "decimal",
                                                "dec",
                                                "numeric",
                                                "fixed",
                                                "date",
                                                "time",
                                                "datetime",
                                                "timestamp",
                                                "year",
                                                "char",
                                                "character",
                                                "nchar",
                                                "varchar",
                                                "varcharacter",
                                                "nvarchar",
                                                "binary",
                                                "varbinary",
                                                "tinytext",
                                                "text",
                                                "mediumtext",
                                                "longtext",
                                                "tinyblob",
                                                "blob",
                                                "mediumblob",
                                                "longblob",
                                                "json",
                                                "enum",
                                                "set",
                                                "geometry",
                                                "point",
                                                "linestring",
                                                "polygon",
                                                "multipoint",
                                                "multilinestring",
                                                "multipolygon",
                                                "geometrycollection",
                                                "geomcollection",
                                                "inet4",
                                                "inet6",
                                                "uuid",
                                                "vector"};
  for (std::string_view t : kTypes) {
    if (name == t) return name;
  }
  return {};
}

std::string DdlParser::DefaultValue() {
  const size_t start = Peek().offset;
  if (AcceptSymbol("-") || AcceptSymbol("+")) {
  }
  const Token& t = Peek();
  if (t.IsSymbol("(")) {
    Balanced();
  } else if (t.kind == TokenKind::kString || t.kind == TokenKind::kNumber) {
    Take();
    while (Peek().kind == TokenKind::kString) Take();
  } else if (t.kind == TokenKind::kWord) {
    Take();
    if (Peek().kind == TokenKind::kString) {
      Take();  // _utf8mb4'x', DATE '2020-01-01'
      while (Peek().kind == TokenKind::kString) Take();
    } else if (Peek().IsSymbol("(")) {
      Balanced();
    } else if (Peek().IsSymbol(".") && IsName(Peek(1))) {
      Take();  // MariaDB: DEFAULT NEXT VALUE FOR db.seq is rare; db.seq.nextval-style names
      Take();
      if (Peek().IsSymbol("(")) Balanced();
    }
  } else {
    Error("a default value");
  }
  return std::string(sql_.substr(start, tokens_[pos_ - 1].end - start));
}

void DdlParser::ColumnAttributes(ColumnSpec& c, bool in_alter) {
  for (;;) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kEnd || t.IsSymbol(",") || t.IsSymbol(")") || t.IsSymbol(";")) {
      return;
    }
    if (in_alter && (t.IsWord("FIRST") || t.IsWord("AFTER"))) return;
    if (AcceptSequence({"NOT", "NULL"})) {
      c.nullable = false;
    } else if (Accept("NULL")) {
      c.nullable = true;
    } else if (Accept("DEFAULT")) {
      c.default_value = DefaultValue();
    } else if (Accept("AUTO_INCREMENT")) {
      c.auto_increment = true;
    } else if (AcceptSequence({"SERIAL", "DEFAULT", "VALUE"})) {
      c.nullable = false;
      c.auto_increment = true;
      c.unique_key = true;
    } else if (Accept("UNIQUE")) {
      Accept("KEY");
      c.unique_key = true;
    } else if (Accept("PRIMARY")) {
      Expect("KEY");
      c.primary_key = true;
    } else if (Accept("KEY")) {
      c.primary_key = true;
    } else if (Accept("COMMENT")) {
      if (Peek().kind != TokenKind::kString) Error("a comment string");
      c.comment = Take().text;
    } else if (Peek().IsWord("COLLATE")) {
      Take();
      AcceptSymbol("=");
      c.type.collation = ToLowerAscii(NameOrString("a collation"));
    } else if (AcceptSequence({"CHARACTER", "SET"}) || Accept("CHARSET")) {
      AcceptSymbol("=");
      c.type.charset = ToLowerAscii(NameOrString("a character set"));
    } else if (Accept("COLUMN_FORMAT") || Accept("STORAGE")) {
      Name("a value");
    } else if (Accept("ENGINE_ATTRIBUTE") || Accept("SECONDARY_ENGINE_ATTRIBUTE") ||
               Accept("REF_SYSTEM_ID") || Accept("SRID")) {
      AcceptSymbol("=");
      Take();
    } else if (Accept("GENERATED")) {
      Expect("ALWAYS");
      Expect("AS");
      GeneratedExpression(c);
    } else if (Accept("AS")) {
      GeneratedExpression(c);
    } else if (Accept("VIRTUAL")) {
      c.generated = GeneratedKind::kVirtual;
    } else if (Accept("STORED") || Accept("PERSISTENT")) {
      c.generated = GeneratedKind::kStored;
    } else if (AcceptSequence({"ON", "UPDATE"})) {
      c.on_update = DefaultValue();
    } else if (Accept("INVISIBLE")) {
      c.invisible = true;
    } else if (Accept("VISIBLE")) {
      c.invisible = false;
    } else if (Accept("CONSTRAINT")) {
      if (!Peek().IsWord("CHECK")) Name("a constraint name");
    } else if (Accept("CHECK")) {
      Balanced();
      Accept("NOT");
      Accept("ENFORCED");
    } else if (Peek().IsWord("REFERENCES")) {
      References();
    } else if (Accept("COMPRESSED")) {
      if (AcceptSymbol("=")) Name("a compression method");
    } else if (Peek().IsWord("WITH") || Peek().IsWord("WITHOUT")) {
      Error("a column without SYSTEM VERSIONING");
    } else {
      Error("a column attribute");
    }
  }
}

void DdlParser::GeneratedExpression(ColumnSpec& c) {
  if (!Peek().IsSymbol("(")) Error("\"(\"");
  std::string text = Balanced();
  c.generated_expression = text.substr(1, text.size() - 2);
  if (c.generated == GeneratedKind::kNone) c.generated = GeneratedKind::kVirtual;
}

}  // namespace rowbridge::schema
