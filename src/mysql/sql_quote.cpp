#include "mysql/sql_quote.h"

namespace rowbridge::mysql {

std::string QuoteIdentifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out.push_back('`');
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

std::string QuoteQualified(std::string_view database, std::string_view table) {
  return QuoteIdentifier(database) + "." + QuoteIdentifier(table);
}

std::string QuoteString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    switch (c) {
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\0':
        out += "\\0";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\x1a':  // Ctrl-Z: end of file to some Windows tools
        out += "\\Z";
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string QuoteBinaryString(std::string_view bytes) {
  return "_binary" + QuoteString(bytes);
}

}  // namespace rowbridge::mysql
