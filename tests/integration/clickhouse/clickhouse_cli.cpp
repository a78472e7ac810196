#include "integration/clickhouse/clickhouse_cli.h"

#include "common/error.h"
#include "support/subprocess.h"

namespace rowbridge::testing {

std::string RunClickHouseClient(const ClickHouseAddress& address, const std::string& query,
                                const std::string& input,
                                const std::vector<std::string>& extra_args) {
  std::vector<std::string> argv = {"clickhouse-client",
                                   "--host",
                                   address.host,
                                   "--port",
                                   std::to_string(address.port),
                                   "--user",
                                   address.user,
                                   "--query",
                                   query};
  if (!address.password.empty()) {
    argv.push_back("--password");
    argv.push_back(address.password);
  }
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  CommandResult result = RunCommand(argv, input);
  if (result.exit_code != 0) {
    Fail(ErrorCode::kServer, "clickhouse-client failed (status {}) for query {}: {}",
         result.exit_code, query, result.err);
  }
  return result.out;
}

std::vector<std::vector<std::string>> SplitTsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::vector<std::string> fields;
    size_t field_start = pos;
    for (size_t i = pos; i <= end; ++i) {
      if (i == end || text[i] == '\t') {
        fields.push_back(text.substr(field_start, i - field_start));
        field_start = i + 1;
      }
    }
    rows.push_back(std::move(fields));
    pos = end + 1;
  }
  return rows;
}

std::string EscapeTsv(const std::string& value) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\0':
        out += "\\0";
        break;
      case '\'':
        out += "\\'";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace rowbridge::testing
