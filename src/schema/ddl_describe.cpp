#include "schema/ddl_describe.h"

#include <fmt/format.h>

namespace rowbridge::schema {

namespace {

std::string Ref(const TableRef& t) {
  return t.database + "." + t.table;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string Options(const TableOptions& o) {
  std::string s;
  if (!o.charset.empty()) s += " charset=" + o.charset;
  if (!o.collation.empty()) s += " collation=" + o.collation;
  return s;
}

const char* IndexKindName(IndexKind kind) {
  switch (kind) {
    case IndexKind::kPrimary:
      return "primary";
    case IndexKind::kUnique:
      return "unique";
    case IndexKind::kIndex:
      return "index";
    case IndexKind::kFulltext:
      return "fulltext";
    case IndexKind::kSpatial:
      return "spatial";
    case IndexKind::kForeign:
      return "foreign";
    case IndexKind::kCheck:
      return "check";
  }
  return "?";
}

std::string Index(const IndexSpec& index) {
  std::string s =
      fmt::format("{}{}", IndexKindName(index.kind), index.name.empty() ? "" : " " + index.name);
  if (index.kind != IndexKind::kCheck)
    s += " (" + fmt::format("{}", fmt::join(index.columns, ",")) + ")";
  if (index.if_not_exists) s += " IF NOT EXISTS";
  return s;
}

std::string Place(const AlterSpec& spec) {
  if (spec.place == ColumnPlace::kFirst) return " FIRST";
  if (spec.place == ColumnPlace::kAfter) return " AFTER " + spec.after_column;
  return "";
}

std::string Spec(const AlterSpec& spec) {
  using Kind = AlterSpec::Kind;
  const std::string if_exists = spec.if_exists ? " IF EXISTS" : "";
  switch (spec.kind) {
    case Kind::kAddColumn:
      return "ADD COLUMN " + DescribeColumnSpec(spec.definition) + Place(spec) +
             (spec.if_not_exists ? " IF NOT EXISTS" : "");
    case Kind::kDropColumn:
      return "DROP COLUMN " + spec.column + if_exists;
    case Kind::kModifyColumn:
      return "MODIFY COLUMN " + DescribeColumnSpec(spec.definition) + Place(spec) + if_exists;
    case Kind::kChangeColumn:
      return "CHANGE COLUMN " + spec.column + " " + DescribeColumnSpec(spec.definition) +
             Place(spec) + if_exists;
    case Kind::kRenameColumn:
      return "RENAME COLUMN " + spec.column + " TO " + spec.new_name + if_exists;
    case Kind::kSetColumnDefault:
      return "SET DEFAULT " + spec.column + " = " + spec.default_value.value_or("?");
    case Kind::kDropColumnDefault:
      return "DROP DEFAULT " + spec.column;
    case Kind::kSetColumnVisibility:
      return (spec.invisible ? "SET INVISIBLE " : "SET VISIBLE ") + spec.column;
    case Kind::kAddIndex:
      return "ADD INDEX " + Index(spec.index);
    case Kind::kDropIndex:
      return "DROP INDEX " + spec.name + if_exists;
    case Kind::kDropPrimaryKey:
      return "DROP PRIMARY KEY";
    case Kind::kDropForeignKey:
      return "DROP FOREIGN KEY " + spec.name + if_exists;
    case Kind::kDropConstraint:
      return "DROP CONSTRAINT " + spec.name + if_exists;
    case Kind::kRenameIndex:
      return "RENAME INDEX " + spec.name + " TO " + spec.new_name;
    case Kind::kRenameTable:
      return "RENAME TO " + Ref(spec.new_table);
    case Kind::kConvertCharset:
      return "CONVERT TO" + Options(spec.options);
    case Kind::kTableOptions:
      return "TABLE OPTIONS" + Options(spec.options);
    case Kind::kPartition:
      return "PARTITION " + spec.verb + (spec.changes_rows ? " (changes rows)" : "");
    case Kind::kNoSchemaEffect:
      return "NO SCHEMA EFFECT " + spec.verb;
  }
  return "?";
}

struct Describer {
  std::string operator()(const CreateTable& c) const {
    std::string s = "CREATE";
    if (c.or_replace) s += " OR REPLACE";
    if (c.temporary) s += " TEMPORARY";
    s += " TABLE " + Ref(c.table);
    if (c.if_not_exists) s += " IF NOT EXISTS";
    if (c.like) s += " LIKE " + Ref(*c.like);
    if (c.as_select) s += " AS SELECT";
    s += "\n";
    for (const ColumnSpec& column : c.columns) s += "  column " + DescribeColumnSpec(column) + "\n";
    for (const IndexSpec& index : c.indexes) s += "  index " + Index(index) + "\n";
    const std::string options = Options(c.options);
    if (!options.empty()) s += "  options" + options + "\n";
    return s;
  }
  std::string operator()(const AlterTable& a) const {
    std::string s = a.verb + " " + Ref(a.table) + (a.if_exists ? " IF EXISTS" : "") + "\n";
    for (const AlterSpec& spec : a.specs) s += "  " + Spec(spec) + "\n";
    return s;
  }
  std::string operator()(const RenameTables& r) const {
    std::string s = "RENAME TABLE\n";
    for (const auto& [from, to] : r.renames) s += "  " + Ref(from) + " TO " + Ref(to) + "\n";
    return s;
  }
  std::string operator()(const DropTables& d) const {
    std::string s = d.temporary ? "DROP TEMPORARY TABLE" : "DROP TABLE";
    if (d.if_exists) s += " IF EXISTS";
    s += "\n";
    for (const TableRef& t : d.tables) s += "  " + Ref(t) + "\n";
    return s;
  }
  std::string operator()(const TruncateTable& t) const {
    return "TRUNCATE TABLE " + Ref(t.table) + "\n";
  }
  std::string operator()(const CreateDatabase& c) const {
    return fmt::format("CREATE{} DATABASE {}{}{}\n", c.or_replace ? " OR REPLACE" : "", c.database,
                       c.if_not_exists ? " IF NOT EXISTS" : "", Options(c.options));
  }
  std::string operator()(const AlterDatabase& a) const {
    return "ALTER DATABASE " + a.database + Options(a.options) + "\n";
  }
  std::string operator()(const DropDatabase& d) const {
    return "DROP DATABASE " + d.database + (d.if_exists ? " IF EXISTS" : "") + "\n";
  }
  std::string operator()(const NoTableChange& n) const {
    return "NO TABLE CHANGE " + n.verb + (n.is_dml ? " (dml)" : "") + "\n";
  }
};

}  // namespace

std::string DescribeColumnSpec(const ColumnSpec& c) {
  const TypeSpec& t = c.type;
  std::string s = c.name + " " + t.name;
  if (!t.labels.empty()) {
    s += "(";
    for (size_t i = 0; i < t.labels.size(); ++i) s += (i ? "," : "") + Quote(t.labels[i]);
    s += ")";
  } else if (t.length) {
    s += fmt::format("({}{})", *t.length, t.scale ? fmt::format(",{}", *t.scale) : "");
  }
  if (t.is_unsigned) s += " unsigned";
  if (t.zerofill) s += " zerofill";
  if (t.binary) s += " binary";
  if (!t.charset.empty()) s += " charset=" + t.charset;
  if (!t.collation.empty()) s += " collate=" + t.collation;
  if (c.nullable) s += *c.nullable ? " NULL" : " NOT NULL";
  if (c.default_value) s += " DEFAULT=" + *c.default_value;
  if (c.on_update) s += " ON UPDATE=" + *c.on_update;
  if (c.auto_increment) s += " AUTO_INCREMENT";
  if (c.primary_key) s += " PRIMARY KEY";
  if (c.unique_key) s += " UNIQUE";
  if (c.invisible) s += " INVISIBLE";
  if (c.generated != GeneratedKind::kNone) {
    s += c.generated == GeneratedKind::kStored ? " GENERATED STORED (" : " GENERATED VIRTUAL (";
    s += c.generated_expression + ")";
  }
  if (!c.comment.empty()) s += " COMMENT=" + Quote(c.comment);
  return s;
}

std::string DescribeStatement(const DdlStatement& statement) {
  return std::visit(Describer{}, statement);
}

}  // namespace rowbridge::schema
