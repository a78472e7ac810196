// Splits the text of a MySQL/MariaDB statement (as a QUERY event carries it) into tokens.
//
// Contract:
//   - Comments (`# ...`, `-- ...` with the space or control character MySQL requires, `/* ... */`)
//     are dropped. Versioned comments `/*!50100 ... */`, `/*! ... */` and MariaDB's
//     `/*M!100100 ... */` are executed by the server that wrote the binlog, so their content is
//     lexed as if the comment markers were absent (whatever the version number says: the source
//     did run it, or the statement would not be in its binlog).
//   - Identifiers: bare words (letters, digits, `_`, `$`, bytes >= 0x80) become kWord;
//     `backquoted` names (and "double quoted" ones under ANSI_QUOTES) become kQuotedName with the
//     doubled quote undone. A word is never lower-cased here; keyword tests are case-insensitive.
//   - Strings: '...' and "..." (without ANSI_QUOTES) become kString with escapes resolved
//     (backslash escapes unless NO_BACKSLASH_ESCAPES, doubled quotes always). Adjacent strings are
//     separate tokens. Hex/bit literals (X'..', 0x.., B'..', 0b..) become kNumber with their text.
//   - Numbers: integers, decimals and exponents become kNumber (text kept as written).
//   - Everything else is a kSymbol of one character, except the two-character operators
//     <= >= <> != := || && << >> -> and ->> (three) and @ variables (kVariable, text with the @s).
//   - Every token records its byte offset in the statement, for error messages.
//   - Unterminated strings, quoted names or comments throw Error(kInvalidArgument) naming the
//     offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::schema {

enum class TokenKind : uint8_t { kWord, kQuotedName, kString, kNumber, kVariable, kSymbol, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // decoded value (string contents, unquoted name) or the text as written
  size_t offset = 0;
  size_t end = 0;  // offset just past the token in the statement

  bool IsWord(std::string_view keyword) const;   // kWord equal to keyword, case-insensitive
  bool IsSymbol(std::string_view symbol) const;  // kSymbol with exactly this text
};

struct LexOptions {
  bool ansi_quotes = false;           // sql_mode ANSI_QUOTES: "x" is a name, not a string
  bool no_backslash_escapes = false;  // sql_mode NO_BACKSLASH_ESCAPES
};

// The tokens of `sql`, ending with one kEnd token (offset = sql.size()).
std::vector<Token> LexSql(std::string_view sql, const LexOptions& options = {});

// Case-insensitive ASCII comparison, shared by the schema module.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToLowerAscii(std::string_view s);

}  // namespace rowbridge::schema
