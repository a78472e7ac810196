// ZooKeeperLeaderLock (`ha: {lock: zookeeper, hosts: ..., path: /rowbridge}`): the leader lock as
// an election in a ZooKeeper ensemble, for when the source cannot hold it (a proxy or a failover
// pair in front of the source, where a named lock would not be one lock), or when the lock should
// not hang on a source connection.
//
// Every process of the job opens a session and creates an ephemeral sequential node under
// <path>/<job> (its data names the host and pid); the process whose node has the lowest sequence
// number is the leader, the others stand by in the order they came. ZooKeeper deletes the nodes
// of a session that closes (a clean stop) or expires: after the session timeout of silence,
// which a leader killed with -9, paused or cut off falls into.
//
// The session timeout asked for is 2 x lease, as the source lock's wait_timeout, and a server
// that grants less (its maxSessionTimeout) is refused: the node must outlive the leader's write
// permission. The lease (ha/lease.h) is confirmed every lease / 4 by a round trip that finds the
// leader's node; a connection loss is borne while the client reconnects (ZooKeeper's own
// failover), until the session timeout passes without a confirmation, and a missing node or an
// expired session loses the lock at once. A standby takes over at most session timeout + a
// standby's look at the election (lease / 4) + lease after the leader's death, plus the server's
// rounding of the timeout to its tickTime.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "ha/leader_lock.h"
#include "ha/zookeeper_session.h"

namespace rowbridge::ha {

class ZooKeeperLeaderLock : public LeaderLock {
 public:
  // The lock of job `job` in the ensemble `ha.hosts`, under `ha.path`.
  ZooKeeperLeaderLock(const config::HaConfig& ha, const std::string& job);
  ~ZooKeeperLeaderLock() override;

  void Release() override;

  // For `rowbridge validate`: opens a session as a lock would, checks the granted timeout and
  // the job's node, and returns a line that says what it found (the current leader, if any).
  // Throws the Error a lock would meet.
  static std::string Probe(const config::HaConfig& ha, const std::string& job);

 private:
  // A session whose timeout can keep the lease's promise; throws Error(kConfig) if the ensemble
  // grants too short a one.
  static std::unique_ptr<ZooKeeperSession> Open(const config::HaConfig& ha);
  std::optional<std::string> TryTake() override;
  // Closes the session (the server deletes its node, if it can be reached): a node created
  // without an answer would otherwise stay in the election, unknown to this process, ahead of it.
  void Drop() override;
  std::string Where() const override { return "ZooKeeper " + ha_.hosts; }
  void Confirm();  // on the lease's thread

  const config::HaConfig& ha_;
  const std::string directory_;  // <path>/<job>: the election's nodes
  std::unique_ptr<ZooKeeperSession> session_;
  std::string node_;  // this process's node (its full path); empty when none
};

}  // namespace rowbridge::ha
