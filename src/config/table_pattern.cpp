#include "config/table_pattern.h"

#include "common/error.h"

namespace rowbridge::config {
namespace {

// MySQL names are at most 64 characters; this leaves room for wildcards and bounds the
// quadratic coverage checks.
constexpr size_t kMaxSymbols = 256;

bool IsLiteral(int16_t symbol) {
  return symbol >= 0;
}

bool NeedsQuoting(int16_t symbol) {
  char c = static_cast<char>(symbol);
  return c == '*' || c == '?' || c == '.' || c == '`' || c == '[' || c == ']' || c == '%' ||
         c == ' ' || c == '\t' || c == '\n' || c == '\r' || static_cast<unsigned char>(c) < 0x20;
}

// Bottom-up dynamic programming over (i, j) suffixes of two symbol strings; `step` decides cell
// (i, j) from the cells to its right and below. Iterative, so long patterns cannot overflow the
// stack.
template <typename Step>
bool SuffixTable(size_t rows, size_t cols, Step step) {
  std::vector<uint8_t> table((rows + 1) * (cols + 1), 0);
  auto at = [&](size_t i, size_t j) -> bool { return table[i * (cols + 1) + j] != 0; };
  for (size_t i = rows + 1; i-- > 0;) {
    for (size_t j = cols + 1; j-- > 0;) {
      table[i * (cols + 1) + j] = step(i, j, at) ? 1 : 0;
    }
  }
  return at(0, 0);
}

}  // namespace

NameGlob::NameGlob(std::vector<int16_t> symbols) : symbols_(std::move(symbols)) {
  for (int16_t s : symbols_) {
    if (!IsLiteral(s)) is_literal_ = false;
  }
  if (is_literal_) {
    literal_.reserve(symbols_.size());
    for (int16_t s : symbols_) literal_.push_back(static_cast<char>(s));
  }
}

bool NameGlob::Matches(std::string_view name) const {
  if (is_literal_) return name == literal_;
  // Greedy matching that backtracks only to the most recent `*`: linear for typical patterns.
  const size_t count = symbols_.size();
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < count && (symbols_[p] == kOne ||
                      symbols_[p] == static_cast<int16_t>(static_cast<unsigned char>(name[n])))) {
      ++p;
      ++n;
    } else if (p < count && symbols_[p] == kMany) {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < count && symbols_[p] == kMany) ++p;
  return p == count;
}

bool NameGlob::IsCoveredBy(const NameGlob& general) const {
  const std::vector<int16_t>& g = general.symbols_;
  const std::vector<int16_t>& s = symbols_;
  return SuffixTable(g.size(), s.size(), [&](size_t i, size_t j, auto at) {
    if (i == g.size()) return j == s.size();
    if (g[i] == kMany) return at(i + 1, j) || (j < s.size() && at(i, j + 1));
    if (j == s.size() || s[j] == kMany) return false;
    if (s[j] == kOne) return g[i] == kOne && at(i + 1, j + 1);
    return (g[i] == kOne || g[i] == s[j]) && at(i + 1, j + 1);
  });
}

bool NameGlob::Overlaps(const NameGlob& other) const {
  const std::vector<int16_t>& a = symbols_;
  const std::vector<int16_t>& b = other.symbols_;
  return SuffixTable(a.size(), b.size(), [&](size_t i, size_t j, auto at) {
    if (i == a.size() && j == b.size()) return true;
    if (i < a.size() && a[i] == kMany && (at(i + 1, j) || (j < b.size() && at(i, j + 1)))) {
      return true;
    }
    if (j < b.size() && b[j] == kMany && (at(i, j + 1) || (i < a.size() && at(i + 1, j)))) {
      return true;
    }
    if (i == a.size() || j == b.size() || a[i] == kMany || b[j] == kMany) return false;
    return (a[i] == kOne || b[j] == kOne || a[i] == b[j]) && at(i + 1, j + 1);
  });
}

std::string NameGlob::ToString() const {
  std::string out;
  size_t i = 0;
  while (i < symbols_.size()) {
    if (symbols_[i] == kMany) {
      out.push_back('*');
      ++i;
      continue;
    }
    if (symbols_[i] == kOne) {
      out.push_back('?');
      ++i;
      continue;
    }
    size_t end = i;
    bool quote = false;
    while (end < symbols_.size() && IsLiteral(symbols_[end])) {
      quote = quote || NeedsQuoting(symbols_[end]);
      ++end;
    }
    if (quote) out.push_back('`');
    for (; i < end; ++i) {
      char c = static_cast<char>(symbols_[i]);
      if (c == '`') out.push_back('`');
      out.push_back(c);
    }
    if (quote) out.push_back('`');
  }
  return out;
}

namespace {

// The symbol of `c`, a character of `text` outside backticks and not a dot: a wildcard or
// itself. Throws for the characters a pattern takes only quoted.
int16_t UnquotedSymbol(std::string_view text, char c) {
  if (c == '*') return NameGlob::kMany;
  if (c == '?') return NameGlob::kOne;
  if (c == '%') {
    Fail(ErrorCode::kInvalidArgument,
         "pattern \"{}\" contains %: the wildcards are * (any run) and ? (one character); quote "
         "a literal % with backticks",
         text);
  }
  if (c == '[' || c == ']') {
    Fail(ErrorCode::kInvalidArgument,
         "pattern \"{}\" contains {}: character classes are not supported (use ? or *); quote "
         "a literal {} with backticks",
         text, c, c);
  }
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
    Fail(ErrorCode::kInvalidArgument,
         "pattern \"{}\" contains unquoted whitespace; quote such names with backticks", text);
  }
  if (static_cast<unsigned char>(c) < 0x20) {
    Fail(ErrorCode::kInvalidArgument, "pattern \"{}\" contains a control character", text);
  }
  return static_cast<int16_t>(static_cast<unsigned char>(c));
}

}  // namespace

TablePattern TablePattern::Parse(std::string_view text) {
  std::vector<int16_t> parts[2];
  int part = 0;
  size_t i = 0;
  auto add = [&](int16_t symbol) {
    std::vector<int16_t>& symbols = parts[part];
    // "**" means the same as "*".
    if (symbol == NameGlob::kMany && !symbols.empty() && symbols.back() == NameGlob::kMany) return;
    if (symbols.size() == kMaxSymbols) {
      Fail(ErrorCode::kInvalidArgument,
           "pattern \"{}\" is too long ({} characters at most per part)", text, kMaxSymbols);
    }
    symbols.push_back(symbol);
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '`') {
      size_t start = i++;
      bool closed = false;
      while (i < text.size()) {
        if (text[i] == '`') {
          if (i + 1 < text.size() && text[i + 1] == '`') {
            add('`');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        add(static_cast<int16_t>(static_cast<unsigned char>(text[i])));
        ++i;
      }
      if (!closed) {
        Fail(ErrorCode::kInvalidArgument,
             "pattern \"{}\" has an unterminated backtick at character {}", text, start + 1);
      }
      continue;
    }
    if (c == '.') {
      if (part == 1) {
        Fail(ErrorCode::kInvalidArgument,
             "pattern \"{}\" has more than one dot; quote names that contain dots with backticks, "
             "e.g. `my.db`.orders",
             text);
      }
      part = 1;
      ++i;
      continue;
    }
    add(UnquotedSymbol(text, c));
    ++i;
  }
  if (part == 0) {
    Fail(ErrorCode::kInvalidArgument,
         "pattern \"{}\" must be db.table (e.g. shop.orders, shop.*, *.log_2024_*)", text);
  }
  if (parts[0].empty() || parts[1].empty()) {
    Fail(ErrorCode::kInvalidArgument, "pattern \"{}\" has an empty {} name (use * for any)", text,
         parts[0].empty() ? "database" : "table");
  }
  TablePattern pattern;
  pattern.db_ = NameGlob(std::move(parts[0]));
  pattern.table_ = NameGlob(std::move(parts[1]));
  return pattern;
}

}  // namespace rowbridge::config
