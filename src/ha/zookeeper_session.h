// ZooKeeperSession: one session with a ZooKeeper ensemble, through the ZooKeeper C client's
// multithreaded library (its own threads keep the session alive between our calls, and reconnect
// to another server of the ensemble within the session timeout). Calls are synchronous; a failed
// one throws an Error that names the ensemble and the node.
//
// Transience follows what a retry can cure: a lost connection or a timeout is transient (the
// client reconnects by itself); an expired session is transient too, but only with a new
// session, so callers that keep a session ask expired() first. The client's own log goes to
// spdlog at debug level: a server that is down would otherwise print a line per reconnect.
//
// zookeeper.h stays in the .cpp: the modules above ha never see the C client.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rowbridge::ha {

class ZooKeeperSession {
 public:
  // Opens a session with `hosts` (host:port,...), asking for `session_timeout`, and waits up to
  // `connect_timeout` for a server to grant it. Throws Error(kNetwork, transient) when none does.
  ZooKeeperSession(std::string hosts, std::chrono::milliseconds session_timeout,
                   std::chrono::milliseconds connect_timeout);
  // Closes the session: the server deletes its ephemeral nodes at once (if it can be reached;
  // otherwise when the session times out).
  ~ZooKeeperSession();
  ZooKeeperSession(const ZooKeeperSession&) = delete;
  ZooKeeperSession& operator=(const ZooKeeperSession&) = delete;

  // The session timeout the server granted (it bounds the asked one by its min/maxSessionTimeout).
  std::chrono::milliseconds timeout() const;
  // The session's id, as ZooKeeper's logs and four-letter commands show it (0x...).
  std::string id() const;
  // True once the server said the session expired: its ephemeral nodes are gone.
  bool expired() const { return state_.load() == kExpired; }
  const std::string& hosts() const { return hosts_; }

  // Creates `path` and its missing parents as persistent nodes (no data); existing ones are kept.
  void CreatePath(const std::string& path);
  // Creates an ephemeral sequential node `prefix`<counter> holding `data`; returns its path.
  std::string CreateEphemeralSequential(const std::string& prefix, const std::string& data);
  // The names (not paths) of the children of `path`.
  std::vector<std::string> Children(const std::string& path);
  // The data of `path`; nullopt when there is no such node.
  std::optional<std::string> Get(const std::string& path);
  // Whether `path` exists: a round trip to the server, so a true also confirms the session.
  bool Exists(const std::string& path);
  // Deletes `path` (any version); no node is fine.
  void Delete(const std::string& path);

 private:
  enum State { kConnecting, kConnected, kExpired };
  friend struct ZooKeeperWatcher;  // the C client's callback, in the .cpp
  void OnSessionEvent(int zoo_state);
  // Throws the Error for the C client's result `rc` of `what` on `path`, unless rc is ZOK.
  void Check(int rc, const char* what, const std::string& path);

  const std::string hosts_;
  void* handle_ = nullptr;  // zhandle_t
  std::atomic<int> state_{kConnecting};
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace rowbridge::ha
