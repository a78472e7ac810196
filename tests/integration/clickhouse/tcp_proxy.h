// A loopback TCP proxy for tests that need a connection to die at a chosen moment without
// touching the shared server: clients connect to port(), bytes are pumped to and from the
// upstream address, and CutAll() resets every open pair at once (as a network failure or a
// server crash would) while the proxy keeps accepting new connections.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rowbridge::testing {

class TcpProxy {
 public:
  TcpProxy(std::string upstream_host, uint16_t upstream_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  uint16_t port() const { return port_; }
  // Resets every open connection (both sides see ECONNRESET / EOF).
  void CutAll();
  // Bytes forwarded client -> upstream so far, over all connections.
  uint64_t bytes_up() const { return bytes_up_; }

 private:
  void AcceptLoop();
  void Pump(int from, int to, bool upstream);

  std::string upstream_host_;
  uint16_t upstream_port_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> bytes_up_{0};
  std::mutex mu_;
  std::vector<int> open_fds_;
  std::vector<std::thread> threads_;
  std::thread accept_thread_;
};

}  // namespace rowbridge::testing
