#include "clickhouse/sql_quote.h"

#include <fmt/format.h>

namespace rowbridge::clickhouse {

namespace {

std::string Quote(std::string_view text, char quote) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back(quote);
  for (char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (byte == 0) {
      out.append("\\0");
    } else if (byte < 0x20 || byte == 0x7f) {
      out.append(fmt::format("\\x{:02X}", byte));
    } else {
      out.push_back(ch);
    }
  }
  out.push_back(quote);
  return out;
}

}  // namespace

std::string QuoteIdentifier(std::string_view name) {
  return Quote(name, '`');
}

std::string QuoteQualified(std::string_view database, std::string_view table) {
  return QuoteIdentifier(database) + "." + QuoteIdentifier(table);
}

std::string QuoteString(std::string_view text) {
  return Quote(text, '\'');
}

}  // namespace rowbridge::clickhouse
