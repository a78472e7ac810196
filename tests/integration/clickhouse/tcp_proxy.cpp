#include "tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace rowbridge::testing {

TcpProxy::TcpProxy(std::string upstream_host, uint16_t upstream_port)
    : upstream_host_(std::move(upstream_host)), upstream_port_(upstream_port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) Fail(ErrorCode::kIo, "proxy: socket: {}", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    Fail(ErrorCode::kIo, "proxy: bind/listen: {}", std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  accept_thread_.join();
  ::close(listen_fd_);
  CutAll();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  std::lock_guard lock(mu_);
  for (int fd : open_fds_) ::close(fd);
}

void TcpProxy::AcceptLoop() {
  while (!stopping_) {
    int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (stopping_) return;
      continue;
    }
    int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(upstream_port_);
    ::inet_pton(AF_INET, upstream_host_.c_str(), &addr.sin_addr);
    if (::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(upstream);
      ::close(client);
      continue;
    }
    int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard lock(mu_);
    open_fds_.push_back(client);
    open_fds_.push_back(upstream);
    threads_.emplace_back([this, client, upstream] { Pump(client, upstream, true); });
    threads_.emplace_back([this, client, upstream] { Pump(upstream, client, false); });
  }
}

void TcpProxy::Pump(int from, int to, bool upstream) {
  char buf[65536];
  while (true) {
    ssize_t n = ::recv(from, buf, sizeof buf, 0);
    if (n <= 0) break;
    if (upstream) bytes_up_ += static_cast<uint64_t>(n);
    ssize_t off = 0;
    while (off < n) {
      ssize_t w = ::send(to, buf + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
      if (w <= 0) {
        off = -1;
        break;
      }
      off += w;
    }
    if (off < 0) break;
  }
  // Pass the end on: the other direction's recv returns too.
  ::shutdown(to, SHUT_RDWR);
  ::shutdown(from, SHUT_RDWR);
}

void TcpProxy::CutAll() {
  std::lock_guard lock(mu_);
  for (int fd : open_fds_) {
    // SO_LINGER 0 makes close/shutdown send RST, like a crashed peer.
    linger l{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::shutdown(fd, SHUT_RDWR);
  }
}

}  // namespace rowbridge::testing
