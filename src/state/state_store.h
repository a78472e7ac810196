// Where checkpoints live between runs.
//
//   ClickHouseStateStore  (state.store: clickhouse, the default) one row per job in
//                         `<target database>.rowbridge_state` (or state.table), a
//                         ReplacingMergeTree(seq) ordered by job, read with FINAL. The table is
//                         created if missing. Every save inserts a row with a larger seq.
//                         With target.cluster the table is made ON CLUSTER as one
//                         ReplicatedReplacingMergeTree whose replicas are every host of the
//                         cluster (ZooKeeper path /clickhouse/rowbridge_state/<db>/<table>,
//                         replica '{shard}-{replica}'), so each host holds every checkpoint and
//                         any of them can be target.host; a save waits for two of them
//                         (insert_quorum=2, when the cluster has two hosts or more), so that
//                         losing any one host loses no saved checkpoint.
//   FileStateStore        (state.store: file) `<state.path>/rowbridge-<job>.checkpoint.json`,
//                         replaced atomically: written to a temporary file, fsynced, renamed over
//                         the old one, and the directory fsynced, so a crash leaves either the old
//                         or the new checkpoint, never a torn one.
//
// The job name is the source server_id (unique among a source's replicas by necessity), so two
// rowbridge processes replicating different sources into one ClickHouse do not share state.
//
// Load() returns nullopt when no checkpoint was ever saved. Failures throw Error: a ClickHouse
// that cannot be reached is kNetwork/kTimeout (transient), an unreadable file kIo.
// ClickHouseStateStore retries a transient error itself (kStateStoreRetry, about 15 s, on a new
// connection; a save is an idempotent row of the same seq) before it throws it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "clickhouse/client.h"
#include "common/retry.h"
#include "config/config.h"
#include "state/checkpoint.h"

namespace rowbridge::state {

class StateStore {
 public:
  virtual ~StateStore() = default;
  virtual std::optional<Checkpoint> Load() = 0;
  virtual void Save(const Checkpoint& checkpoint) = 0;
  // "ClickHouse table analytics.rowbridge_state, job 4242" / "file /var/lib/x/...json".
  virtual std::string Describe() const = 0;
};

class FileStateStore : public StateStore {
 public:
  FileStateStore(std::string directory, std::string job);
  std::optional<Checkpoint> Load() override;
  void Save(const Checkpoint& checkpoint) override;
  std::string Describe() const override;
  const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string path_;
};

// How long the ClickHouse state store retries a transient error before it throws it.
RetryPolicy StateStoreRetryPolicy();

class ClickHouseStateStore : public StateStore {
 public:
  // Uses its own connection, opened on first use (and again after a failure).
  // `cluster`: target.cluster ("" for one server).
  ClickHouseStateStore(clickhouse::ClientOptions options, std::string database, std::string table,
                       std::string job, std::string cluster = {});
  // Creates the state table if it does not exist.
  void EnsureTable();
  std::optional<Checkpoint> Load() override;
  void Save(const Checkpoint& checkpoint) override;
  std::string Describe() const override;

 private:
  clickhouse::Client& client();
  std::optional<Checkpoint> LoadOnce();
  bool TableExists();  // on the connected host
  void SaveOnce(const Checkpoint& checkpoint, uint64_t seq);
  RetryOptions RetryOptionsForStore();

  clickhouse::ClientOptions options_;
  std::string database_;
  std::string table_;
  std::string job_;
  std::string cluster_;
  clickhouse::QueryOptions save_options_;  // insert_quorum on a cluster
  std::unique_ptr<clickhouse::Client> client_;
  uint64_t last_seq_ = 0;
  bool table_checked_ = false;
};

// The job name for a config ("<source server_id>").
std::string JobName(const config::Config& config);
std::unique_ptr<StateStore> MakeStateStore(const config::Config& config);

}  // namespace rowbridge::state
