// A ClickHouse server of the test's own, for what the shared one must not be put through: being
// stopped mid-INSERT and started again, and serving TLS on a secure native port. It lives in a
// fresh directory under $TMPDIR (or /tmp) with a throwaway CA and a server certificate for
// 127.0.0.1, listens on 127.0.0.1 only, and is stopped by its pid in the destructor; a watchdog
// shell stops it too if the test process dies first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace rowbridge::testing {

class PrivateClickHouse {
 public:
  PrivateClickHouse();  // creates the directory, certificates and config, and starts the server
  ~PrivateClickHouse();
  PrivateClickHouse(const PrivateClickHouse&) = delete;
  PrivateClickHouse& operator=(const PrivateClickHouse&) = delete;

  uint16_t port() const { return port_; }          // plain native protocol
  uint16_t tls_port() const { return tls_port_; }  // native protocol over TLS
  std::string ca_file() const { return (dir_ / "ca.pem").string(); }

  // SIGKILL and wait: the server vanishes mid-work, like a crash.
  void Kill();
  // Starts it again on the same directory and ports; returns once it accepts connections.
  void Start();

 private:
  void WaitUntilListening();

  std::filesystem::path dir_;
  uint16_t port_ = 0;
  uint16_t tls_port_ = 0;
  int pid_ = -1;
};

}  // namespace rowbridge::testing
