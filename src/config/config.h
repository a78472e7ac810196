// The configuration of `rowbridge run`: plain structs with every default filled in. The loader
// (config/loader.h) builds one from YAML and guarantees the invariants documented here; code that
// builds a Config by hand (tests) is responsible for them itself. docs/configuration.md describes
// every key.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/table_pattern.h"

namespace rowbridge::config {

using Duration = std::chrono::milliseconds;

enum class TlsMode {
  kDisabled,        // plain TCP
  kPreferred,       // TLS if the server offers it, else plain (MySQL only)
  kRequired,        // TLS, certificate not checked
  kVerifyCa,        // TLS, certificate signed by `ca` (or the system store)
  kVerifyIdentity,  // kVerifyCa and the certificate names `host`
};

struct TlsConfig {
  TlsMode mode = TlsMode::kDisabled;
  std::string ca;    // PEM file with trusted CA certificates; empty = the system store
  std::string cert;  // client certificate (PEM), set together with `key`
  std::string key;   // client private key (PEM)
};

enum class SourceFlavor { kAuto, kMysql, kMariadb };

struct ReconnectConfig {
  Duration initial_backoff{1000};  // first wait; doubles per failed attempt
  Duration max_backoff{60000};     // upper bound of the wait; >= initial_backoff
};

// The binlog retention headroom (mysql/binlog_retention.h): how often `run` measures it, and the
// headroom below which `run` logs a warning and `validate` warns.
struct BinlogRetentionConfig {
  Duration check_interval{60000};  // 0: never measured by `run`
  Duration warn_below{6 * 3600 * 1000};
};

// What `rowbridge run` does with DML the source logged as a statement (binlog_format STATEMENT or
// MIXED) on a replicated table: its row changes are not in the binlog, so the target can no
// longer follow the table.
//   kStopTable  stop replicating that table (the other tables go on)
//   kStopRun    stop `rowbridge run` with an error
enum class StatementDml { kStopTable, kStopRun };

// What `rowbridge run` does when the binlog its checkpoint resumes from was purged from the source
// (the changes since then can no longer be read).
//   kStop    stop with an error naming the purged file and the ways on
//   kRecopy  move the checkpoint to the source's current position and copy every covered table
//            again alongside the stream, each into a fresh target that takes the old one's place
//            once complete (snapshot::BeginRecopy)
enum class OnPurged { kStop, kRecopy };

struct SourceConfig {
  std::string host;  // required
  uint16_t port = 3306;
  std::string user;        // required
  std::string password;    // a secret: never logged, redacted in /status
  uint32_t server_id = 0;  // required, 1..4294967295, unique among the source's replicas
  SourceFlavor flavor = SourceFlavor::kAuto;
  TlsConfig tls{TlsMode::kPreferred, {}, {}, {}};
  Duration heartbeat_period{5000};  // the source sends a heartbeat when idle this long
  Duration connect_timeout{10000};
  Duration read_timeout{30000};  // > heartbeat_period
  ReconnectConfig reconnect;
  StatementDml on_statement_dml = StatementDml::kStopTable;
  OnPurged on_purged_position = OnPurged::kStop;
  BinlogRetentionConfig binlog_retention;
};

// kAuto: none when the target host is a loopback address (compressing for a copy in the same
// machine's memory only costs CPU; clickhouse-client decides the same way since 21.4), else LZ4.
enum class Compression { kAuto, kLz4, kZstd, kNone };

struct TargetConfig {
  std::string host;      // required
  uint16_t port = 9000;  // default 9440 when tls.mode is not disabled
  std::string user = "default";
  std::string password;              // a secret
  std::string database = "default";  // where unqualified rule targets and the state table live
  TlsConfig tls;                     // kPreferred is rejected: the native port is TLS or not
  Compression compression = Compression::kAuto;
  std::string cluster;   // non-empty: DDL runs ON CLUSTER `cluster`
  uint32_t writers = 4;  // parallel insert connections, 1..64
  Duration connect_timeout{10000};
  Duration query_timeout{300000};
};

enum class TableMode { kReplica, kChangelog };
enum class OutOfRange { kError, kClamp };
// What `rowbridge run` does with a source schema change (DDL) of a replicated table.
//   kAuto   apply to target tables rowbridge created, stop tables it did not create
//   kApply  ALTER the target table to follow (docs/running.md, "Schema changes")
//   kStop   stop replicating the table (its rows are no longer applied)
enum class SchemaChanges { kAuto, kApply, kStop };
// What a DROP TABLE of the source table does to the target table.
enum class DropTable { kKeep, kDrop };

// Names of the columns rowbridge adds to target tables. Which ones exist depends on the mode:
// replica tables get `version` and `is_deleted`; changelog tables get `version` and `event_type`.
struct MetaColumns {
  std::string event_type = "_event_type";
  std::string version = "_version";
  std::string is_deleted = "_is_deleted";
};

struct ConversionPolicy {
  OutOfRange on_out_of_range = OutOfRange::kError;
  std::string datetime_timezone = "UTC";  // how MySQL DATETIME values are read
};

struct TableRule {
  // The rule matches a table if any `match` pattern matches and no `exclude` pattern does; rules
  // are tried in order, first match wins, so a table a rule excludes can still follow a later
  // rule.
  std::vector<std::string> match;              // as written
  std::vector<TablePattern> patterns;          // parsed `match`, same order
  std::vector<std::string> exclude;            // as written
  std::vector<TablePattern> exclude_patterns;  // parsed `exclude`, same order

  // Target table template (config/target_template.h): "db.table" or "table" (in
  // TargetConfig::database), with {db} and {table} placeholders; default "{table}".
  std::string target = "{table}";
  TableMode mode = TableMode::kReplica;
  std::vector<std::string> key;              // ORDER BY columns; empty = the source primary key
  std::string partition_by;                  // PARTITION BY expression; empty = none
  std::vector<std::string> include_columns;  // empty = all; never both include and exclude
  std::vector<std::string> exclude_columns;
  MetaColumns meta_columns;
  ConversionPolicy conversion;
  bool create_table = true;  // create the target table if it does not exist
  SchemaChanges schema_changes = SchemaChanges::kAuto;
  DropTable drop_table = DropTable::kKeep;
  int line = 0;  // YAML line of the rule (1-based), for messages; 0 if unknown
};

struct SnapshotConfig {
  bool enabled = true;  // copy existing rows before streaming changes (first start only)
  uint64_t chunk_rows = 100000;
  uint32_t readers = 3;
  uint32_t writers = 6;
  // Bytes of row data the copy holds at once, over every table it copies (docs/snapshot.md,
  // "Memory"); reads are sized to it, so the process stays near 100 MB whatever the row width.
  uint64_t memory_limit = uint64_t{48} << 20;
  // Copy a table with neither a primary key nor a unique key over NOT NULL columns with one
  // SELECT instead of refusing it (docs/snapshot.md, keyless tables: the caveat).
  bool keyless_single_chunk = false;
};

struct BatchConfig {
  uint64_t max_rows = 100000;
  uint64_t max_bytes = 64ULL << 20;
  Duration max_delay{1000};
  // While the stream is caught up a table's rows are written at once, but a table gets at most
  // one insert per min_interval (pipeline/batch_buffers.h).
  Duration min_interval{500};
  // A batch is held and sent in parts of part_rows rows (pipeline/batch_buffers.h).
  uint64_t part_rows = 8192;
};

struct MemoryConfig {
  uint64_t max_buffered_bytes = 1ULL << 30;  // >= batch.max_bytes
};

enum class StateStore { kClickhouse, kFile };

struct StateConfig {
  StateStore store = StateStore::kClickhouse;
  std::string path;                       // directory, for kFile only (required there)
  std::string table = "rowbridge_state";  // for kClickhouse: "table" or "db.table"
  // How often the newest safe checkpoint is saved. A crash replays the binlog from the last save,
  // so a longer interval means fewer writes to the store and a longer replay.
  Duration checkpoint_interval{1000};
};

struct HealthConfig {
  // /healthz fails when the source sent neither an event nor a heartbeat for this long.
  Duration max_silence{60000};
  // /healthz fails when a table's replication lag exceeds this; nullopt = not checked.
  std::optional<Duration> max_lag;
};

struct HttpConfig {
  bool enabled = true;
  std::string listen = "127.0.0.1:9480";  // host:port, [v6]:port; port 0 picks a free port
  // When set, every request must carry `Authorization: Bearer <token>`. Required for a listen
  // address that is not loopback: /status shows hosts, users and tables.
  std::string token;
  HealthConfig health;
};

// High availability: several `rowbridge run` of one job, of which one (the leader) replicates
// and the others wait as standbys (ha/leader_lock.h). The lock lives in the source (a named lock)
// or in a ZooKeeper ensemble (an ephemeral node), for when the source is not one server that every
// process reaches, or the lock should not depend on the source's connections.
enum class HaLock { kNone, kSource, kZooKeeper };

struct HaConfig {
  HaLock lock = HaLock::kNone;
  // A leader writes only within `lease` of its last confirmation that it holds the lock. The
  // lock outlives a leader that falls silent (paused, cut off) by twice as long (the source's
  // wait_timeout, the ZooKeeper session timeout), so a standby takes over only after the old
  // leader stopped writing.
  Duration lease{2000};
  // lock: zookeeper. The ensemble's connect string, host:port,host:port (required), and the
  // node under which each job's election runs (<path>/<job>).
  std::string hosts;
  std::string path = "/rowbridge";
};

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };
enum class LogFormat { kText, kJson };

struct LogConfig {
  LogLevel level = LogLevel::kInfo;
  LogFormat format = LogFormat::kText;
};

struct Config {
  SourceConfig source;
  TargetConfig target;
  std::vector<TableRule> tables;  // at least one
  SnapshotConfig snapshot;
  BatchConfig batch;
  MemoryConfig memory;
  StateConfig state;
  HttpConfig http;
  HaConfig ha;
  LogConfig log;
};

// Enum names as written in the file ("verify-ca", "changelog" ...).
const char* TlsModeName(TlsMode mode);
const char* SourceFlavorName(SourceFlavor flavor);
const char* StatementDmlName(StatementDml action);
const char* OnPurgedName(OnPurged action);
const char* CompressionName(Compression compression);
const char* TableModeName(TableMode mode);
const char* OutOfRangeName(OutOfRange policy);
const char* StateStoreName(StateStore store);
const char* LogLevelName(LogLevel level);
const char* HaLockName(HaLock lock);
const char* LogFormatName(LogFormat format);

// host:port split of HttpConfig::listen (validated by the loader).
struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};
// Throws Error(kInvalidArgument) if `listen` is not host:port.
ListenAddress ParseListenAddress(std::string_view listen);
// 127.0.0.0/8, ::1 (bracketed or not) and "localhost" (any case); not 0.0.0.0 or ::, which listen
// on every interface.
bool IsLoopbackHost(std::string_view host);

}  // namespace rowbridge::config
