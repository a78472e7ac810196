#include "private_clickhouse.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include "common/error.h"
#include "support/subprocess.h"

namespace rowbridge::testing {
namespace {

bool PortIsFree(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

bool Accepts(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

uint16_t PickPort(std::mt19937& rng, uint16_t avoid) {
  for (int i = 0; i < 200; ++i) {
    auto port = static_cast<uint16_t>(30000 + rng() % 30000);
    if (port != avoid && PortIsFree(port)) return port;
  }
  Fail(ErrorCode::kIo, "no free loopback port for a private ClickHouse");
}

void Shell(const std::string& script) {
  CommandResult r = RunCommand({"bash", "-c", script}, {}, std::chrono::seconds(120));
  if (r.exit_code != 0) {
    Fail(ErrorCode::kIo, "private ClickHouse setup failed ({}): {}{}", script, r.out, r.err);
  }
}

}  // namespace

PrivateClickHouse::PrivateClickHouse() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rowbridge-private-ch-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) Fail(ErrorCode::kIo, "mkdtemp {}", pattern);
  dir_ = pattern;
  std::mt19937 rng(
      static_cast<unsigned>(::getpid()) ^
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  port_ = PickPort(rng, 0);
  tls_port_ = PickPort(rng, port_);
  const std::string d = dir_.string();
  Shell("cd '" + d +
        "' && openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=rowbridge test CA' "
        "-keyout ca-key.pem -out ca.pem && "
        "openssl req -newkey rsa:2048 -nodes -subj '/CN=127.0.0.1' -keyout server-key.pem "
        "-out server-req.pem && "
        "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n' "
        ">server.ext && "
        "openssl x509 -req -in server-req.pem -CA ca.pem -CAkey ca-key.pem -CAcreateserial "
        "-days 30 -extfile server.ext -out server-cert.pem && "
        "mkdir -p data tmp user_files log");
  std::ofstream(dir_ / "config.xml") << R"(<?xml version="1.0"?>
<yandex>
  <logger><level>information</level><log>)"
                                     << d << R"(/log/server.log</log>
    <errorlog>)" << d << R"(/log/server.err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>)" << port_ << R"(</tcp_port>
  <tcp_port_secure>)" << tls_port_ << R"(</tcp_port_secure>
  <openSSL>
    <server>
      <certificateFile>)" << d << R"(/server-cert.pem</certificateFile>
      <privateKeyFile>)" << d << R"(/server-key.pem</privateKeyFile>
      <verificationMode>none</verificationMode>
      <loadDefaultCAFile>false</loadDefaultCAFile>
      <cacheSessions>true</cacheSessions>
      <disableProtocols>sslv2,sslv3</disableProtocols>
      <preferServerCiphers>true</preferServerCiphers>
    </server>
  </openSSL>
  <path>)" << d << R"(/data/</path>
  <tmp_path>)" << d << R"(/tmp/</tmp_path>
  <user_files_path>)" << d << R"(/user_files/</user_files_path>
  <users_config>)" << d << R"(/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <mlock_executable>false</mlock_executable>
</yandex>
)";
  std::ofstream(dir_ / "users.xml") << R"(<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default></default></quotas>
</yandex>
)";
  Start();
}

PrivateClickHouse::~PrivateClickHouse() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 300 && ::kill(pid_, 0) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid_, SIGKILL);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void PrivateClickHouse::Start() {
  const std::string d = dir_.string();
  // The server is started from a shell that exits at once, so it is not our child; a watchdog
  // from the same shell kills it when this test process is gone.
  CommandResult r = RunCommand(
      {"bash", "-c",
       "cd '" + d + "' || exit 1; (TZ=UTC exec clickhouse-server --config-file='" + d +
           "/config.xml' </dev/null >>'" + d +
           "/log/stdout.log' 2>&1) & pid=$!; "
           "(while kill -0 " +
           std::to_string(::getpid()) +
           " 2>/dev/null && kill -0 $pid "
           "2>/dev/null; do sleep 1; done; kill -9 $pid 2>/dev/null) </dev/null >/dev/null "
           "2>&1 & echo $pid"},
      {}, std::chrono::seconds(30));
  if (r.exit_code != 0) Fail(ErrorCode::kIo, "starting clickhouse-server: {}", r.err);
  pid_ = std::stoi(r.out);
  WaitUntilListening();
}

void PrivateClickHouse::WaitUntilListening() {
  for (int i = 0; i < 600; ++i) {
    if (Accepts(port_) && Accepts(tls_port_)) return;
    if (::kill(pid_, 0) != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ifstream log(dir_ / "log" / "server.err.log");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  Fail(ErrorCode::kIo, "private clickhouse-server in {} did not start listening: {}", dir_.string(),
       text.substr(text.size() > 3000 ? text.size() - 3000 : 0));
}

void PrivateClickHouse::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  for (int i = 0; i < 300 && ::kill(pid_, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  pid_ = -1;
}

}  // namespace rowbridge::testing
