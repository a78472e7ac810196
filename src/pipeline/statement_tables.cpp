#include "pipeline/statement_tables.h"

#include <cctype>

namespace rowbridge::pipeline {

namespace {

struct Token {
  std::string text;     // identifier text (unquoted) or the punctuation character
  bool quoted = false;  // came from backticks
  bool word = false;    // identifier or keyword
};

// Splits the statement into words, quoted identifiers and single punctuation characters. String
// literals become one opaque token; comments are skipped.
std::vector<Token> Tokenize(std::string_view s, size_t limit) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size() && tokens.size() < limit) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      // A versioned comment /*!50100 ... */ holds statement text: keep its content.
      if (i + 2 < s.size() && s[i + 2] == '!') {
        i += 3;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        continue;
      }
      const size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') {
      i += 2;  // the end of a versioned comment
    } else if (c == '#' || (c == '-' && i + 2 < s.size() && s[i + 1] == '-' &&
                            std::isspace(static_cast<unsigned char>(s[i + 2])))) {
      const size_t end = s.find('\n', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
    } else if (c == '`') {
      Token t;
      t.quoted = true;
      t.word = true;
      ++i;
      while (i < s.size()) {
        if (s[i] == '`') {
          if (i + 1 < s.size() && s[i + 1] == '`') {
            t.text.push_back('`');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text.push_back(s[i++]);
      }
      tokens.push_back(std::move(t));
    } else if (c == '\'' || c == '"') {
      const char quote = c;
      ++i;
      while (i < s.size() && s[i] != quote) i += s[i] == '\\' ? 2 : 1;
      ++i;
      tokens.push_back({"'", false, false});
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
               static_cast<unsigned char>(c) >= 0x80) {
      Token t;
      t.word = true;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                              s[i] == '$' || static_cast<unsigned char>(s[i]) >= 0x80)) {
        t.text.push_back(s[i++]);
      }
      tokens.push_back(std::move(t));
    } else {
      tokens.push_back({std::string(1, c), false, false});
      ++i;
    }
  }
  return tokens;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view default_database)
      : tokens_(std::move(tokens)), default_database_(default_database) {}

  bool AtEnd() const { return pos_ >= tokens_.size(); }
  // True (and advances) if the next token is the unquoted keyword `word`.
  bool Accept(std::string_view word) {
    if (AtEnd() || !tokens_[pos_].word || tokens_[pos_].quoted) return false;
    const std::string& t = tokens_[pos_].text;
    if (t.size() != word.size()) return false;
    for (size_t i = 0; i < t.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(t[i])) != word[i]) return false;
    }
    ++pos_;
    return true;
  }
  bool AcceptPunct(char c) {
    if (AtEnd() || tokens_[pos_].word || tokens_[pos_].text != std::string(1, c)) return false;
    ++pos_;
    return true;
  }
  // A table name: ident or ident.ident. False if none is next.
  bool TableName(tables::SourceTableName& out) {
    if (AtEnd() || !tokens_[pos_].word) return false;
    std::string first = tokens_[pos_++].text;
    if (AcceptPunct('.')) {
      if (AtEnd() || !tokens_[pos_].word) return false;
      out = {first, tokens_[pos_++].text};
    } else {
      out = {std::string(default_database_), first};
    }
    return true;
  }
  void Skip() { ++pos_; }
  // Skips to after the next top-level ',' (true) or to the end (false).
  bool SkipClause() {
    int depth = 0;
    while (!AtEnd()) {
      const Token& t = tokens_[pos_++];
      if (t.word) continue;
      if (t.text == "(") ++depth;
      if (t.text == ")") --depth;
      if (t.text == "," && depth <= 0) return true;
    }
    return false;
  }

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

}  // namespace

StatementTables ClassifyStatement(std::string_view sql, std::string_view default_database) {
  // Table names sit near the start; a long statement (CREATE ... SELECT, big ALTER) is only
  // tokenized as far as needed, except ALTER whose clauses all matter.
  Parser p(Tokenize(sql, 100000), default_database);
  StatementTables out;
  tables::SourceTableName name;
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
    } while (p.AcceptPunct(','));
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
    } while (p.AcceptPunct(','));
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
  if (p.Accept("INSERT") || p.Accept("REPLACE")) {
    out.verb = "INSERT";
    while (p.Accept("LOW_PRIORITY") || p.Accept("DELAYED") || p.Accept("HIGH_PRIORITY") ||
           p.Accept("IGNORE")) {
    }
    p.Accept("INTO");
    out.changes = true;
    if (p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  if (p.Accept("UPDATE")) {
    out.verb = "UPDATE";
    while (p.Accept("LOW_PRIORITY") || p.Accept("IGNORE")) {
    }
    out.changes = true;
    if (p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  if (p.Accept("DELETE")) {
    out.verb = "DELETE";
    while (p.Accept("LOW_PRIORITY") || p.Accept("QUICK") || p.Accept("IGNORE")) {
    }
    out.changes = true;
    if (p.Accept("FROM") && p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  if (p.Accept("LOAD")) {
    out.verb = "LOAD DATA";
    out.changes = true;
    while (!p.AtEnd() && !p.Accept("TABLE")) p.Skip();
    if (p.TableName(name)) out.tables.push_back(name);
    return out;
  }
  return out;
}

}  // namespace rowbridge::pipeline
