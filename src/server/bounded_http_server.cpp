#include "server/bounded_http_server.h"

#include <sys/socket.h>
#include <unistd.h>

namespace rowbridge::server {

BoundedHttpServer::BoundedHttpServer(std::chrono::milliseconds connection_deadline)
    : deadline_(connection_deadline) {
  set_keep_alive_max_count(1);
  reaper_ = std::thread([this] { Reap(); });
}

BoundedHttpServer::~BoundedHttpServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  reaper_.join();
}

uint64_t BoundedHttpServer::connections_cut() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cut_;
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  const int watched = ::dup(sock);
  if (watched < 0)
    return httplib::Server::process_and_close_socket(sock);  // unbounded, still served
  {
    std::lock_guard<std::mutex> lock(mutex_);
    open_.emplace(Clock::now() + deadline_, watched);
  }
  changed_.notify_all();
  const bool served = httplib::Server::process_and_close_socket(sock);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The reaper erases what it cut; an entry still here is this one.
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if (it->second == watched) {
        open_.erase(it);
        break;
      }
    }
  }
  ::close(watched);
  return served;
}

void BoundedHttpServer::Reap() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (open_.empty()) {
      changed_.wait(lock);
      continue;
    }
    const Clock::time_point next = open_.begin()->first;
    if (Clock::now() < next) {
      changed_.wait_until(lock, next);
      continue;
    }
    ::shutdown(open_.begin()->second, SHUT_RDWR);
    open_.erase(open_.begin());
    ++cut_;
  }
}

}  // namespace rowbridge::server
