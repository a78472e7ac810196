// An httplib::Server on which no connection lives longer than a deadline.
//
// httplib's read timeout bounds each read, not a request: a client that sends one header byte
// every few seconds keeps a worker forever, and a few such clients keep /healthz from answering.
// Here every accepted connection is registered with a deadline; a reaper thread shuts down the
// socket of any connection still open at its deadline, which ends the worker's wait at once. Each
// connection serves one request (no keep-alive), so the deadline bounds reading the request,
// handling it and writing the answer, and legitimate clients (probes, scrapers, the status page)
// never meet it.
//
// The reaper shuts down a dup() of the socket it owns until the worker is done, so a descriptor
// number reused by a later connection can never be shut down by mistake.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace rowbridge::server {

class BoundedHttpServer : public httplib::Server {
 public:
  explicit BoundedHttpServer(std::chrono::milliseconds connection_deadline);
  ~BoundedHttpServer() override;
  BoundedHttpServer(const BoundedHttpServer&) = delete;
  BoundedHttpServer& operator=(const BoundedHttpServer&) = delete;

  // Connections shut down at their deadline so far.
  uint64_t connections_cut() const;

 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  using Clock = std::chrono::steady_clock;
  void Reap();

  const std::chrono::milliseconds deadline_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::multimap<Clock::time_point, int> open_;  // deadline -> the dup()ed descriptor
  uint64_t cut_ = 0;
  std::thread reaper_;
};

}  // namespace rowbridge::server
