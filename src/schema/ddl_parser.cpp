#include "schema/ddl_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
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

bool IsOneOf(const Token& t, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (t.IsWord(w)) return true;
  }
  return false;
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

constexpr std::string_view kTableOptionNames[] = {"ENGINE",
                                                  "TYPE",
                                                  "AUTO_INCREMENT",
                                                  "AVG_ROW_LENGTH",
                                                  "CHECKSUM",
                                                  "TABLE_CHECKSUM",
                                                  "COMMENT",
                                                  "COMPRESSION",
                                                  "CONNECTION",
                                                  "DELAY_KEY_WRITE",
                                                  "ENCRYPTION",
                                                  "ENCRYPTED",
                                                  "ENCRYPTION_KEY_ID",
                                                  "ENGINE_ATTRIBUTE",
                                                  "SECONDARY_ENGINE",
                                                  "SECONDARY_ENGINE_ATTRIBUTE",
                                                  "INSERT_METHOD",
                                                  "KEY_BLOCK_SIZE",
                                                  "MAX_ROWS",
                                                  "MIN_ROWS",
                                                  "PACK_KEYS",
                                                  "PASSWORD",
                                                  "ROW_FORMAT",
                                                  "STATS_AUTO_RECALC",
                                                  "STATS_PERSISTENT",
                                                  "STATS_SAMPLE_PAGES",
                                                  "PAGE_CHECKSUM",
                                                  "PAGE_COMPRESSED",
                                                  "PAGE_COMPRESSION_LEVEL",
                                                  "TRANSACTIONAL",
                                                  "IETF_QUOTES",
                                                  "SEQUENCE",
                                                  "AUTOEXTEND_SIZE",
                                                  "READ",
                                                  "DEFAULT_ENCRYPTION"};

class Parser {
 public:
  Parser(std::string_view sql, const ParseOptions& options)
      : sql_(sql), options_(options), tokens_(LexSql(sql, options.lex())) {}

  DdlStatement Run() {
    DdlStatement statement = Statement();
    AcceptSymbol(";");
    if (!AtEnd()) Error("the end of the statement");
    return statement;
  }

 private:
  // ---- token helpers ----

  const Token& Peek(size_t ahead = 0) const {
    const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }
  const Token& Take() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Accept(std::string_view word) {
    if (!Peek().IsWord(word)) return false;
    Take();
    return true;
  }
  bool AcceptSymbol(std::string_view symbol) {
    if (!Peek().IsSymbol(symbol)) return false;
    Take();
    return true;
  }
  void Expect(std::string_view word) {
    if (!Accept(word)) Error(word);
  }
  void ExpectSymbol(std::string_view symbol) {
    if (!AcceptSymbol(symbol)) Error(fmt::format("\"{}\"", symbol));
  }
  bool AcceptSequence(std::initializer_list<std::string_view> words) {
    size_t i = 0;
    for (std::string_view w : words) {
      if (!Peek(i).IsWord(w)) return false;
      ++i;
    }
    pos_ += i;
    return true;
  }

  [[noreturn]] void Error(std::string_view expected) const {
    const Token& t = Peek();
    const std::string near = t.kind == TokenKind::kEnd
                                 ? std::string("the end")
                                 : fmt::format("\"{}\"", std::string_view(t.text).substr(0, 40));
    Fail(ErrorCode::kUnsupported, "cannot parse DDL at offset {} (near {}, expected {}): {}",
         t.offset, near, expected, Truncated(sql_));
  }

  bool IsName(const Token& t) const {
    return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedName;
  }

  std::string Name(std::string_view what = "a name") {
    if (!IsName(Peek())) Error(what);
    return Take().text;
  }

  // A name that may be a string too (charset and collation names, user names).
  std::string NameOrString(std::string_view what) {
    if (!IsName(Peek()) && Peek().kind != TokenKind::kString) Error(what);
    return Take().text;
  }

  TableRef Table() {
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

  uint32_t Number(std::string_view what) {
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

  // Skips a parenthesised group (the current token must be "(") and returns its text.
  std::string Balanced() {
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

  // Skips tokens up to (not including) a "," at nesting depth 0 or the end.
  void SkipToComma() {
    while (!AtEnd() && !Peek().IsSymbol(",") && !Peek().IsSymbol(";")) {
      if (Peek().IsSymbol("(")) {
        Balanced();
      } else {
        Take();
      }
    }
  }

  void SkipToEnd() {
    while (!AtEnd()) {
      if (Peek().IsSymbol(";") && Peek(1).kind == TokenKind::kEnd) return;
      Take();
    }
  }

  void AcceptIfExists(bool& flag) {
    if (AcceptSequence({"IF", "EXISTS"})) flag = true;
  }
  void AcceptIfNotExists(bool& flag) {
    if (AcceptSequence({"IF", "NOT", "EXISTS"})) flag = true;
  }
  void AcceptWait() {
    if (Accept("WAIT")) {
      Number("a number of seconds");
    } else {
      Accept("NOWAIT");
    }
  }

  // ---- statements ----

  DdlStatement Statement() {
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

  // WITH [RECURSIVE] cte [(columns)] AS (query) [, ...] followed by a SELECT, or by an UPDATE or
  // DELETE (MySQL 8), which is statement-based DML like any other. The CTE list is skipped by
  // nesting only: its names cannot be reserved words, so the first word at depth 0 that starts a
  // statement ends it.
  DdlStatement AfterCommonTableExpressions() {
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

  static bool IsNoTableObject(const Token& t) {
    for (std::string_view object : kNoTableObjects) {
      if (t.IsWord(object)) return true;
    }
    return false;
  }

  // DEFINER = user, where user is name[@host] or CURRENT_USER[()].
  void SkipDefiner() {
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

  DdlStatement Create() {
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

  static std::string ToUpper(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
  }

  DdlStatement CreateTableRest(bool or_replace, bool temporary) {
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

  void SkipPartitioning() {
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

  DdlStatement CreateIndexRest(IndexKind kind) {
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

  void AlgorithmAndLock() {
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

  DdlStatement Alter() {
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

  static bool IsDatabaseOptionStart(const Token& t) {
    return IsOneOf(t, {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "COMMENT", "ENCRYPTION",
                       "READ", "UPGRADE"});
  }

  DdlStatement AlterTableRest() {
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

  AlterSpec Partition(std::string verb, bool changes_rows) {
    AlterSpec spec;
    spec.kind = AlterSpec::Kind::kPartition;
    spec.verb = std::move(verb);
    spec.changes_rows = changes_rows;
    SkipToComma();
    return spec;
  }

  void ColumnPlacement(AlterSpec& spec) {
    if (Accept("FIRST")) {
      spec.place = ColumnPlace::kFirst;
    } else if (Accept("AFTER")) {
      spec.place = ColumnPlace::kAfter;
      spec.after_column = Name("a column name");
    }
  }

  void AlterSpecification(std::vector<AlterSpec>& specs) {
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

  AlterSpec OtherAlterSpec() {
    using Kind = AlterSpec::Kind;
    AlterSpec spec;
    if (Accept("MODIFY")) {
      Accept("COLUMN");
      spec.kind = Kind::kModifyColumn;
      spec.verb = "MODIFY COLUMN";
      AcceptIfExists(spec.if_exists);
      spec.definition = Column(/*in_alter=*/true);
      spec.column = spec.definition.name;
      ColumnPlacement(spec);
      return spec;
    }
    if (Accept("CHANGE")) {
      Accept("COLUMN");
      spec.kind = Kind::kChangeColumn;
      spec.verb = "CHANGE COLUMN";
      AcceptIfExists(spec.if_exists);
      spec.column = Name("a column name");
      spec.definition = Column(/*in_alter=*/true);
      ColumnPlacement(spec);
      return spec;
    }
    if (Accept("RENAME")) {
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
    if (Accept("ALTER")) {
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
    if (Accept("CONVERT")) {
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
                         "OPTIMIZE", "REBUILD", "REPAIR", "REMOVE", "UPGRADE"})) {
      const std::string verb = ToUpper(Take().text);
      const bool changes_rows = verb == "TRUNCATE" || verb == "EXCHANGE";
      if (verb == "REMOVE" || verb == "UPGRADE") {
        Expect("PARTITIONING");
        return Partition(verb + " PARTITIONING", false);
      }
      if (!Peek().IsWord("PARTITION")) Error("PARTITION");
      return Partition(verb + " PARTITION", changes_rows);
    }
    if (IsTableOptionStart()) {
      spec.kind = Kind::kTableOptions;
      spec.verb = "TABLE OPTIONS";
      TableOption(spec.options);
      return spec;
    }
    Error("an ALTER TABLE specification");
  }

  AlterSpec AddSpec() {
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

  AlterSpec DropSpec() {
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

  // ---- DROP / RENAME ----

  DdlStatement Drop() {
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

  DdlStatement Rename() {
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

  // ---- definitions ----

  bool IsIndexStart() const {
    const Token& t = Peek();
    if (IsOneOf(t, {"CONSTRAINT", "PRIMARY", "UNIQUE", "INDEX", "KEY", "FULLTEXT", "FOREIGN"})) {
      return true;
    }
    if (t.IsWord("SPATIAL")) return true;  // reserved word: never a bare column name
    return t.IsWord("CHECK") && Peek(1).IsSymbol("(");
  }

  void CreateDefinition(std::vector<ColumnSpec>& columns, std::vector<IndexSpec>& indexes) {
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

  std::vector<std::string> KeyParts() {
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

  void IndexOptions() {
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

  void References() {
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

  // ---- columns ----

  ColumnSpec Column(bool in_alter) {
    ColumnSpec c;
    c.name = Name("a column name");
    c.type = Type();
    ColumnAttributes(c, in_alter);
    return c;
  }

  TypeSpec Type() {
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

  static std::string KnownTypeName(const std::string& name) {
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

  // A DEFAULT or ON UPDATE value: a literal (optionally signed or with a charset introducer),
  // NULL/TRUE/FALSE, a function call such as CURRENT_TIMESTAMP(6), or a parenthesised expression.
  std::string DefaultValue() {
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

  void ColumnAttributes(ColumnSpec& c, bool in_alter) {
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

  void GeneratedExpression(ColumnSpec& c) {
    if (!Peek().IsSymbol("(")) Error("\"(\"");
    std::string text = Balanced();
    c.generated_expression = text.substr(1, text.size() - 2);
    if (c.generated == GeneratedKind::kNone) c.generated = GeneratedKind::kVirtual;
  }

  // ---- table options ----

  bool IsTableOptionStart() const {
    const Token& t = Peek();
    if (IsOneOf(t, {"CHARACTER", "CHARSET", "COLLATE", "UNION", "DATA", "INDEX", "TABLESPACE",
                    "STORAGE"})) {
      return true;
    }
    if (t.IsWord("DEFAULT")) {
      return IsOneOf(Peek(1), {"CHARACTER", "CHARSET", "COLLATE", "ENCRYPTION"});
    }
    if (t.IsWord("START") && Peek(1).IsWord("TRANSACTION")) return true;
    for (std::string_view name : kTableOptionNames) {
      if (t.IsWord(name)) return true;
    }
    // Engine-defined attributes (MariaDB): any name followed by "=".
    return IsName(t) && Peek(1).IsSymbol("=");
  }

  TableOptions TableOptionList(bool in_alter) {
    TableOptions options;
    while (IsTableOptionStart()) {
      TableOption(options);
      if (!in_alter) AcceptSymbol(",");
    }
    return options;
  }

  void OptionValue() {
    AcceptSymbol("=");
    const Token& t = Peek();
    if (t.IsSymbol("(")) {
      Balanced();
    } else if (t.kind == TokenKind::kEnd || t.kind == TokenKind::kSymbol) {
      Error("an option value");
    } else {
      Take();
    }
  }

  void TableOption(TableOptions& options) {
    Accept("DEFAULT");
    if (AcceptSequence({"CHARACTER", "SET"}) || Accept("CHARSET")) {
      AcceptSymbol("=");
      options.charset = ToLowerAscii(NameOrString("a character set"));
    } else if (Peek().IsWord("COLLATE")) {
      Take();
      AcceptSymbol("=");
      options.collation = ToLowerAscii(NameOrString("a collation"));
    } else if (Accept("DATA") || Accept("INDEX")) {
      Expect("DIRECTORY");
      OptionValue();
    } else if (Accept("TABLESPACE")) {
      AcceptSymbol("=");
      Name("a tablespace name");
      if (Accept("STORAGE")) Name("DISK or MEMORY");
    } else if (Accept("STORAGE")) {
      Name("DISK or MEMORY");
    } else if (AcceptSequence({"START", "TRANSACTION"})) {
    } else if (Accept("READ")) {
      Expect("ONLY");
      OptionValue();
    } else {
      Name("a table option");
      OptionValue();
    }
  }

  std::string_view sql_;
  ParseOptions options_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

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
    return Parser(sql, options).Run();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUnsupported) throw;
    Fail(ErrorCode::kUnsupported, "cannot parse DDL: {}: {}", e.what(), Truncated(sql));
  }
}

}  // namespace rowbridge::schema
