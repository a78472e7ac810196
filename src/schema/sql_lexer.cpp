#include "schema/sql_lexer.h"

#include <algorithm>

#include "common/error.h"

namespace rowbridge::schema {

namespace {

bool IsNameChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c >= 0x80;
}

bool IsDigit(unsigned char c) {
  return c >= '0' && c <= '9';
}

bool IsHexDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
 public:
  Lexer(std::string_view sql, const LexOptions& options) : sql_(sql), options_(options) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    for (;;) {
      SkipSpaceAndComments();
      if (pos_ >= sql_.size()) break;
      tokens.push_back(Next(tokens.empty() ? nullptr : &tokens.back()));
    }
    if (in_versioned_comment_) {
      Fail(ErrorCode::kInvalidArgument, "unterminated versioned comment opened at offset {}",
           versioned_start_);
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.offset = sql_.size();
    end.end = sql_.size();
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  unsigned char At(size_t i) const { return i < sql_.size() ? sql_[i] : 0; }

  void SkipSpaceAndComments() {
    while (pos_ < sql_.size()) {
      const unsigned char c = sql_[pos_];
      if (IsSpace(c)) {
        ++pos_;
      } else if (c == '#') {
        SkipLine();
      } else if (c == '-' && At(pos_ + 1) == '-' &&
                 (pos_ + 2 >= sql_.size() || IsSpace(At(pos_ + 2)) || At(pos_ + 2) < 0x20)) {
        SkipLine();
      } else if (c == '/' && At(pos_ + 1) == '*') {
        OpenComment();
      } else if (c == '*' && At(pos_ + 1) == '/' && in_versioned_comment_) {
        in_versioned_comment_ = false;
        pos_ += 2;
      } else {
        return;
      }
    }
  }

  void SkipLine() {
    while (pos_ < sql_.size() && sql_[pos_] != '\n') ++pos_;
  }

  void OpenComment() {
    const size_t start = pos_;
    size_t p = pos_ + 2;
    bool versioned = false;
    if (At(p) == '!') {
      versioned = true;
      ++p;
    } else if ((At(p) == 'M' || At(p) == 'm') && At(p + 1) == '!') {
      versioned = true;
      p += 2;
    }
    if (versioned && !in_versioned_comment_) {
      while (IsDigit(At(p))) ++p;
      in_versioned_comment_ = true;
      versioned_start_ = start;
      pos_ = p;
      return;
    }
    const size_t close = sql_.find("*/", pos_ + 2);
    if (close == std::string_view::npos) {
      Fail(ErrorCode::kInvalidArgument, "unterminated comment opened at offset {}", start);
    }
    pos_ = close + 2;
  }

  Token Make(TokenKind kind, size_t start, std::string text) {
    Token t;
    t.kind = kind;
    t.offset = start;
    t.end = pos_;
    t.text = std::move(text);
    return t;
  }

  Token Next(const Token* previous) {
    const size_t start = pos_;
    const unsigned char c = sql_[pos_];
    if (c == '`') return Quoted('`', TokenKind::kQuotedName);
    if (c == '"') {
      return Quoted('"', options_.ansi_quotes ? TokenKind::kQuotedName : TokenKind::kString);
    }
    if (c == '\'') return Quoted('\'', TokenKind::kString);
    // X'0F', B'01', N'text' (national string: a plain string for our purposes).
    if ((c == 'x' || c == 'X' || c == 'b' || c == 'B') && At(pos_ + 1) == '\'') {
      const size_t close = sql_.find('\'', pos_ + 2);
      if (close == std::string_view::npos) {
        Fail(ErrorCode::kInvalidArgument, "unterminated literal at offset {}", start);
      }
      pos_ = close + 1;
      return Make(TokenKind::kNumber, start, std::string(sql_.substr(start, pos_ - start)));
    }
    if ((c == 'n' || c == 'N') && At(pos_ + 1) == '\'') {
      ++pos_;
      Token t = Quoted('\'', TokenKind::kString);
      t.offset = start;
      return t;
    }
    if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)) &&
                       (previous == nullptr || (previous->kind != TokenKind::kWord &&
                                                previous->kind != TokenKind::kQuotedName)))) {
      return NumberOrWord(start);
    }
    if (IsNameChar(c)) {
      while (pos_ < sql_.size() && IsNameChar(sql_[pos_])) ++pos_;
      return Make(TokenKind::kWord, start, std::string(sql_.substr(start, pos_ - start)));
    }
    if (c == '@') {
      ++pos_;
      if (At(pos_) == '@') ++pos_;
      if (At(pos_) == '`' || At(pos_) == '\'' || At(pos_) == '"') {
        const char quote = static_cast<char>(At(pos_));
        (void)Quoted(quote, TokenKind::kQuotedName);
        return Make(TokenKind::kVariable, start, std::string(sql_.substr(start, pos_ - start)));
      }
      while (pos_ < sql_.size() && (IsNameChar(sql_[pos_]) || sql_[pos_] == '.')) ++pos_;
      return Make(TokenKind::kVariable, start, std::string(sql_.substr(start, pos_ - start)));
    }
    static constexpr std::string_view kTwo[] = {
        "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->"};
    if (c == '-' && At(pos_ + 1) == '>' && At(pos_ + 2) == '>') {
      pos_ += 3;
      return Make(TokenKind::kSymbol, start, "->>");
    }
    if (c == '<' && At(pos_ + 1) == '=' && At(pos_ + 2) == '>') {
      pos_ += 3;
      return Make(TokenKind::kSymbol, start, "<=>");
    }
    const std::string_view two = sql_.substr(pos_, 2);
    if (std::find(std::begin(kTwo), std::end(kTwo), two) != std::end(kTwo)) {
      pos_ += 2;
      return Make(TokenKind::kSymbol, start, std::string(two));
    }
    ++pos_;
    return Make(TokenKind::kSymbol, start, std::string(1, static_cast<char>(c)));
  }

  // A number, or a name that merely starts with digits (MySQL allows `1st_table` bare).
  Token NumberOrWord(size_t start) {
    if (sql_[pos_] == '0' && (At(pos_ + 1) == 'x' || At(pos_ + 1) == 'X') &&
        IsHexDigit(At(pos_ + 2))) {
      pos_ += 2;
      while (IsHexDigit(At(pos_))) ++pos_;
      if (!IsNameChar(At(pos_))) {
        return Make(TokenKind::kNumber, start, std::string(sql_.substr(start, pos_ - start)));
      }
    } else if (sql_[pos_] == '0' && (At(pos_ + 1) == 'b' || At(pos_ + 1) == 'B') &&
               (At(pos_ + 2) == '0' || At(pos_ + 2) == '1')) {
      pos_ += 2;
      while (At(pos_) == '0' || At(pos_) == '1') ++pos_;
      if (!IsNameChar(At(pos_))) {
        return Make(TokenKind::kNumber, start, std::string(sql_.substr(start, pos_ - start)));
      }
    } else {
      while (IsDigit(At(pos_))) ++pos_;
      if (At(pos_) == '.' && IsDigit(At(pos_ + 1))) {
        ++pos_;
        while (IsDigit(At(pos_))) ++pos_;
      }
      if ((At(pos_) == 'e' || At(pos_) == 'E') &&
          (IsDigit(At(pos_ + 1)) ||
           ((At(pos_ + 1) == '+' || At(pos_ + 1) == '-') && IsDigit(At(pos_ + 2))))) {
        pos_ += 2;
        while (IsDigit(At(pos_))) ++pos_;
      }
      if (!IsNameChar(At(pos_))) {
        return Make(TokenKind::kNumber, start, std::string(sql_.substr(start, pos_ - start)));
      }
    }
    pos_ = start;
    while (pos_ < sql_.size() && IsNameChar(sql_[pos_])) ++pos_;
    return Make(TokenKind::kWord, start, std::string(sql_.substr(start, pos_ - start)));
  }

  Token Quoted(char quote, TokenKind kind) {
    const size_t start = pos_;
    ++pos_;
    std::string text;
    const bool escapes =
        quote != '`' && kind == TokenKind::kString && !options_.no_backslash_escapes;
    for (;;) {
      if (pos_ >= sql_.size()) {
        Fail(ErrorCode::kInvalidArgument, "unterminated {} starting at offset {}",
             kind == TokenKind::kString ? "string" : "quoted name", start);
      }
      const char c = sql_[pos_];
      if (c == quote) {
        if (At(pos_ + 1) == static_cast<unsigned char>(quote)) {
          text.push_back(quote);
          pos_ += 2;
          continue;
        }
        ++pos_;
        break;
      }
      if (c == '\\' && escapes && pos_ + 1 < sql_.size()) {
        const char e = sql_[pos_ + 1];
        switch (e) {
          case '0':
            text.push_back('\0');
            break;
          case 'b':
            text.push_back('\b');
            break;
          case 'n':
            text.push_back('\n');
            break;
          case 'r':
            text.push_back('\r');
            break;
          case 't':
            text.push_back('\t');
            break;
          case 'Z':
            text.push_back('\x1a');
            break;
          case '%':
          case '_':
            // LIKE wildcards keep their backslash (MySQL documents this).
            text.push_back('\\');
            text.push_back(e);
            break;
          default:
            text.push_back(e);
            break;
        }
        pos_ += 2;
        continue;
      }
      text.push_back(c);
      ++pos_;
    }
    return Make(kind, start, std::move(text));
  }

  std::string_view sql_;
  LexOptions options_;
  size_t pos_ = 0;
  bool in_versioned_comment_ = false;
  size_t versioned_start_ = 0;
};

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool Token::IsWord(std::string_view keyword) const {
  return kind == TokenKind::kWord && EqualsIgnoreCase(text, keyword);
}

bool Token::IsSymbol(std::string_view symbol) const {
  return kind == TokenKind::kSymbol && text == symbol;
}

std::vector<Token> LexSql(std::string_view sql, const LexOptions& options) {
  return Lexer(sql, options).Run();
}

}  // namespace rowbridge::schema
