#include "schema/ddl_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"
#include "schema/sql_lexer.h"

namespace rowbridge::schema {

namespace {

constexpr uint64_t kModeRealAsFloat = 0x1;
constexpr uint64_t kModeAnsiQuotes = 0x4;
constexpr uint64_t kModeNoBackslashEscapes = 0x100000;

constexpr size_t kStatementInMessage = 200;

std::string Truncated(std::string_view sql) {
  if (sql.size() <= kStatementInMessage) return std::string(sql);
  return std::string(sql.substr(0, kStatementInMessage)) + "...";
}

// The statement forms a first keyword leads to when they change no table. CREATE/ALTER/DROP
// objects are listed separately (ObjectChangesNoTable).
constexpr std::string_view kNoTableVerbs[] = {
    "GRANT",  "REVOKE",  "SET",     "BEGIN",    "COMMIT",     "ROLLBACK", "SAVEPOINT", "RELEASE",
    "XA",     "START",   "STOP",    "ANALYZE",  "OPTIMIZE",   "REPAIR",   "CHECK",     "CHECKSUM",
    "FLUSH",  "RESET",   "PURGE",   "INSTALL",  "UNINSTALL",  "LOCK",     "UNLOCK",    "DO",
    "CALL",   "HANDLER", "KILL",    "CACHE",    "SHOW",       "USE",      "SELECT",    "WITH",
    "VALUES", "HELP",    "PREPARE", "EXECUTE",  "DEALLOCATE", "SIGNAL",   "RESIGNAL",  "SHUTDOWN",
    "CHANGE", "BACKUP",  "EXPLAIN", "DESCRIBE", "DESC",       "BINLOG",   "CLONE",     "RESTART",
    "IMPORT", "GET",     "DECLARE", "TABLE",    "END"};

constexpr std::string_view kDmlVerbs[] = {"INSERT", "REPLACE", "UPDATE", "DELETE"};

// Objects whose CREATE/ALTER/DROP leave every table's columns alone.
constexpr std::string_view kNoTableObjects[] = {
    "VIEW",      "TRIGGER",    "PROCEDURE", "FUNCTION",  "EVENT",   "USER",     "ROLE",
    "SERVER",    "TABLESPACE", "LOGFILE",   "SEQUENCE",  "PACKAGE", "RESOURCE", "SPATIAL",
    "AGGREGATE", "INSTANCE",   "UNDO",      "COMPONENT", "LIBRARY"};

}  // namespace

DdlParser::DdlParser(std::string_view sql, const ParseOptions& options)
    : sql_(sql), options_(options), tokens_(LexSql(sql, options.lex())) {}

DdlStatement DdlParser::Run() {
  DdlStatement statement = Statement();
  AcceptSymbol(";");
  if (!AtEnd()) Error("the end of the statement");
  return statement;
}

const Token& DdlParser::Peek(size_t ahead) const {
  const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

bool DdlParser::AtEnd() const {
  return Peek().kind == TokenKind::kEnd;
}

const Token& DdlParser::Take() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool DdlParser::Accept(std::string_view word) {
  if (!Peek().IsWord(word)) return false;
  Take();
  return true;
}

bool DdlParser::AcceptSymbol(std::string_view symbol) {
  if (!Peek().IsSymbol(symbol)) return false;
  Take();
  return true;
}

void DdlParser::Expect(std::string_view word) {
  if (!Accept(word)) Error(word);
}

void DdlParser::ExpectSymbol(std::string_view symbol) {
  if (!AcceptSymbol(symbol)) Error(fmt::format("\"{}\"", symbol));
}

bool DdlParser::AcceptSequence(std::initializer_list<std::string_view> words) {
  size_t i = 0;
  for (std::string_view w : words) {
    if (!Peek(i).IsWord(w)) return false;
    ++i;
  }
  pos_ += i;
  return true;
}

bool DdlParser::IsOneOf(const Token& t, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (t.IsWord(w)) return true;
  }
  return false;
}

void DdlParser::Error(std::string_view expected) const {
  const Token& t = Peek();
  const std::string near = t.kind == TokenKind::kEnd
                               ? std::string("the end")
                               : fmt::format("\"{}\"", std::string_view(t.text).substr(0, 40));
  Fail(ErrorCode::kUnsupported, "cannot parse DDL at offset {} (near {}, expected {}): {}",
       t.offset, near, expected, Truncated(sql_));
}

bool DdlParser::IsName(const Token& t) const {
  return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedName;
}

std::string DdlParser::Name(std::string_view what) {
  if (!IsName(Peek())) Error(what);
  return Take().text;
}

std::string DdlParser::NameOrString(std::string_view what) {
  if (!IsName(Peek()) && Peek().kind != TokenKind::kString) Error(what);
  return Take().text;
}

TableRef DdlParser::Table() {
  TableRef ref;
  std::string first = Name("a table name");
  if (AcceptSymbol(".")) {
    ref.database = std::move(first);
    ref.table = Name("a table name");
  } else {
    ref.database = std::string(options_.default_database);
    ref.table = std::move(first);
  }
  return ref;
}

uint32_t DdlParser::Number(std::string_view what) {
  if (Peek().kind != TokenKind::kNumber) Error(what);
  const std::string& text = Take().text;
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    --pos_;
    Error(what);
  }
  return v;
}

std::string DdlParser::Balanced() {
  const size_t start = Peek().offset;
  ExpectSymbol("(");
  int depth = 1;
  while (depth > 0) {
    if (AtEnd()) Error("\")\"");
    const Token& t = Take();
    if (t.IsSymbol("(")) ++depth;
    if (t.IsSymbol(")")) --depth;
  }
  return std::string(sql_.substr(start, tokens_[pos_ - 1].end - start));
}

void DdlParser::SkipToComma() {
  while (!AtEnd() && !Peek().IsSymbol(",") && !Peek().IsSymbol(";")) {
    if (Peek().IsSymbol("(")) {
      Balanced();
    } else {
      Take();
    }
  }
}

void DdlParser::SkipToEnd() {
  while (!AtEnd()) {
    if (Peek().IsSymbol(";") && Peek(1).kind == TokenKind::kEnd) return;
    Take();
  }
}

void DdlParser::AcceptIfExists(bool& flag) {
  if (AcceptSequence({"IF", "EXISTS"})) flag = true;
}

void DdlParser::AcceptIfNotExists(bool& flag) {
  if (AcceptSequence({"IF", "NOT", "EXISTS"})) flag = true;
}

void DdlParser::AcceptWait() {
  if (Accept("WAIT")) {
    Number("a number of seconds");
  } else {
    Accept("NOWAIT");
  }
}

DdlStatement DdlParser::Statement() {
  const Token& first = Peek();
  if (first.kind != TokenKind::kWord) {
    if (first.IsSymbol("(")) {
      SkipToEnd();
      return NoTableChange{"SELECT", false};
    }
    Error("a statement");
  }
  if (first.IsWord("SET") && Peek(1).IsWord("STATEMENT")) {
    // MariaDB: SET STATEMENT var=value [, ...] FOR statement.
    while (!AtEnd() && !Peek().IsWord("FOR")) {
      if (Peek().IsSymbol("(")) {
        Balanced();
      } else {
        Take();
      }
    }
    Expect("FOR");
    return Statement();
  }
  if (Accept("CREATE")) return Create();
  if (Accept("ALTER")) return Alter();
  if (Accept("DROP")) return Drop();
  if (Accept("RENAME")) return Rename();
  if (Accept("TRUNCATE")) {
    Accept("TABLE");
    TruncateTable t{Table()};
    AcceptWait();
    return t;
  }
  if (first.IsWord("WITH")) return AfterCommonTableExpressions();
  // The rest of these statements does not matter to the schema; their text is not checked.
  for (std::string_view verb : kDmlVerbs) {
    if (first.IsWord(verb)) {
      SkipToEnd();
      return NoTableChange{std::string(verb), true};
    }
  }
  if (first.IsWord("LOAD")) {
    const bool data = Peek(1).IsWord("DATA") || Peek(1).IsWord("XML");
    SkipToEnd();
    return NoTableChange{data ? "LOAD DATA" : "LOAD INDEX", data};
  }
  for (std::string_view verb : kNoTableVerbs) {
    if (first.IsWord(verb)) {
      SkipToEnd();
      return NoTableChange{std::string(verb), false};
    }
  }
  Error("a statement rowbridge knows");
}

DdlStatement DdlParser::AfterCommonTableExpressions() {
  Take();
  while (!AtEnd()) {
    if (Peek().IsSymbol("(")) {
      Balanced();
      continue;
    }
    for (std::string_view verb : kDmlVerbs) {
      if (Peek().IsWord(verb)) {
        SkipToEnd();
        return NoTableChange{std::string(verb), true};
      }
    }
    if (Peek().IsWord("SELECT") || Peek().IsWord("TABLE") || Peek().IsWord("VALUES")) break;
    Take();
  }
  SkipToEnd();
  return NoTableChange{"WITH", false};
}

bool DdlParser::IsNoTableObject(const Token& t) {
  for (std::string_view object : kNoTableObjects) {
    if (t.IsWord(object)) return true;
  }
  return false;
}

void DdlParser::SkipDefiner() {
  AcceptSymbol("=");
  if (Accept("CURRENT_USER")) {
    if (AcceptSymbol("(")) ExpectSymbol(")");
    return;
  }
  NameOrString("a user name");
  if (Peek().kind == TokenKind::kVariable) {
    Take();  // `user`@`host` lexes the host part as a variable
  } else if (AcceptSymbol("@")) {
    NameOrString("a host name");
  }
}

std::string DdlParser::ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

void DdlParser::AlgorithmAndLock() {
  for (;;) {
    if (Accept("ALGORITHM") || Accept("LOCK")) {
      AcceptSymbol("=");
      Name("a value");
    } else if (Accept("WAIT")) {
      Number("a number of seconds");
    } else if (!Accept("NOWAIT")) {
      return;
    }
  }
}

ParseOptions ParseOptions::ForQuery(std::string_view database, uint64_t sql_mode) {
  ParseOptions o;
  o.default_database = database;
  o.ansi_quotes = (sql_mode & kModeAnsiQuotes) != 0;
  o.no_backslash_escapes = (sql_mode & kModeNoBackslashEscapes) != 0;
  o.real_as_float = (sql_mode & kModeRealAsFloat) != 0;
  return o;
}

DdlStatement ParseDdl(std::string_view sql, const ParseOptions& options) {
  try {
    return DdlParser(sql, options).Run();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUnsupported) throw;
    Fail(ErrorCode::kUnsupported, "cannot parse DDL: {}: {}", e.what(), Truncated(sql));
  }
}

}  // namespace rowbridge::schema
