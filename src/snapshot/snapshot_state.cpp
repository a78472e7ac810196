#include "snapshot/snapshot_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/sql_quote.h"
#include "common/error.h"
#include "common/write_fence.h"
#include "endpoints/connection_options.h"
#include "state/state_store.h"

namespace rowbridge::snapshot {

namespace {

using Json = nlohmann::ordered_json;

Json PointJson(const BinlogPoint& p) {
  return Json{{"file", p.file}, {"position", p.position}};
}
BinlogPoint PointFrom(const nlohmann::json& j) {
  return {j.at("file").get<std::string>(), j.at("position").get<uint64_t>()};
}

[[noreturn]] void FailErrno(const std::string& what) {
  Fail(ErrorCode::kIo, "{}: {}", what, std::strerror(errno));
}

class FileStore : public SnapshotStateStore {
 public:
  FileStore(std::string directory, const std::string& job)
      : directory_(std::move(directory)),
        path_(directory_ + "/rowbridge-" + job + ".snapshot.json") {}

  std::optional<RunRecord> LoadRun() override {
    std::lock_guard lock(mutex_);
    Load();
    return run_;
  }
  void SaveRun(const RunRecord& run) override {
    std::lock_guard lock(mutex_);
    Load();
    run_ = run;
    Write();
  }
  std::map<std::string, TableProgress> LoadTables() override {
    std::lock_guard lock(mutex_);
    Load();
    return tables_;
  }
  void SaveTable(const TableProgress& table) override {
    std::lock_guard lock(mutex_);
    Load();
    tables_[table.table] = table;
    Write();
  }
  std::string Describe() const override { return "file " + path_; }

 private:
  void Load() {
    if (loaded_) return;
    std::ifstream in(path_);
    loaded_ = true;
    if (!in) return;
    std::stringstream text;
    text << in.rdbuf();
    try {
      nlohmann::json j = nlohmann::json::parse(text.str());
      if (j.contains("run")) run_ = RunRecord::FromJson(j.at("run").dump(), path_);
      for (const auto& t : j.at("tables")) {
        TableProgress p = TableProgress::FromJson(t.dump(), path_);
        tables_[p.table] = p;
      }
    } catch (const nlohmann::json::exception& e) {
      Fail(ErrorCode::kCorruption, "snapshot state file {} is not valid: {}", path_, e.what());
    }
  }
  void Write() {
    CheckWriteFence();
    Json j;
    if (run_) j["run"] = Json::parse(run_->ToJson());
    Json tables = Json::array();
    for (const auto& [name, t] : tables_) tables.push_back(Json::parse(t.ToJson()));
    j["tables"] = std::move(tables);
    const std::string text = j.dump(1) + "\n";
    if (::mkdir(directory_.c_str(), 0755) != 0 && errno != EEXIST)
      FailErrno("cannot create the state directory " + directory_);
    const std::string tmp = path_ + ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) FailErrno("cannot create " + tmp);
    std::string_view rest = text;
    while (!rest.empty()) {
      ssize_t n = ::write(fd, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        FailErrno("cannot write " + tmp);
      }
      rest.remove_prefix(static_cast<size_t>(n));
    }
    if (::fsync(fd) != 0) {
      ::close(fd);
      FailErrno("cannot fsync " + tmp);
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path_.c_str()) != 0) FailErrno("cannot rename " + tmp);
    int dir = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

  std::string directory_;
  std::string path_;
  std::mutex mutex_;
  bool loaded_ = false;
  std::optional<RunRecord> run_;
  std::map<std::string, TableProgress> tables_;
};

// Rows of the pipeline's state table (job, checkpoint, saved_at, seq), ReplacingMergeTree(seq).
class ClickHouseStore : public SnapshotStateStore {
 public:
  ClickHouseStore(clickhouse::ClientOptions options, std::string database, std::string table,
                  std::string job)
      : options_(std::move(options)),
        qualified_(clickhouse::QuoteQualified(database, table)),
        label_(database + "." + table),
        job_(std::move(job)) {}

  std::optional<RunRecord> LoadRun() override {
    std::lock_guard lock(mutex_);
    std::optional<RunRecord> run;
    for (auto& [job, text] : Read(job_ + "/snapshot")) {
      if (job == job_ + "/snapshot") run = RunRecord::FromJson(text, Describe());
    }
    return run;
  }
  void SaveRun(const RunRecord& run) override {
    std::lock_guard lock(mutex_);
    Write(job_ + "/snapshot", run.ToJson());
  }
  std::map<std::string, TableProgress> LoadTables() override {
    std::lock_guard lock(mutex_);
    std::map<std::string, TableProgress> out;
    const std::string prefix = job_ + "/snapshot/";
    for (auto& [job, text] : Read(prefix)) {
      if (job.rfind(prefix, 0) != 0) continue;
      TableProgress p = TableProgress::FromJson(text, Describe());
      out[p.table] = p;
    }
    return out;
  }
  void SaveTable(const TableProgress& table) override {
    std::lock_guard lock(mutex_);
    Write(job_ + "/snapshot/" + table.table, table.ToJson());
  }
  std::string Describe() const override {
    return "ClickHouse table " + label_ + " (job " + job_ + "/snapshot)";
  }

 private:
  clickhouse::Client& client() {
    if (!client_) {
      client_ = std::make_unique<clickhouse::Client>(options_);
    } else if (!client_->connected()) {
      client_->Reconnect();
    }
    if (!table_checked_) {
      client_->Execute("CREATE TABLE IF NOT EXISTS " + qualified_ +
                       " (job String, checkpoint String, saved_at DateTime, seq UInt64) ENGINE = "
                       "ReplacingMergeTree(seq) ORDER BY job");
      table_checked_ = true;
    }
    return *client_;
  }
  std::vector<std::pair<std::string, std::string>> Read(const std::string& prefix) {
    std::vector<std::pair<std::string, std::string>> rows;
    client().Select("SELECT job, argMax(checkpoint, seq), max(seq) FROM " + qualified_ +
                        " WHERE startsWith(job, " + clickhouse::QuoteString(prefix) +
                        ") GROUP BY job",
                    [&](clickhouse::Block& block) {
                      if (block.ColumnCount() < 3) return true;
                      auto& jobs = clickhouse::As<clickhouse::ColumnString>(block.At(0));
                      auto& texts = clickhouse::As<clickhouse::ColumnString>(block.At(1));
                      auto& seqs = clickhouse::As<clickhouse::ColumnUInt64>(block.At(2));
                      for (size_t i = 0; i < block.RowCount(); ++i) {
                        rows.emplace_back(std::string(jobs.At(i)), std::string(texts.At(i)));
                        last_seq_ = std::max(last_seq_, seqs.At(i));
                      }
                      return true;
                    });
    return rows;
  }
  void Write(const std::string& job, const std::string& text) {
    const uint64_t now_us =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
    const uint64_t seq = std::max(now_us, last_seq_ + 1);
    client().Execute("INSERT INTO " + qualified_ + " (job, checkpoint, saved_at, seq) SELECT " +
                     clickhouse::QuoteString(job) + ", " + clickhouse::QuoteString(text) +
                     ", now(), " + std::to_string(seq));
    last_seq_ = seq;
  }

  clickhouse::ClientOptions options_;
  std::string qualified_;
  std::string label_;
  std::string job_;
  std::mutex mutex_;
  std::unique_ptr<clickhouse::Client> client_;
  bool table_checked_ = false;
  uint64_t last_seq_ = 0;
};

Json UnitJson(const UnitRecord& u) {
  return Json{{"first_version", u.first_version},
              {"last_version", u.last_version},
              {"rows", u.rows},
              {"chunk_rows", u.chunk_rows},
              {"high", PointJson(u.high)},
              {"last_key", u.last_key},
              {"last", u.last}};
}

}  // namespace

std::string TableProgress::ToJson() const {
  Json j{{"table", table},          {"number", number},       {"state", state},
         {"next_seq", next_seq},    {"rows_done", rows_done}, {"chunks_done", chunks_done},
         {"high", PointJson(high)}, {"last_key", last_key}};
  if (in_flight) j["in_flight"] = UnitJson(*in_flight);
  return j.dump();
}

TableProgress TableProgress::FromJson(std::string_view text, std::string_view origin) {
  TableProgress p;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    p.table = j.at("table").get<std::string>();
    p.number = j.at("number").get<uint32_t>();
    p.state = j.at("state").get<std::string>();
    p.next_seq = j.at("next_seq").get<uint64_t>();
    p.rows_done = j.at("rows_done").get<uint64_t>();
    p.chunks_done = j.at("chunks_done").get<uint64_t>();
    p.high = PointFrom(j.at("high"));
    p.last_key = j.at("last_key").get<std::vector<std::string>>();
    if (j.contains("in_flight")) {
      const auto& u = j.at("in_flight");
      UnitRecord r;
      r.first_version = u.at("first_version").get<uint64_t>();
      r.last_version = u.at("last_version").get<uint64_t>();
      r.rows = u.at("rows").get<uint64_t>();
      r.chunk_rows = u.at("chunk_rows").get<uint64_t>();
      r.high = PointFrom(u.at("high"));
      r.last_key = u.at("last_key").get<std::vector<std::string>>();
      r.last = u.at("last").get<bool>();
      p.in_flight = r;
    }
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kCorruption, "{}: snapshot progress is not valid: {}", origin, e.what());
  }
  return p;
}

std::string RunRecord::ToJson() const {
  Json j{{"version_base", version_base},
         {"start", PointJson(start)},
         {"end", PointJson(end)},
         {"done", done}};
  if (!created_targets.empty()) j["created_targets"] = created_targets;
  if (!targets_with_earlier_rows.empty())
    j["targets_with_earlier_rows"] = targets_with_earlier_rows;
  if (!unreconciled_targets.empty()) j["unreconciled_targets"] = unreconciled_targets;
  return j.dump();
}

RunRecord RunRecord::FromJson(std::string_view text, std::string_view origin) {
  RunRecord r;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    r.version_base = j.at("version_base").get<uint64_t>();
    r.start = PointFrom(j.at("start"));
    r.end = PointFrom(j.at("end"));
    r.done = j.at("done").get<bool>();
    if (j.contains("created_targets"))
      r.created_targets = j.at("created_targets").get<std::vector<std::string>>();
    if (j.contains("targets_with_earlier_rows"))
      r.targets_with_earlier_rows =
          j.at("targets_with_earlier_rows").get<std::vector<std::string>>();
    if (j.contains("unreconciled_targets"))
      r.unreconciled_targets = j.at("unreconciled_targets").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kCorruption, "{}: snapshot run record is not valid: {}", origin, e.what());
  }
  return r;
}

std::unique_ptr<SnapshotStateStore> MakeSnapshotStateStore(const config::Config& config,
                                                           const std::string& job) {
  if (config.state.store == config::StateStore::kFile)
    return std::make_unique<FileStore>(config.state.path, job);
  std::string database = config.target.database;
  std::string table = config.state.table;
  if (auto dot = table.find('.'); dot != std::string::npos) {
    database = table.substr(0, dot);
    table = table.substr(dot + 1);
  }
  if (!config.target.cluster.empty()) {
    // On a cluster the state table is one replicated table on every node, which the checkpoint
    // store makes (its Load makes the table, with retries); the CREATE of this store would make
    // a local table on target.host if it came first (`rowbridge snapshot` before any `run`).
    state::ClickHouseStateStore(endpoints::TargetClientOptions(config.target), database, table, job,
                                config.target.cluster)
        .Load();
  }
  return std::make_unique<ClickHouseStore>(endpoints::TargetClientOptions(config.target), database,
                                           table, job);
}

}  // namespace rowbridge::snapshot
