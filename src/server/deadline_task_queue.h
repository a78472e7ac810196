// The admin HTTP server's workers, with a deadline on every connection.
//
// httplib's read and write timeouts bound each recv() and send(), not a request: a client that
// sends a header byte every few seconds holds a worker for as long as it likes, and a few dozen
// such clients hold them all, /healthz's too. httplib 0.11 keeps its per-connection hook private,
// but it hands every accepted connection to its TaskQueue on the accepting thread, right after
// accept() and before anything else can close it; this queue takes hold of the connection's
// socket there and shuts it down (SHUT_RDWR) once the connection has lasted `deadline`, whatever
// the worker serving it, or the queue it waits in, is doing. httplib's blocked read or write then
// returns at once, the worker is free, and httplib closes its descriptor as it always does.
//
// Holding a socket means having a descriptor of our own for it (a duplicate), closed when the
// connection's job ends: shutting down our own descriptor can never hit an unrelated file that
// reused httplib's descriptor number. The socket is recognised, among the process's descriptors
// (/proc/self/fd), as the connected stream socket on the server's port not held yet. If that
// fails (no descriptor left, no /proc), the connection goes without a deadline and a warning
// says so once; a connection that escaped is caught, with a fresh deadline, by the next accept.
//
// Jobs wait in an unbounded queue for the workers (httplib::ThreadPool), so a burst of connections
// waits its turn rather than failing. A deadline counts from the accept, so a connection that
// waited out its deadline in the queue ends as soon as a worker takes it, and a probe queued
// behind any number of slow clients is served by the time its own deadline comes. shutdown()
// (httplib's stop) first shuts down every connection still open, so stopping does not wait for
// slow clients either.
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

namespace rowbridge::server {

class DeadlineTaskQueue : public httplib::TaskQueue {
 public:
  // `port` is the server's listening port: its connections are the sockets with it as their
  // local port.
  DeadlineTaskQueue(size_t workers, uint16_t port, std::chrono::milliseconds deadline);
  ~DeadlineTaskQueue() override;
  DeadlineTaskQueue(const DeadlineTaskQueue&) = delete;
  DeadlineTaskQueue& operator=(const DeadlineTaskQueue&) = delete;

  // Called by httplib on its accepting thread with the job of the connection just accepted.
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  using Clock = std::chrono::steady_clock;

  struct Connection {
    int fd;  // ours: a duplicate of httplib's descriptor
    ino_t inode;
    Clock::time_point deadline;
    bool tied = false;  // let go when its job ends (else at its deadline)
    bool cut = false;   // shut down
  };

  // Holds the server's connections not held yet (just after an accept, the one accepted) and
  // returns the id of the one to let go when this job ends, or 0 if several were found.
  uint64_t HoldNewConnections();
  void Release(uint64_t id);
  void LetGo(std::map<uint64_t, Connection>::iterator it);
  void Watch();

  const uint16_t port_;
  const std::chrono::milliseconds deadline_;
  bool warned_ = false;  // enqueue's thread only

  std::mutex mutex_;
  std::condition_variable wake_;
  // By id, which grows with the deadline.
  std::map<uint64_t, Connection> connections_;
  std::unordered_set<ino_t> held_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  bool shut_down_ = false;

  httplib::ThreadPool pool_;
  std::thread watchdog_;
};

}  // namespace rowbridge::server
