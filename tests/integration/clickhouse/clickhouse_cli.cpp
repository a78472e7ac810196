#include "integration/clickhouse/clickhouse_cli.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace rowbridge::testing {
namespace {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

ClickHouseCliAddress ClickHouseCliFromEnv() {
  const char* host = std::getenv("ROWBRIDGE_TEST_CH_HOST");
  const char* port = std::getenv("ROWBRIDGE_TEST_CH_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') return {};
  return {host, port};
}

std::string RunClickHouseClient(const ClickHouseCliAddress& address, const std::string& query,
                                const std::string& input,
                                const std::vector<std::string>& extra_args) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("rowbridge-chcli-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  {
    std::ofstream in(dir / "in", std::ios::binary);
    in.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  std::string command = "clickhouse-client --host " + ShellQuote(address.host) + " --port " +
                        ShellQuote(address.port) + " --query " + ShellQuote(query);
  for (const auto& arg : extra_args) command += " " + ShellQuote(arg);
  command += " < " + ShellQuote((dir / "in").string()) + " > " +
             ShellQuote((dir / "out").string()) + " 2> " + ShellQuote((dir / "err").string());
  int status = std::system(command.c_str());
  std::string out = ReadWholeFile(dir / "out");
  std::string err = ReadWholeFile(dir / "err");
  std::filesystem::remove_all(dir);
  if (status != 0)
    Fail(ErrorCode::kServer, "clickhouse-client failed (status {}) for query {}: {}", status, query,
         err);
  return out;
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
