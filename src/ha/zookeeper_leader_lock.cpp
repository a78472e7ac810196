#include "ha/zookeeper_leader_lock.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "common/error.h"

namespace rowbridge::ha {

namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

constexpr const char* kNodePrefix = "lock-";

// <path>/<job>; a path of "/" is the root.
std::string Directory(const config::HaConfig& ha, const std::string& job) {
  return (ha.path == "/" ? std::string() : ha.path) + "/" + job;
}

// The election's nodes among `children`, leader first: the sequence numbers are zero-padded, so
// the names sort as the numbers do.
std::vector<std::string> Candidates(std::vector<std::string> children) {
  std::erase_if(children, [](const std::string& name) { return !name.starts_with(kNodePrefix); });
  std::sort(children.begin(), children.end());
  return children;
}

// What a node says about the process that created it, for the standbys' status.
std::string Identity() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return fmt::format("{} pid {}", host[0] != '\0' ? host : "?", ::getpid());
}

}  // namespace

ZooKeeperLeaderLock::ZooKeeperLeaderLock(const config::HaConfig& ha, const std::string& job)
    // A standby looks at the election every lease / 4 (at most a second): it takes over within
    // that of the leader's node going, then waits out the lease.
    : LeaderLock(Directory(ha, job), ha.lease,
                 std::clamp(ha.lease / 4, milliseconds(100), milliseconds(1000))),
      ha_(ha),
      directory_(Directory(ha, job)) {}

ZooKeeperLeaderLock::~ZooKeeperLeaderLock() {
  Release();
}

std::unique_ptr<ZooKeeperSession> ZooKeeperLeaderLock::Open(const config::HaConfig& ha) {
  const milliseconds wanted = 2 * ha.lease;
  auto session = std::make_unique<ZooKeeperSession>(ha.hosts, wanted, wanted + milliseconds(2000));
  if (session->timeout() < wanted) {
    throw Error(ErrorCode::kConfig,
                fmt::format("ZooKeeper {} granted a session timeout of {} ms, shorter than 2 x "
                            "ha.lease ({} ms): a leader's node could vanish while it may still "
                            "write; raise maxSessionTimeout on the ZooKeeper servers or shorten "
                            "ha.lease",
                            ha.hosts, session->timeout().count(), wanted.count()),
                Transience::kPermanent);
  }
  return session;
}

std::optional<std::string> ZooKeeperLeaderLock::TryTake() {
  if (session_ != nullptr && session_->expired()) {
    // Paused or cut off past the session timeout: its node is gone, join again.
    Drop();
  }
  if (session_ == nullptr) session_ = Open(ha_);
  for (;;) {
    if (node_.empty()) {
      session_->CreatePath(directory_);
      node_ = session_->CreateEphemeralSequential(directory_ + "/" + kNodePrefix, Identity());
      spdlog::info(
          "standby: joined the election {} on ZooKeeper {} as {} (session {}, timeout "
          "{} ms)",
          directory_, ha_.hosts, node_, session_->id(), session_->timeout().count());
    }
    const auto sent = SteadyClock::now();
    const std::vector<std::string> candidates = Candidates(session_->Children(directory_));
    const std::string mine = node_.substr(directory_.size() + 1);
    if (std::find(candidates.begin(), candidates.end(), mine) == candidates.end()) {
      spdlog::warn("standby: the node {} on ZooKeeper {} was deleted; joining again", node_,
                   ha_.hosts);
      node_.clear();
      continue;
    }
    if (candidates.front() == mine) {
      // Connection losses are borne until the session could have expired on the server.
      lease_.Start(
          sent, [this] { Confirm(); }, session_->timeout());
      spdlog::info("leader: holding the lock {} on ZooKeeper {} (node {}, session {})", directory_,
                   ha_.hosts, node_, session_->id());
      return std::nullopt;
    }
    const std::optional<std::string> holder = session_->Get(directory_ + "/" + candidates.front());
    return fmt::format("standby: the leader lock {} on ZooKeeper {} is held by {} (node {})",
                       directory_, ha_.hosts, holder.value_or("a process that just left"),
                       candidates.front());
  }
}

void ZooKeeperLeaderLock::Drop() {
  session_.reset();
  node_.clear();
}

void ZooKeeperLeaderLock::Confirm() {
  auto lost = [&](const std::string& why) {
    return Error(ErrorCode::kNetwork, why, Transience::kPermanent);
  };
  bool exists = false;
  try {
    exists = session_->Exists(node_);
  } catch (const Error&) {
    if (!session_->expired()) throw;  // a connection loss: the client reconnects
  }
  if (session_->expired()) {
    throw lost(fmt::format("the ZooKeeper session {} with {} expired, and its node {} with it",
                           session_->id(), ha_.hosts, node_));
  }
  if (!exists) {
    throw lost(fmt::format("its node {} on ZooKeeper {} was deleted", node_, ha_.hosts));
  }
}

void ZooKeeperLeaderLock::Release() {
  lease_.Stop();
  // Closing the session deletes the node at once: a standby need not wait for a timeout.
  Drop();
}

std::string ZooKeeperLeaderLock::Probe(const config::HaConfig& ha, const std::string& job) {
  const std::unique_ptr<ZooKeeperSession> session = Open(ha);
  const std::string directory = Directory(ha, job);
  std::string found = fmt::format("session timeout {} ms (2 x ha.lease: {} ms)",
                                  session->timeout().count(), 2 * ha.lease.count());
  if (!session->Exists(directory)) {
    return found + fmt::format("; {} does not exist yet (the first `run` creates it)", directory);
  }
  const std::vector<std::string> candidates = Candidates(session->Children(directory));
  if (candidates.empty()) return found + fmt::format("; {}: no process of the job runs", directory);
  const std::optional<std::string> leader = session->Get(directory + "/" + candidates.front());
  return found + fmt::format("; {}: leader {} ({}), {} standby(s)", directory, candidates.front(),
                             leader.value_or("just left"), candidates.size() - 1);
}

}  // namespace rowbridge::ha
