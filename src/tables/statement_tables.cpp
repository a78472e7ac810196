#include "tables/statement_tables.h"

#include <algorithm>
#include <initializer_list>

namespace rowbridge::tables {

namespace {

using schema::Token;
using schema::TokenKind;

bool IsName(const Token& t) {
  return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedName;
}

bool IsAnyWord(const Token& t, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return t.IsWord(w); });
}

// Reserved words that may follow a table in a table reference: never an alias written bare.
bool EndsTableFactor(const Token& t) {
  return IsAnyWord(
      t, {"ON",      "USING",         "JOIN",   "INNER",  "CROSS",  "LEFT",      "RIGHT",
          "NATURAL", "STRAIGHT_JOIN", "FULL",   "OUTER",  "SET",    "WHERE",     "ORDER",
          "LIMIT",   "PARTITION",     "USE",    "IGNORE", "FORCE",  "GROUP",     "HAVING",
          "WINDOW",  "FOR",           "LOCK",   "UNION",  "EXCEPT", "INTERSECT", "RETURNING",
          "AS",      "FROM",          "VALUES", "SELECT", "WITH"});
}

// A table named in a table reference, with its alias (empty if none).
struct NamedTable {
  SourceTableName name;
  std::string alias;
  bool qualified = false;  // written with its database
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view default_database)
      : tokens_(std::move(tokens)), default_database_(default_database) {}

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];  // the last one is kEnd
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  void Skip() {
    if (!AtEnd()) ++pos_;
  }
  // True (and advances) if the next token is the unquoted keyword `word`.
  bool Accept(std::string_view word) {
    if (!Peek().IsWord(word)) return false;
    ++pos_;
    return true;
  }
  bool AcceptSymbol(std::string_view symbol) {
    if (!Peek().IsSymbol(symbol)) return false;
    ++pos_;
    return true;
  }
  // A table name: name or name.name. False (nothing consumed) if none is next.
  bool TableName(SourceTableName& out) {
    if (!IsName(Peek())) return false;
    std::string first = Peek().text;
    ++pos_;
    if (Peek().IsSymbol(".") && IsName(Peek(1))) {
      out = {std::move(first), Peek(1).text};
      pos_ += 2;
    } else {
      out = {std::string(default_database_), std::move(first)};
    }
    return true;
  }
  // Skips a parenthesized group starting at the next token ("(") up to its ")".
  void SkipParenthesized() {
    int depth = 0;
    do {
      if (Peek().IsSymbol("(")) ++depth;
      if (Peek().IsSymbol(")")) --depth;
      Skip();
    } while (depth > 0 && !AtEnd());
  }
  // Skips to after the next top-level ',' (true) or to the end (false).
  bool SkipClause() {
    int depth = 0;
    while (!AtEnd()) {
      const Token& t = Peek();
      ++pos_;
      if (t.IsSymbol("(")) ++depth;
      if (t.IsSymbol(")")) --depth;
      if (t.IsSymbol(",") && depth <= 0) return true;
    }
    return false;
  }
  std::string_view default_database() const { return default_database_; }

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string_view default_database_;
};

// True if the ALTER clause starting at the parser's position only touches indexes or table
// options; advances past the clause either way.
bool HarmlessAlterClause(Parser& p) {
  bool harmless = false;
  if (p.Accept("ADD")) {
    harmless = p.Accept("INDEX") || p.Accept("KEY") || p.Accept("UNIQUE") || p.Accept("FULLTEXT") ||
               p.Accept("SPATIAL") || p.Accept("FOREIGN") || p.Accept("CONSTRAINT") ||
               p.Accept("CHECK");
  } else if (p.Accept("DROP")) {
    harmless = p.Accept("INDEX") || p.Accept("KEY") || p.Accept("FOREIGN") ||
               p.Accept("CONSTRAINT") || p.Accept("CHECK");
  } else if (p.Accept("RENAME")) {
    harmless = p.Accept("INDEX") || p.Accept("KEY");
  } else {
    harmless = p.Accept("ENGINE") || p.Accept("COMMENT") || p.Accept("AUTO_INCREMENT") ||
               p.Accept("ALGORITHM") || p.Accept("LOCK") || p.Accept("FORCE") ||
               p.Accept("ROW_FORMAT") || p.Accept("KEY_BLOCK_SIZE") ||
               p.Accept("STATS_PERSISTENT") || p.Accept("STATS_AUTO_RECALC") ||
               p.Accept("STATS_SAMPLE_PAGES") || p.Accept("ENABLE") || p.Accept("DISABLE");
  }
  return harmless;
}

// ---- statement-based DML ----

// Whether the "(" at the parser's position opens a query (a derived table, read only) rather
// than a parenthesized list of table references.
bool OpensQuery(const Parser& p) {
  size_t i = 0;
  while (p.Peek(i).IsSymbol("(")) ++i;
  return IsAnyWord(p.Peek(i), {"SELECT", "WITH", "VALUES", "TABLE"});
}

// Skips a join condition's expression: up to what may follow it at nesting depth 0 (a comma,
// another join, the end of a parenthesized join, the clause after the table references).
void SkipJoinCondition(Parser& p) {
  while (!p.AtEnd()) {
    const Token& t = p.Peek();
    if (t.IsSymbol("(")) {
      p.SkipParenthesized();
      continue;
    }
    if (t.IsSymbol(",") || t.IsSymbol(")") || t.IsSymbol(";")) return;
    // LEFT(...) and RIGHT(...) are functions; LEFT JOIN is a join.
    if (IsAnyWord(t, {"JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "NATURAL", "STRAIGHT_JOIN", "FULL",
                      "SET", "WHERE", "ORDER", "LIMIT", "RETURNING"}) &&
        !p.Peek(1).IsSymbol("(")) {
      return;
    }
    p.Skip();
  }
}

// [NATURAL] [INNER | CROSS | LEFT | RIGHT | FULL] [OUTER] JOIN, or STRAIGHT_JOIN.
bool AcceptJoin(Parser& p) {
  if (p.Accept("STRAIGHT_JOIN")) return true;
  size_t i = 0;
  while (IsAnyWord(p.Peek(i), {"NATURAL", "INNER", "CROSS", "LEFT", "RIGHT", "FULL", "OUTER"}) &&
         !p.Peek(i + 1).IsSymbol("(")) {
    ++i;
  }
  if (!p.Peek(i).IsWord("JOIN")) return false;
  for (size_t k = 0; k <= i; ++k) p.Skip();
  return true;
}

void TableReferences(Parser& p, std::vector<NamedTable>& out);

// One table factor: a table (with partitions, alias, index hints), a derived table or
// JSON_TABLE (read only: skipped) or a parenthesized list of table references.
void TableFactor(Parser& p, std::vector<NamedTable>& out) {
  const bool lateral = p.Accept("LATERAL");
  const bool function = !lateral && p.Peek().IsWord("JSON_TABLE") && p.Peek(1).IsSymbol("(");
  if (function) p.Skip();
  if (p.Peek().IsSymbol("(")) {
    if (lateral || function || OpensQuery(p)) {
      p.SkipParenthesized();
      p.Accept("AS");
      if (IsName(p.Peek()) && !EndsTableFactor(p.Peek())) p.Skip();  // its alias
      if (p.Peek().IsSymbol("(")) p.SkipParenthesized();             // its column names
    } else {
      p.Skip();
      TableReferences(p, out);
      p.AcceptSymbol(")");
    }
    return;
  }
  NamedTable table;
  table.qualified = IsName(p.Peek()) && p.Peek(1).IsSymbol(".") && IsName(p.Peek(2));
  if (!p.TableName(table.name)) return;
  if (p.Accept("PARTITION") && p.Peek().IsSymbol("(")) p.SkipParenthesized();
  if (p.Accept("AS") || (IsName(p.Peek()) && !EndsTableFactor(p.Peek()))) {
    if (IsName(p.Peek())) {
      table.alias = p.Peek().text;
      p.Skip();
    }
  }
  // Index hints: {USE | IGNORE | FORCE} {INDEX | KEY} [FOR {JOIN | ORDER BY | GROUP BY}] (...)
  while (IsAnyWord(p.Peek(), {"USE", "IGNORE", "FORCE"}) &&
         IsAnyWord(p.Peek(1), {"INDEX", "KEY"})) {
    p.Skip();
    p.Skip();
    if (p.Accept("FOR")) {
      if (!p.Accept("JOIN")) {
        p.Skip();  // ORDER or GROUP
        p.Accept("BY");
      }
    }
    if (p.Peek().IsSymbol("(")) p.SkipParenthesized();
  }
  out.push_back(std::move(table));
}

// table_reference [, table_reference ...], each a table factor with its joins.
void TableReferences(Parser& p, std::vector<NamedTable>& out) {
  do {
    TableFactor(p, out);
    for (;;) {
      if (p.Accept("ON")) {
        SkipJoinCondition(p);
      } else if (p.Accept("USING")) {
        if (p.Peek().IsSymbol("(")) p.SkipParenthesized();
      } else if (AcceptJoin(p)) {
        TableFactor(p, out);
      } else {
        break;
      }
    }
  } while (p.AcceptSymbol(","));
}

// The targets of a multi-table DELETE: name[.*] [, name[.*] ...].
std::vector<SourceTableName> DeleteTargets(Parser& p, std::vector<bool>& qualified) {
  std::vector<SourceTableName> targets;
  do {
    const bool has_database = IsName(p.Peek()) && p.Peek(1).IsSymbol(".") && IsName(p.Peek(2));
    SourceTableName name;
    if (!p.TableName(name)) break;
    if (p.Peek().IsSymbol(".") && p.Peek(1).IsSymbol("*")) {
      p.Skip();
      p.Skip();
    }
    targets.push_back(std::move(name));
    qualified.push_back(has_database);
  } while (p.AcceptSymbol(","));
  return targets;
}

bool SameName(std::string_view a, std::string_view b) {
  return schema::EqualsIgnoreCase(a, b);
}

// The tables the names of a multi-table DELETE stand for: an alias of table_references, else the
// table of that name.
std::vector<SourceTableName> ResolveTargets(const std::vector<SourceTableName>& targets,
                                            const std::vector<bool>& qualified,
                                            const std::vector<NamedTable>& references) {
  std::vector<SourceTableName> out;
  for (size_t i = 0; i < targets.size(); ++i) {
    const SourceTableName* resolved = &targets[i];
    if (!qualified[i]) {
      for (const NamedTable& r : references) {
        if (!r.alias.empty() && SameName(r.alias, targets[i].table)) {
          resolved = &r.name;
          break;
        }
      }
    }
    out.push_back(*resolved);
  }
  return out;
}

void AddUnique(std::vector<SourceTableName>& list, const SourceTableName& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

// The DML statement at the parser's position into `out`; `expressions` are the names of the
// common table expressions before it (not tables).
void ClassifyDml(Parser& p, const std::vector<std::string>& expressions, StatementTables& out) {
  SourceTableName name;
  if (p.Peek().IsWord("INSERT") || p.Peek().IsWord("REPLACE")) {
    out.verb = p.Peek().IsWord("INSERT") ? "INSERT" : "REPLACE";
    p.Skip();
    while (p.Accept("LOW_PRIORITY") || p.Accept("DELAYED") || p.Accept("HIGH_PRIORITY") ||
           p.Accept("IGNORE")) {
    }
    p.Accept("INTO");
    out.dml = out.changes = true;
    if (p.TableName(name)) out.tables.push_back(name);
    return;
  }
  if (p.Accept("UPDATE")) {
    out.verb = "UPDATE";
    out.dml = out.changes = true;
    while (p.Accept("LOW_PRIORITY") || p.Accept("IGNORE")) {
    }
    std::vector<NamedTable> references;
    TableReferences(p, references);
    for (const NamedTable& t : references) {
      const bool expression = !t.qualified && std::any_of(expressions.begin(), expressions.end(),
                                                          [&](const std::string& e) {
                                                            return SameName(e, t.name.table);
                                                          });
      if (!expression) AddUnique(out.tables, t.name);
    }
    return;
  }
  if (p.Accept("DELETE")) {
    out.verb = "DELETE";
    out.dml = out.changes = true;
    while (p.Accept("LOW_PRIORITY") || p.Accept("QUICK") || p.Accept("IGNORE")) {
    }
    std::vector<bool> qualified;
    std::vector<SourceTableName> targets;
    if (p.Accept("FROM")) {
      targets = DeleteTargets(p, qualified);
      if (!p.Accept("USING")) {
        // DELETE FROM t [[AS] alias] ...: the one table.
        if (!targets.empty()) out.tables.push_back(targets.front());
        return;
      }
    } else {
      targets = DeleteTargets(p, qualified);
      if (!p.Accept("FROM")) {
        for (const auto& t : targets) AddUnique(out.tables, t);
        return;
      }
    }
    std::vector<NamedTable> references;
    TableReferences(p, references);
    for (const auto& t : ResolveTargets(targets, qualified, references)) AddUnique(out.tables, t);
    return;
  }
  if (p.Peek().IsWord("LOAD") && (p.Peek(1).IsWord("DATA") || p.Peek(1).IsWord("XML"))) {
    out.verb = "LOAD DATA";
    out.dml = out.changes = true;
    while (!p.AtEnd() && !p.Accept("TABLE")) p.Skip();
    if (p.TableName(name)) out.tables.push_back(name);
  }
}

// WITH [RECURSIVE] name [(columns)] AS (query) [, ...]: returns the names (not tables).
std::vector<std::string> CommonTableExpressions(Parser& p) {
  std::vector<std::string> names;
  p.Accept("RECURSIVE");
  do {
    if (!IsName(p.Peek())) break;
    names.push_back(p.Peek().text);
    p.Skip();
    if (p.Peek().IsSymbol("(")) p.SkipParenthesized();
    if (!p.Accept("AS")) break;
    if (p.Peek().IsSymbol("(")) p.SkipParenthesized();
  } while (p.AcceptSymbol(","));
  return names;
}

}  // namespace

StatementTables ClassifyStatement(std::string_view sql, std::string_view default_database,
                                  const schema::LexOptions& lex) {
  Parser p(schema::LexSql(sql, lex), default_database);
  StatementTables out;
  SourceTableName name;
  if (p.Peek().IsWord("SET") && p.Peek(1).IsWord("STATEMENT")) {
    // MariaDB: SET STATEMENT var=value [, ...] FOR statement.
    while (!p.AtEnd() && !p.Peek().IsWord("FOR")) {
      if (p.Peek().IsSymbol("(")) {
        p.SkipParenthesized();
      } else {
        p.Skip();
      }
    }
    if (!p.Accept("FOR")) return out;
  }
  if (p.Accept("WITH")) {
    const std::vector<std::string> expressions = CommonTableExpressions(p);
    ClassifyDml(p, expressions, out);
    return out;
  }
  if (p.Accept("ALTER")) {
    p.Accept("ONLINE");
    p.Accept("IGNORE");
    if (!p.Accept("TABLE")) return out;
    out.verb = "ALTER TABLE";
    if (p.Accept("IF")) p.Accept("EXISTS");
    if (!p.TableName(name)) return out;
    out.tables.push_back(name);
    bool all_harmless = true;
    do {
      if (p.AtEnd()) break;
      if (!HarmlessAlterClause(p)) all_harmless = false;
    } while (p.SkipClause());
    out.changes = !all_harmless;
    return out;
  }
  if (p.Accept("DROP")) {
    p.Accept("TEMPORARY");
    if (p.Accept("INDEX")) {
      out.verb = "DROP INDEX";
      p.TableName(name);  // the index name
      if (p.Accept("ON") && p.TableName(name)) out.tables.push_back(name);
      return out;
    }
    if (!p.Accept("TABLE")) return out;
    out.verb = "DROP TABLE";
    out.changes = true;
    if (p.Accept("IF")) p.Accept("EXISTS");
    do {
      if (p.TableName(name)) out.tables.push_back(name);
    } while (p.AcceptSymbol(","));
    return out;
  }
  if (p.Accept("RENAME")) {
    if (!p.Accept("TABLE")) return out;
    out.verb = "RENAME TABLE";
    out.changes = true;
    do {
      if (p.TableName(name)) out.tables.push_back(name);
      if (!p.Accept("TO")) break;
      if (p.TableName(name)) out.tables.push_back(name);
    } while (p.AcceptSymbol(","));
    return out;
  }
  if (p.Accept("TRUNCATE")) {
    p.Accept("TABLE");
    out.verb = "TRUNCATE TABLE";
    out.changes = true;
    if (p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  if (p.Accept("CREATE")) {
    const bool or_replace = p.Accept("OR") && p.Accept("REPLACE");
    p.Accept("TEMPORARY");
    if (!p.Accept("UNIQUE") && !p.Accept("FULLTEXT")) p.Accept("SPATIAL");
    if (p.Accept("INDEX")) {
      out.verb = "CREATE INDEX";
      p.TableName(name);
      if (p.Accept("ON") && p.TableName(name)) out.tables.push_back(name);
      return out;
    }
    if (!p.Accept("TABLE")) return out;
    out.verb = or_replace ? "CREATE OR REPLACE TABLE" : "CREATE TABLE";
    out.changes = or_replace;
    if (p.Accept("IF")) {
      p.Accept("NOT");
      p.Accept("EXISTS");
    }
    if (p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  ClassifyDml(p, {}, out);
  return out;
}

}  // namespace rowbridge::tables
