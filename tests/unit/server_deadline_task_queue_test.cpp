#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <future>

#include "server/deadline_task_queue.h"

namespace rowbridge::server {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A listening socket on a free loopback port, standing in for httplib's.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t size = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &size);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd_); }
  uint16_t port() const { return port_; }

  // A client connected to the listener, and the server's end of it.
  std::pair<int, int> Connection() {
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return {client, ::accept(fd_, nullptr, nullptr)};
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// Whether the peer ends the connection within `wait` (anything sent first is dropped).
bool EndsWithin(int fd, milliseconds wait) {
  const auto until = Clock::now() + wait;
  while (Clock::now() < until) {
    pollfd readable{fd, POLLIN, 0};
    if (::poll(&readable, 1, 10) <= 0) continue;
    char buffer[64];
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return true;
  }
  return false;
}

// A worker's job as httplib's: reads until the connection ends, then closes it.
std::function<void()> ReadUntilTheEnd(int fd, std::promise<Clock::duration>& ended) {
  return [fd, &ended, start = Clock::now()] {
    char buffer[64];
    while (::recv(fd, buffer, sizeof buffer, 0) > 0) {
    }
    ::close(fd);
    ended.set_value(Clock::now() - start);
  };
}

TEST(ServerDeadlineTaskQueue, ShutsDownAConnectionAtItsDeadline) {
  Listener listener;
  DeadlineTaskQueue queue(2, listener.port(), milliseconds(300));
  auto [client, server] = listener.Connection();
  std::promise<Clock::duration> ended;
  queue.enqueue(ReadUntilTheEnd(server, ended));
  const Clock::duration lasted = ended.get_future().get();
  EXPECT_GE(lasted, milliseconds(250));
  EXPECT_LT(lasted, milliseconds(3000));
  EXPECT_TRUE(EndsWithin(client, milliseconds(1000)));
  queue.shutdown();
  ::close(client);
}

// The queue's own descriptor of the socket must not keep the connection open once the job has
// closed it.
TEST(ServerDeadlineTaskQueue, AConnectionEndsWhenItsJobClosesIt) {
  Listener listener;
  DeadlineTaskQueue queue(2, listener.port(), std::chrono::seconds(30));
  auto [client, server] = listener.Connection();
  queue.enqueue([fd = server] { ::close(fd); });
  EXPECT_TRUE(EndsWithin(client, milliseconds(2000)));
  queue.shutdown();
  ::close(client);
}

// A connection the queue did not see accepted (it failed to hold it) is caught by the next
// accept and shut down at its deadline too.
TEST(ServerDeadlineTaskQueue, AConnectionThatEscapedIsCaughtByTheNextAccept) {
  Listener listener;
  DeadlineTaskQueue queue(2, listener.port(), milliseconds(300));
  auto [escaped_client, escaped] = listener.Connection();
  auto [client, server] = listener.Connection();
  std::promise<Clock::duration> ended;
  queue.enqueue(ReadUntilTheEnd(server, ended));
  EXPECT_TRUE(EndsWithin(escaped_client, milliseconds(3000)));
  EXPECT_LT(ended.get_future().get(), milliseconds(3000));
  EXPECT_TRUE(EndsWithin(client, milliseconds(1000)));
  queue.shutdown();
  ::close(escaped);
  ::close(escaped_client);
  ::close(client);
}

// Stopping does not wait for slow clients: shutdown() cuts what is still open.
TEST(ServerDeadlineTaskQueue, ShutdownCutsTheConnectionsStillOpen) {
  Listener listener;
  DeadlineTaskQueue queue(1, listener.port(), std::chrono::seconds(30));
  auto [first_client, first] = listener.Connection();
  auto [second_client, second] = listener.Connection();
  std::promise<Clock::duration> first_ended, second_ended;
  queue.enqueue(ReadUntilTheEnd(first, first_ended));
  queue.enqueue(ReadUntilTheEnd(second, second_ended));  // queued: one worker
  const auto asked = Clock::now();
  queue.shutdown();
  EXPECT_LT(Clock::now() - asked, milliseconds(3000));
  EXPECT_TRUE(EndsWithin(first_client, milliseconds(1000)));
  EXPECT_TRUE(EndsWithin(second_client, milliseconds(1000)));
  ::close(first_client);
  ::close(second_client);
}

}  // namespace
}  // namespace rowbridge::server
