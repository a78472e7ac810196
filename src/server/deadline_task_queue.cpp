#include "server/deadline_task_queue.h"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include "common/error.h"

namespace rowbridge::server {
namespace {

// The local port of a connected (not listening) stream socket; 0 for any other descriptor.
uint16_t ConnectedStreamPort(int fd) {
  int type = 0;
  socklen_t size = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) return 0;
  int listening = 0;
  size = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening) return 0;
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return 0;
  if (local.ss_family == AF_INET) {
    sockaddr_in v4;
    std::memcpy(&v4, &local, sizeof v4);
    return ntohs(v4.sin_port);
  }
  if (local.ss_family == AF_INET6) {
    sockaddr_in6 v6;
    std::memcpy(&v6, &local, sizeof v6);
    return ntohs(v6.sin6_port);
  }
  return 0;
}

struct Socket {
  int fd;
  ino_t inode;
};

// The process's descriptors that are sockets. Other threads open and close descriptors meanwhile,
// so an entry may be stale by the time it is used; the caller checks again what it relies on.
std::vector<Socket> Sockets() {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir("/proc/self/fd"), closedir);
  if (!dir) Fail(ErrorCode::kIo, "cannot list /proc/self/fd: {}", std::strerror(errno));
  const int own = dirfd(dir.get());
  std::vector<Socket> sockets;
  while (const dirent* entry = readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    int fd = -1;
    if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc()) continue;
    struct stat status {};
    if (fd != own && fstat(fd, &status) == 0 && S_ISSOCK(status.st_mode)) {
      sockets.push_back({fd, status.st_ino});
    }
  }
  return sockets;
}

}  // namespace

DeadlineTaskQueue::DeadlineTaskQueue(size_t workers, uint16_t port,
                                     std::chrono::milliseconds deadline)
    : port_(port), deadline_(deadline), pool_(workers), watchdog_([this] { Watch(); }) {}

DeadlineTaskQueue::~DeadlineTaskQueue() {
  shutdown();
}

void DeadlineTaskQueue::enqueue(std::function<void()> fn) {
  uint64_t tied = 0;
  try {
    tied = HoldNewConnections();
  } catch (...) {
    if (!warned_) {
      warned_ = true;
      spdlog::warn(
          "{} (this connection has no deadline unless the next accept catches it; said once)",
          CurrentExceptionAsError("admin HTTP server, holding a new connection").what());
    }
  }
  wake_.notify_one();
  pool_.enqueue([this, tied, fn = std::move(fn)] {
    fn();
    Release(tied);
  });
}

uint64_t DeadlineTaskQueue::HoldNewConnections() {
  const std::vector<Socket> sockets = Sockets();
  std::lock_guard lock(mutex_);
  uint64_t first = 0;
  size_t held = 0;
  for (const Socket& socket : sockets) {
    if (held_.contains(socket.inode) || ConnectedStreamPort(socket.fd) != port_) continue;
    // The socket just accepted is httplib's accepting thread's alone until enqueue returns, so
    // its descriptor cannot change under us; one that escaped earlier may have been closed and
    // its number reused since it was listed, which the duplicate's own check catches.
    const int fd = fcntl(socket.fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) Fail(ErrorCode::kIo, "cannot duplicate a descriptor: {}", std::strerror(errno));
    struct stat status {};
    if (fstat(fd, &status) != 0 || status.st_ino != socket.inode ||
        ConnectedStreamPort(fd) != port_) {
      ::close(fd);
      continue;
    }
    const uint64_t id = next_id_++;
    connections_.emplace(id, Connection{fd, socket.inode, Clock::now() + deadline_});
    held_.insert(socket.inode);
    if (held++ == 0) first = id;
  }
  if (held == 0) {
    Fail(ErrorCode::kInternal, "no connection on port {} found among the process's sockets", port_);
  }
  // Exactly one: the connection just accepted, let go when its job ends. Several: one accepted
  // earlier had escaped, and which of them is this job's is unknown, so each is let go at its
  // deadline.
  if (held > 1) return 0;
  connections_.at(first).tied = true;
  return first;
}

void DeadlineTaskQueue::Release(uint64_t id) {
  if (id == 0) return;
  std::lock_guard lock(mutex_);
  auto it = connections_.find(id);
  if (it != connections_.end()) LetGo(it);
}

void DeadlineTaskQueue::LetGo(std::map<uint64_t, Connection>::iterator it) {
  ::close(it->second.fd);
  held_.erase(it->second.inode);
  connections_.erase(it);
}

void DeadlineTaskQueue::Watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    for (auto it = connections_.begin(); it != connections_.end();) {
      Connection& connection = it->second;
      if (connection.cut) {
        ++it;  // its job is ending
        continue;
      }
      if (connection.deadline > now) {
        next = connection.deadline;  // ids grow with deadlines: the rest are later still
        break;
      }
      ::shutdown(connection.fd, SHUT_RDWR);
      connection.cut = true;
      if (connection.tied) {
        ++it;
      } else {
        LetGo(it++);
      }
    }
    if (next == Clock::time_point::max()) {
      wake_.wait(lock);
    } else {
      wake_.wait_until(lock, next);
    }
  }
}

void DeadlineTaskQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (shut_down_) return;
    shut_down_ = true;
    for (auto& [id, connection] : connections_) {
      if (!connection.cut) ::shutdown(connection.fd, SHUT_RDWR);
      connection.cut = true;
    }
  }
  pool_.shutdown();  // runs the jobs still queued, which end at once, and joins the workers
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
  std::lock_guard lock(mutex_);
  while (!connections_.empty()) LetGo(connections_.begin());  // escaped ones, not tied to a job
}

}  // namespace rowbridge::server
