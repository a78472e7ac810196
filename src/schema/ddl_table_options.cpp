// Table options, of CREATE TABLE, ALTER TABLE and CREATE/ALTER DATABASE (ddl_parser_impl.h): the
// charset and collation are kept, every other known option skipped with its value.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "common/error.h"
#include "schema/ddl_parser_impl.h"

namespace rowbridge::schema {

namespace {

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

}  // namespace

bool DdlParser::IsTableOptionStart() const {
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

TableOptions DdlParser::TableOptionList(bool in_alter) {
  TableOptions options;
  while (IsTableOptionStart()) {
    TableOption(options);
    if (!in_alter) AcceptSymbol(",");
  }
  return options;
}

void DdlParser::OptionValue() {
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

void DdlParser::TableOption(TableOptions& options) {
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

}  // namespace rowbridge::schema
