// OwnMariaDb: a throwaway MariaDB of one test's own, for what the shared test server must not be
// used for (FLUSH LOGS, SET GLOBAL, binary logging off). A local stand-in for ScopedMariaDb from
// tests/support/test_servers.h until that is merged here.
//
// Runs mariadbd from a fresh data directory under /tmp on a free 127.0.0.1 port with extra
// options; a watchdog shell stops it if the test process dies. The destructor stops it by pid and
// deletes the directory. root@localhost has an empty password.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "mysql/connection.h"

extern char** environ;

namespace rowbridge::testing {

class OwnMariaDb {
 public:
  explicit OwnMariaDb(const std::vector<std::string>& options) {
    char pattern[] = "/tmp/rb-mysqltest-XXXXXX";
    if (mkdtemp(pattern) == nullptr) Fail(ErrorCode::kIo, "mkdtemp failed");
    dir_ = pattern;
    std::string install = "mariadb-install-db --no-defaults --datadir=" + (dir_ / "data").string() +
                          " --auth-root-authentication-method=normal >" +
                          (dir_ / "install.log").string() + " 2>&1";
    if (std::system(install.c_str()) != 0) {
      Fail(ErrorCode::kIo, "mariadb-install-db failed; see {}", (dir_ / "install.log").string());
    }
    port_ = FreePort();
    std::string command = "exec mariadbd --no-defaults --datadir=" + (dir_ / "data").string() +
                          " --socket=" + (dir_ / "sock").string() +
                          " --port=" + std::to_string(port_) +
                          " --bind-address=127.0.0.1 --user=root --skip-name-resolve";
    for (const std::string& o : options) command += " " + o;
    command += " >" + (dir_ / "err.log").string() + " 2>&1";
    // The watchdog: start the server, stop it when this process goes away.
    std::string script = "(" + command + ") & m=$!; echo $m > " + (dir_ / "pid").string() +
                         "; while kill -0 " + std::to_string(getpid()) +
                         " 2>/dev/null && kill -0 $m 2>/dev/null; do sleep 1; done; kill $m "
                         "2>/dev/null; wait $m";
    const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
    if (posix_spawn(&watchdog_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) !=
        0) {
      Fail(ErrorCode::kIo, "cannot spawn mariadbd");
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      try {
        mysql::Connection::Connect(options_for_root());
        break;
      } catch (const Error& e) {
        if (std::chrono::steady_clock::now() > deadline) {
          Fail(ErrorCode::kTimeout, "own mariadbd on port {} did not start: {} (see {})", port_,
               e.what(), (dir_ / "err.log").string());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
  }

  ~OwnMariaDb() {
    pid_t server = 0;
    std::ifstream(dir_ / "pid") >> server;
    if (server > 0) kill(server, SIGTERM);
    int status = 0;
    for (int i = 0; i < 300 && waitpid(watchdog_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (waitpid(watchdog_, &status, WNOHANG) == 0) {
      if (server > 0) kill(server, SIGKILL);
      waitpid(watchdog_, &status, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  mysql::ConnectOptions options_for_root() const {
    mysql::ConnectOptions o;
    o.host = "127.0.0.1";
    o.port = port_;
    o.user = "root";
    o.tcp.connect_timeout = std::chrono::seconds(5);
    o.tcp.read_timeout = std::chrono::seconds(60);
    return o;
  }
  uint16_t port() const { return port_; }
  pid_t server_pid() const {
    pid_t server = 0;
    std::ifstream(dir_ / "pid") >> server;
    return server;
  }

 private:
  static uint16_t FreePort() {
    std::mt19937 rng(std::random_device{}());
    for (int i = 0; i < 200; ++i) {
      uint16_t port = static_cast<uint16_t>(20000 + rng() % 12000);
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      bool free = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      close(fd);
      if (free) return port;
    }
    Fail(ErrorCode::kIo, "no free port found");
  }

  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t watchdog_ = 0;
};

}  // namespace rowbridge::testing
