#include "ha/zookeeper_session.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <zookeeper/zookeeper.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace rowbridge::ha {

using std::chrono::milliseconds;

namespace {

zhandle_t* Zh(void* handle) {
  return static_cast<zhandle_t*>(handle);
}

void LogFromClient(const char* message) {
  spdlog::debug("zookeeper client: {}", message);
}

}  // namespace

struct ZooKeeperWatcher {
  static void Watch(zhandle_t*, int type, int state, const char*, void* context) {
    if (type == ZOO_SESSION_EVENT) static_cast<ZooKeeperSession*>(context)->OnSessionEvent(state);
  }
};

ZooKeeperSession::ZooKeeperSession(std::string hosts, milliseconds session_timeout,
                                   milliseconds connect_timeout)
    : hosts_(std::move(hosts)) {
  handle_ =
      zookeeper_init2(hosts_.c_str(), &ZooKeeperWatcher::Watch,
                      static_cast<int>(session_timeout.count()), nullptr, this, 0, &LogFromClient);
  if (handle_ == nullptr) {
    const int error = errno;
    // EINVAL: a host that does not resolve, or a malformed list.
    throw Error(
        ErrorCode::kNetwork,
        fmt::format("cannot open a session with ZooKeeper {}: {}", hosts_, std::strerror(error)),
        Transience::kTransient);
  }
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, connect_timeout, [&] { return state_.load() != kConnecting; }) ||
      state_.load() != kConnected) {
    lock.unlock();
    zookeeper_close(Zh(handle_));
    handle_ = nullptr;
    throw Error(ErrorCode::kNetwork,
                fmt::format("no ZooKeeper server of {} granted a session within {} ms", hosts_,
                            connect_timeout.count()),
                Transience::kTransient);
  }
}

ZooKeeperSession::~ZooKeeperSession() {
  if (handle_ != nullptr) zookeeper_close(Zh(handle_));
}

void ZooKeeperSession::OnSessionEvent(int zoo_state) {
  {
    std::lock_guard lock(mutex_);
    if (zoo_state == ZOO_CONNECTED_STATE) {
      if (state_.load() != kExpired) state_ = kConnected;
    } else if (zoo_state == ZOO_EXPIRED_SESSION_STATE || zoo_state == ZOO_AUTH_FAILED_STATE) {
      state_ = kExpired;
    }
  }
  changed_.notify_all();
}

milliseconds ZooKeeperSession::timeout() const {
  return milliseconds(zoo_recv_timeout(Zh(handle_)));
}

std::string ZooKeeperSession::id() const {
  const clientid_t* client = zoo_client_id(Zh(handle_));
  return fmt::format("0x{:x}", client == nullptr ? 0 : client->client_id);
}

void ZooKeeperSession::Check(int rc, const char* what, const std::string& path) {
  if (rc == ZOK) return;
  if (rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE) {
    // The session event may come later, from the client's other thread; this is as sure.
    std::lock_guard lock(mutex_);
    state_ = kExpired;
  }
  const std::string message =
      fmt::format("ZooKeeper {}: {} {}: {}", hosts_, what, path, zerror(rc));
  switch (rc) {
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZSESSIONEXPIRED:
    case ZSESSIONMOVED:
    case ZINVALIDSTATE:  // the handle's session expired
      throw Error(ErrorCode::kNetwork, message, Transience::kTransient);
    case ZNOAUTH:
    case ZAUTHFAILED:
      throw Error(ErrorCode::kConfig, message, Transience::kPermanent);
    default:
      throw Error(ErrorCode::kServer, message, rc, "", Transience::kPermanent);
  }
}

void ZooKeeperSession::CreatePath(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string part = path.substr(0, slash);
    const int rc = zoo_create(Zh(handle_), part.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                              ZOO_PERSISTENT, nullptr, 0);
    if (rc != ZNODEEXISTS) Check(rc, "creating", part);
    if (slash == std::string::npos) return;
  }
}

std::string ZooKeeperSession::CreateEphemeralSequential(const std::string& prefix,
                                                        const std::string& data) {
  std::string created(prefix.size() + 32, '\0');
  const int rc = zoo_create(Zh(handle_), prefix.c_str(), data.data(), static_cast<int>(data.size()),
                            &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, created.data(),
                            static_cast<int>(created.size()));
  Check(rc, "creating an ephemeral node", prefix);
  created.resize(std::strlen(created.c_str()));
  return created;
}

std::vector<std::string> ZooKeeperSession::Children(const std::string& path) {
  String_vector children{};
  Check(zoo_get_children(Zh(handle_), path.c_str(), 0, &children), "listing the children of", path);
  std::vector<std::string> names(children.data, children.data + children.count);
  deallocate_String_vector(&children);
  return names;
}

std::optional<std::string> ZooKeeperSession::Get(const std::string& path) {
  std::string data(1024, '\0');
  int length = static_cast<int>(data.size());
  const int rc = zoo_get(Zh(handle_), path.c_str(), 0, data.data(), &length, nullptr);
  if (rc == ZNONODE) return std::nullopt;
  Check(rc, "reading", path);
  data.resize(length < 0 ? 0 : static_cast<size_t>(length));
  return data;
}

bool ZooKeeperSession::Exists(const std::string& path) {
  const int rc = zoo_exists(Zh(handle_), path.c_str(), 0, nullptr);
  if (rc == ZNONODE) return false;
  Check(rc, "looking up", path);
  return true;
}

void ZooKeeperSession::Delete(const std::string& path) {
  const int rc = zoo_delete(Zh(handle_), path.c_str(), -1);
  if (rc != ZNONODE) Check(rc, "deleting", path);
}

}  // namespace rowbridge::ha
