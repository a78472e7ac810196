#include "support/scoped_clickhouse.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "support/subprocess.h"

namespace rowbridge::testing {

namespace {

std::string Script(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"bash", TestServersScript().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult result = RunCommand(argv, {}, std::chrono::seconds(180));
  if (result.exit_code != 0) {
    Fail(ErrorCode::kServer, "`{}` failed with status {}:\n{}{}", CommandLine(argv),
         result.exit_code, result.out, result.err);
  }
  return result.out;
}

std::string Exported(const std::string& env, const std::string& name) {
  std::istringstream lines(env);
  std::string line;
  const std::string prefix = "export " + name + "=";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  }
  return {};
}

}  // namespace

ScopedClickHouse::ScopedClickHouse() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rowbridge-clickhouse.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    Fail(ErrorCode::kIo, "cannot make a temporary directory from {}: {}", pattern,
         std::strerror(errno));
  }
  dir_ = pattern;
  Start();
}

ScopedClickHouse::~ScopedClickHouse() {
  std::vector<std::string> args = {"stop"};
  const char* keep = std::getenv("ROWBRIDGE_KEEP_TEST_SERVERS");
  if (keep == nullptr || std::string(keep) != "1") args.push_back("--remove");
  args.push_back(dir_.string());
  try {
    Script(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "ScopedClickHouse: stopping the server in %s failed: %s\n", dir_.c_str(),
                 e.what());
  }
}

void ScopedClickHouse::Stop() {
  Script({"stop", "--only=clickhouse", dir_.string()});
}

void ScopedClickHouse::Start() {
  Script({"start", "--no-mariadb", "--owner-pid=" + std::to_string(::getpid()), dir_.string()});
  ReadAddress();
}

void ScopedClickHouse::ReadAddress() {
  const std::string env = Script({"env", dir_.string()});
  ClickHouseAddress a;
  a.host = Exported(env, "ROWBRIDGE_TEST_CH_HOST");
  a.port = static_cast<uint16_t>(std::atoi(Exported(env, "ROWBRIDGE_TEST_CH_PORT").c_str()));
  a.http_port =
      static_cast<uint16_t>(std::atoi(Exported(env, "ROWBRIDGE_TEST_CH_HTTP_PORT").c_str()));
  a.user = "default";
  a.servers_dir = dir_.string();
  if (a.host.empty() || a.port == 0) {
    Fail(ErrorCode::kInternal, "testservers.sh env {} lacks the ClickHouse address:\n{}",
         dir_.string(), env);
  }
  address_ = a;
}

}  // namespace rowbridge::testing
