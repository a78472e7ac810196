// What rowbridge needs to know about a replication source before streaming from it: its flavor,
// whether its settings allow row-based replication by us, and its current binlog position.
//
// CheckSource gathers the facts with a few queries and EvaluateSource (pure, unit-tested) turns
// them into problems, each naming the setting to change and how. All problems are reported at
// once, so an operator fixes the source in one round.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/connection.h"
#include "mysql/gtid_set.h"

namespace rowbridge::mysql {

enum class Flavor { kMysql, kMariaDb };
const char* FlavorName(Flavor flavor);

// What the queries found. Optional fields are unknown when the server did not say.
struct SourceFacts {
  Flavor flavor = Flavor::kMysql;
  std::string version;
  std::string log_bin;           // @@global.log_bin: "1"/"ON" or "0"/"OFF"
  std::string binlog_format;     // ROW, STATEMENT, MIXED
  std::string binlog_row_image;  // FULL, MINIMAL, NOBLOB
  std::string binlog_checksum;   // CRC32, NONE
  uint32_t source_server_id = 0;
  std::vector<std::string> grants;  // SHOW GRANTS lines for the current user
  // Replicas the source lists (ReplicaHostsStatement()); nullopt if we may not look.
  struct Replica {
    uint32_t server_id = 0;
    std::string host;  // what the replica reported (our BinlogStreamOptions::report_host)
  };
  std::optional<std::vector<Replica>> replicas;
  std::string replica_hosts_error;  // why `replicas` is unknown
};

struct SourceCheckResult {
  SourceFacts facts;
  std::vector<std::string> problems;  // any problem means replication cannot work
  std::vector<std::string> notes;     // allowed but worth knowing (e.g. binlog_row_image=MINIMAL)
  // Other rowbridge processes registered with our server_id (also listed in `problems`). A dead
  // one's session lingers until the source fails to write its next heartbeat; a live one stays.
  std::vector<SourceFacts::Replica> rowbridge_clashes;
  bool ok() const { return problems.empty(); }
};

// Every report host rowbridge registers with starts with this.
inline constexpr std::string_view kReportHostPrefix = "rowbridge";

SourceFacts GatherSourceFacts(Connection& connection);
// `our_server_id` and `our_report_host` are what rowbridge will register with. A replica with our
// server_id and our report host is taken for an earlier session of ours (the source replaces it
// when we connect) and only noted. With any other host it is a clash, because two replicas with
// one server_id make the source disconnect the older one (error 4052 on MariaDB, on MySQL the
// old dump thread is killed): a second rowbridge started with our id would stop a running one.
SourceCheckResult EvaluateSource(const SourceFacts& facts, uint32_t our_server_id,
                                 std::string_view our_report_host = kReportHostPrefix);
// EvaluateSource on facts gathered now. While the only problems are other rowbridge sessions with
// our server_id, checks again each second for up to `stale_session_grace`, so that the session
// of a process that just died (kill -9, a restart under systemd) has been dropped by the source;
// a live one is still there at the end and stays a problem.
SourceCheckResult CheckSource(Connection& connection, uint32_t our_server_id,
                              std::string_view our_report_host = kReportHostPrefix,
                              std::chrono::milliseconds stale_session_grace = {});
// CheckSource, throwing Error(kConfig) that lists every problem if there is any.
SourceCheckResult RequireSourceReady(Connection& connection, uint32_t our_server_id,
                                     std::string_view our_report_host = kReportHostPrefix,
                                     std::chrono::milliseconds stale_session_grace = {});

Flavor DetectFlavor(const Connection& connection);
// Whether the server compares table names in lower case (@@lower_case_table_names is not 0).
bool LowerCaseTableNames(Connection& connection);

// True if `version` (a server's VERSION(), e.g. "8.0.36-log") is at least major.minor.patch.
bool MysqlVersionAtLeast(std::string_view version, int major, int minor, int patch);
// The statement that lists a source's replicas: SHOW REPLICAS on MySQL 8.0.22 and later (8.4
// removed SHOW SLAVE HOSTS), SHOW SLAVE HOSTS on older MySQL and on MariaDB.
const char* ReplicaHostsStatement(bool mariadb, std::string_view version);

// The source's current end of binlog: file and position, and its GTID state (MySQL
// @@gtid_executed, MariaDB @@gtid_binlog_pos). Throws Error(kConfig) if binary logging is off.
struct BinlogPosition {
  std::string file;
  uint64_t position = 0;
  MysqlGtidSet mysql_gtids;
  MariadbGtidPosition mariadb_gtids;
};
BinlogPosition CurrentBinlogPosition(Connection& connection);

// How many bytes of binlog the source holds from `file`:`position` to its end (SHOW BINARY LOGS),
// or in all its logs when `file` is not one of them. No read from that position can return more.
uint64_t BinlogBytesFrom(Connection& connection, const std::string& file, uint64_t position);

}  // namespace rowbridge::mysql
