#include "state/state_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/select_number.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "common/write_fence.h"
#include "endpoints/connection_options.h"

namespace rowbridge::state {

namespace {

[[noreturn]] void FailErrno(const std::string& what) {
  Fail(ErrorCode::kIo, "{}: {}", what, std::strerror(errno));
}

void WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      FailErrno("cannot write " + path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

std::string JobName(const config::Config& config) {
  return std::to_string(config.source.server_id);
}

// ---- file ----

FileStateStore::FileStateStore(std::string directory, std::string job)
    : directory_(std::move(directory)),
      path_(directory_ + "/rowbridge-" + job + ".checkpoint.json") {}

std::string FileStateStore::Describe() const {
  return "file " + path_;
}

std::optional<Checkpoint> FileStateStore::Load() {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    FailErrno("cannot open the checkpoint file " + path_);
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      FailErrno("cannot read the checkpoint file " + path_);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > (64u << 20)) {
      ::close(fd);
      Fail(ErrorCode::kCorruption, "checkpoint file {} is larger than 64 MiB", path_);
    }
  }
  ::close(fd);
  return Checkpoint::FromJson(text, "checkpoint file " + path_);
}

void FileStateStore::Save(const Checkpoint& checkpoint) {
  CheckWriteFence();
  if (::mkdir(directory_.c_str(), 0755) != 0 && errno != EEXIST) {
    FailErrno("cannot create the state directory " + directory_);
  }
  const std::string tmp = path_ + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) FailErrno("cannot create " + tmp);
  try {
    WriteAll(fd, checkpoint.ToJson() + "\n", tmp);
    if (::fsync(fd) != 0) FailErrno("cannot fsync " + tmp);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) FailErrno("cannot close " + tmp);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) FailErrno("cannot rename " + tmp + " to " + path_);
  int dir = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) FailErrno("cannot open the state directory " + directory_);
  const int rc = ::fsync(dir);
  ::close(dir);
  if (rc != 0) FailErrno("cannot fsync the state directory " + directory_);
}

// ---- ClickHouse ----

ClickHouseStateStore::ClickHouseStateStore(clickhouse::ClientOptions options, std::string database,
                                           std::string table, std::string job, std::string cluster)
    : options_(std::move(options)),
      database_(std::move(database)),
      table_(std::move(table)),
      job_(std::move(job)),
      cluster_(std::move(cluster)) {}

std::string ClickHouseStateStore::Describe() const {
  return fmt::format("ClickHouse table {}.{} (job {})", database_, table_, job_);
}

clickhouse::Client& ClickHouseStateStore::client() {
  if (client_ == nullptr) {
    client_ = std::make_unique<clickhouse::Client>(options_);
  } else if (!client_->connected()) {
    client_->Reconnect();
  }
  return *client_;
}

void ClickHouseStateStore::EnsureTable() {
  if (table_checked_) return;
  const std::string on_cluster =
      cluster_.empty() ? "" : " ON CLUSTER " + clickhouse::QuoteIdentifier(cluster_);
  std::string engine = "ReplacingMergeTree(seq)";
  if (!cluster_.empty()) {
    // One replication group over the whole cluster (no {shard} in the path): every host keeps
    // every checkpoint. {shard}-{replica} is unique even where replica names repeat per shard.
    engine = fmt::format(
        "ReplicatedReplacingMergeTree({}, '{{shard}}-{{replica}}', seq)",
        clickhouse::QuoteString("/clickhouse/rowbridge_state/" + database_ + "/" + table_));
    const uint64_t hosts = clickhouse::SelectUInt64(
        client(), fmt::format("SELECT toUInt64(count()) FROM system.clusters WHERE cluster = {}",
                              clickhouse::QuoteString(cluster_)));
    if (hosts == 0) {
      Fail(ErrorCode::kConfig,
           "target.cluster is {}, but ClickHouse at {} has no such cluster in system.clusters "
           "(remote_servers in its configuration)",
           cluster_, client().peer());
    }
    if (hosts >= 2) {
      save_options_.settings.SetUInt("insert_quorum", 2);
      // Below the connection's read timeout, so the server's answer comes first.
      save_options_.settings.SetUInt("insert_quorum_timeout",
                                     static_cast<uint64_t>(options_.tcp.read_timeout.count() / 2));
    }
  }
  if (!cluster_.empty() && TableExists()) {
    // ON CLUSTER waits for every host: a start while one is down must not wait for it in vain.
    table_checked_ = true;
    return;
  }
  client().Execute("CREATE DATABASE IF NOT EXISTS " + clickhouse::QuoteIdentifier(database_) +
                   on_cluster);
  client().Execute(fmt::format(
      "CREATE TABLE IF NOT EXISTS {}{} (job String, checkpoint String, saved_at DateTime, seq "
      "UInt64) ENGINE = {} ORDER BY job",
      clickhouse::QuoteQualified(database_, table_), on_cluster, engine));
  table_checked_ = true;
}

bool ClickHouseStateStore::TableExists() {
  return clickhouse::SelectUInt64(
             client(),
             fmt::format("SELECT toUInt64(count()) FROM system.tables WHERE "
                         "database = {} AND name = {}",
                         clickhouse::QuoteString(database_), clickhouse::QuoteString(table_))) > 0;
}

RetryPolicy StateStoreRetryPolicy() {
  using namespace std::chrono_literals;
  return {.initial = 250ms, .max = 4s, .max_elapsed = 15s};
}

RetryOptions ClickHouseStateStore::RetryOptionsForStore() {
  RetryOptions options;
  options.policy = StateStoreRetryPolicy();
  options.before_retry = [this](const Error&) { client_.reset(); };  // a fresh connection
  return options;
}

std::optional<Checkpoint> ClickHouseStateStore::Load() {
  return Retry("loading the checkpoint from " + Describe(), RetryOptionsForStore(),
               [&] { return LoadOnce(); });
}

std::optional<Checkpoint> ClickHouseStateStore::LoadOnce() {
  EnsureTable();
  std::optional<std::string> text;
  uint64_t seq = 0;
  client().Select(
      fmt::format("SELECT checkpoint, seq FROM {} FINAL WHERE job = {} ORDER BY seq DESC LIMIT 1",
                  clickhouse::QuoteQualified(database_, table_), clickhouse::QuoteString(job_)),
      [&](clickhouse::Block& block) {
        if (block.RowCount() > 0) {
          text = std::string(clickhouse::As<clickhouse::ColumnString>(block.At(0)).At(0));
          seq = clickhouse::As<clickhouse::ColumnUInt64>(block.At(1)).At(0);
        }
        return true;
      });
  last_seq_ = std::max(last_seq_, seq);
  if (!text) return std::nullopt;
  return Checkpoint::FromJson(*text, Describe());
}

void ClickHouseStateStore::Save(const Checkpoint& checkpoint) {
  // seq orders the saves; wall-clock microseconds keep it growing across restarts, and +1 keeps
  // it growing if the clock steps back. A retry sends the same seq: a save that did land before
  // its connection broke is then the same row twice, which ReplacingMergeTree(seq) keeps once.
  const uint64_t now_us =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
  const uint64_t seq = std::max(now_us, last_seq_ + 1);
  Retry("saving the checkpoint to " + Describe(), RetryOptionsForStore(),
        [&] { SaveOnce(checkpoint, seq); });
  last_seq_ = seq;
}

void ClickHouseStateStore::SaveOnce(const Checkpoint& checkpoint, uint64_t seq) {
  EnsureTable();
  client().Execute(
      fmt::format("INSERT INTO {} (job, checkpoint, saved_at, seq) SELECT {}, {}, now(), {}",
                  clickhouse::QuoteQualified(database_, table_), clickhouse::QuoteString(job_),
                  clickhouse::QuoteString(checkpoint.ToJson()), seq),
      save_options_);
}

std::unique_ptr<StateStore> MakeStateStore(const config::Config& config) {
  const std::string job = JobName(config);
  if (config.state.store == config::StateStore::kFile) {
    return std::make_unique<FileStateStore>(config.state.path, job);
  }
  std::string database = config.target.database;
  std::string table = config.state.table;
  if (auto dot = table.find('.'); dot != std::string::npos) {
    database = table.substr(0, dot);
    table = table.substr(dot + 1);
  }
  return std::make_unique<ClickHouseStateStore>(endpoints::TargetClientOptions(config.target),
                                                database, table, job, config.target.cluster);
}

}  // namespace rowbridge::state
