// Test harness for `rowbridge run` on real servers: writes a config, runs the rowbridge binary as
// a child process (so it can be SIGKILLed like in a crash), waits until everything the source
// wrote is checkpointed, and compares source and target tables through the mariadb and
// clickhouse-client command lines with the documented conversions (docs/running.md).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "state/checkpoint.h"
#include "support/test_servers.h"

namespace rowbridge::testing {

// How a column is compared between MariaDB and ClickHouse (both sides render text).
enum class Compare {
  kText,     // CAST(x AS CHAR) / toString(x): numbers, DECIMAL, DATE, DATETIME(0), TIME, ENUM, SET
  kHex,      // HEX(x) / hex(x): every string and blob, compared byte for byte
  kSeconds,  // DATETIME(n)/TIMESTAMP(n) with n > 0 into DateTime: the fraction is dropped
  kBitNumber,  // BIT: the number
  kRound2,     // FLOAT(m,2) into Float64: compared rounded to 2 decimals
};
struct ColumnCompare {
  std::string name;
  Compare how = Compare::kText;
};

struct PipelineConfig {
  MysqlAddress mysql;  // root: the tests' own SQL
  // The account rowbridge connects as (the replication user); empty = mysql.user/password.
  std::string source_user;
  std::string source_password;
  ClickHouseAddress clickhouse;
  std::string target_database;
  std::string tables_yaml;  // the list under `tables:` (each item starting with "  - ")
  uint64_t max_rows = 1000;
  // batch.part_rows: small, so that the tests' batches are sent in many parts, mostly streamed
  // while they fill (the default, 8192, would leave most tests' batches in one part).
  uint64_t part_rows = 16;
  std::string max_delay = "200ms";
  std::string heartbeat_period = "1s";
  std::string read_timeout = "3s";
  std::string reconnect = "{initial_backoff: 200ms, max_backoff: 2s}";  // source.reconnect
  uint32_t writers = 2;
  // target.compression; empty = the default (auto: none, since the test server is on 127.0.0.1).
  std::string compression;
  bool file_state = false;            // state in <dir>/state instead of ClickHouse
  bool snapshot = false;              // snapshot.enabled: copy existing rows on a first start
  uint64_t snapshot_chunk_rows = 50;  // snapshot.chunk_rows: rows per unit (one INSERT)
  std::string snapshot_memory_limit;  // snapshot.memory_limit; empty = the default
  // state.checkpoint_interval; empty = the default. A long one leaves only the saves a step
  // makes at once, as a kill -9 right after that step would.
  std::string checkpoint_interval;
  uint32_t server_id = 4242;
  std::string source_yaml;          // more keys of the `source` section, each line "  key: value\n"
  std::string target_yaml;          // more keys of the `target` section, likewise
  std::string log_format = "text";  // log.format
  std::string extra_yaml;
  std::string http_listen = "127.0.0.1:0";  // http.listen
  std::string http_token;                   // http.token; empty = none
  std::string health_max_lag;               // http.health.max_lag; empty = not set
  // Environment entries ("NAME=value") for the rowbridge process, replacing inherited ones.
  std::vector<std::string> environment;
};

struct CliResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

class RowbridgeProcess {
 public:
  // Writes <dir>/rowbridge.yaml from `config`; logs go to <dir>/rowbridge.log.
  RowbridgeProcess(std::filesystem::path dir, PipelineConfig config);
  ~RowbridgeProcess();

  // `rowbridge run -c <config>` followed by `extra_args` (e.g. {"--start-at", "now"}).
  void Start(const std::vector<std::string>& extra_args = {});
  // SIGKILL, then reaps it.
  void Kill();
  // Sends `signal` (e.g. SIGSTOP, SIGCONT) without waiting.
  void Signal(int signal);
  // SIGTERM and wait; returns the exit status (128+signal if a signal ended it).
  int Terminate(std::chrono::seconds timeout = std::chrono::seconds(60));
  // Waits for the process to exit by itself; returns its status.
  int Wait(std::chrono::seconds timeout);
  bool running();
  // The process id of the current run; -1 when none.
  pid_t pid() const { return pid_; }
  // The admin HTTP port of the current run (read from its log; waits for it).
  uint16_t HttpPort(std::chrono::seconds timeout = std::chrono::seconds(30));
  // GET http://127.0.0.1:<port><path>; empty if it cannot connect.
  std::string HttpGet(const std::string& path);
  // The value of the unlabelled series `name` in /metrics; nullopt if it cannot connect or the
  // series is absent.
  std::optional<double> Metric(const std::string& name);
  // The HTTP status of that GET; 0 if it cannot connect.
  int HttpStatus(const std::string& path);
  // The HTTP status of an empty POST to `path` (an admin command); 0 if it cannot connect.
  int HttpPost(const std::string& path);

  std::string log() const;
  // Runs another rowbridge command (e.g. validate) with this config's environment.
  CliResult RunCommandLine(const std::vector<std::string>& args) const;
  const PipelineConfig& config() const { return config_; }
  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& config_path() const { return config_path_; }

  // The saved checkpoint (from the ClickHouse state table or the state file).
  std::optional<state::Checkpoint> SavedCheckpoint() const;
  // Writes a marker transaction into a database no rule matches, then waits until the saved
  // checkpoint is at or past the source's binlog end at that moment, with no copy running
  // alongside the stream: everything the source wrote before is in ClickHouse. Fails the test
  // (with the log's tail) on timeout.
  void WaitCaughtUp(std::chrono::seconds timeout = std::chrono::seconds(90));

 private:
  std::filesystem::path dir_;
  PipelineConfig config_;
  std::filesystem::path config_path_;
  std::filesystem::path log_path_;
  pid_t pid_ = -1;
  size_t log_offset_ = 0;  // where the current run's log begins
  uint16_t http_port_ = 0;
};

// Runs the rowbridge binary with `args` and returns what it did.
CliResult RunRowbridge(const std::vector<std::string>& args,
                       std::chrono::seconds timeout = std::chrono::seconds(120));

// SELECT of the current rows of a MariaDB table and of its ClickHouse replica (FINAL, not
// deleted), each row one line of '|'-joined column texts, ordered by `order_by`.
std::string MysqlRows(const MysqlAddress& mysql, const std::string& database,
                      const std::string& table, const std::vector<ColumnCompare>& columns,
                      const std::string& order_by);
std::string ReplicaRows(const ClickHouseAddress& ch, const std::string& database,
                        const std::string& table, const std::vector<ColumnCompare>& columns,
                        const std::string& order_by, const std::string& extra_where = "");
// The rows of a changelog table reduced to the latest change per key that is not a delete: for
// tables whose key never changes this equals the source table.
std::string ChangelogLatestRows(const ClickHouseAddress& ch, const std::string& database,
                                const std::string& table, const std::vector<ColumnCompare>& columns,
                                const std::string& key, const std::string& event_type_column,
                                const std::string& version_column);

// A directory for one test under $TMPDIR, removed by the destructor unless the test failed.
class TestDir {
 public:
  explicit TestDir(const std::string& name);
  ~TestDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The contents of tests/data/<relative>.
std::string ReadTestFile(const std::string& relative);

// Polls `done` every 100 ms until it is true or `timeout` passes; returns whether it became true.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout);

}  // namespace rowbridge::testing
