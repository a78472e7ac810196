#include "mysql/source_check.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/error.h"

namespace rowbridge::mysql {
namespace {

constexpr std::string_view kAnotherRowbridge = "another rowbridge";

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// True if a global grant (ON *.*) in `grants` names `privilege` or ALL PRIVILEGES.
bool HasGlobalPrivilege(const std::vector<std::string>& grants, std::string_view privilege) {
  for (const std::string& line : grants) {
    std::string g = Upper(line);
    size_t on = g.find(" ON *.* TO ");
    if (!g.starts_with("GRANT ") || on == std::string::npos) continue;
    std::string_view list = std::string_view(g).substr(6, on - 6);
    if (list.find("ALL PRIVILEGES") != std::string_view::npos) return true;
    // Match whole comma-separated items so "REPLICATION SLAVE ADMIN" is not "REPLICATION SLAVE".
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      std::string_view item = list.substr(start, end == std::string_view::npos ? end : end - start);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (item == privilege) return true;
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }
  return false;
}

std::string Var(Connection& c, const char* name) {
  return c.QueryValue(fmt::format("SELECT @@global.{}", name)).value_or("");
}

// The index of the column called `name` in any letter case (MySQL's SHOW REPLICAS says
// "Server_Id" where SHOW SLAVE HOSTS says "Server_id").
size_t ColumnIndexNoCase(const ResultSet& rs, std::string_view name) {
  for (size_t i = 0; i < rs.columns().size(); ++i) {
    if (Upper(rs.columns()[i].name) == Upper(name)) return i;
  }
  return rs.ColumnIndex(name);  // throws, naming the column
}

}  // namespace

bool MysqlVersionAtLeast(std::string_view version, int major, int minor, int patch) {
  int v[3] = {0, 0, 0};
  std::sscanf(std::string(version).c_str(), "%d.%d.%d", &v[0], &v[1], &v[2]);
  const int want[3] = {major, minor, patch};
  return std::lexicographical_compare(want, want + 3, v, v + 3) || std::equal(want, want + 3, v);
}

bool LowerCaseTableNames(Connection& connection) {
  auto rows = connection.QueryRows("SELECT @@lower_case_table_names");
  return !rows.empty() && !rows[0].empty() && rows[0][0] && *rows[0][0] != "0";
}

const char* ReplicaHostsStatement(bool mariadb, std::string_view version) {
  // MySQL 8.0.22 named it SHOW REPLICAS and 8.4 removed SHOW SLAVE HOSTS; MariaDB knows the old
  // name in every version (and SHOW REPLICA HOSTS only from 10.5).
  return !mariadb && MysqlVersionAtLeast(version, 8, 0, 22) ? "SHOW REPLICAS" : "SHOW SLAVE HOSTS";
}

const char* FlavorName(Flavor flavor) {
  return flavor == Flavor::kMariaDb ? "MariaDB" : "MySQL";
}

Flavor DetectFlavor(const Connection& connection) {
  return connection.is_mariadb() ? Flavor::kMariaDb : Flavor::kMysql;
}

SourceFacts GatherSourceFacts(Connection& c) {
  SourceFacts f;
  f.flavor = DetectFlavor(c);
  f.version = c.server_version();
  f.log_bin = Upper(Var(c, "log_bin"));
  f.binlog_format = Upper(Var(c, "binlog_format"));
  f.binlog_row_image = Upper(Var(c, "binlog_row_image"));
  try {
    f.binlog_checksum = Upper(Var(c, "binlog_checksum"));
  } catch (const Error& e) {
    if (e.server_code() != 1193) throw;
    f.binlog_checksum = "NONE";
  }
  f.source_server_id = static_cast<uint32_t>(std::stoul(Var(c, "server_id")));
  for (auto& row : c.QueryRows("SHOW GRANTS")) {
    if (!row.empty() && row[0]) f.grants.push_back(*row[0]);
  }
  try {
    ResultSet rs = c.Query(ReplicaHostsStatement(c.is_mariadb(), f.version));
    size_t id_column = ColumnIndexNoCase(rs, "Server_id");
    size_t host_column = ColumnIndexNoCase(rs, "Host");
    std::vector<SourceFacts::Replica> replicas;
    while (rs.Next()) {
      if (rs.IsNull(id_column)) continue;
      replicas.push_back({static_cast<uint32_t>(std::stoul(std::string(rs.Field(id_column)))),
                          std::string(rs.Field(host_column))});
    }
    f.replicas = std::move(replicas);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kServer) throw;
    f.replica_hosts_error = e.what();
  }
  return f;
}

SourceCheckResult EvaluateSource(const SourceFacts& f, uint32_t our_server_id,
                                 std::string_view our_report_host) {
  SourceCheckResult r;
  r.facts = f;
  const bool mariadb = f.flavor == Flavor::kMariaDb;
  const std::string section = "in the server config [mysqld] section and restart the server";

  if (f.log_bin != "1" && f.log_bin != "ON") {
    r.problems.push_back(fmt::format(
        "binary logging is off (log_bin={}); set log_bin=<basename> (e.g. log_bin=mysql-bin) {}",
        f.log_bin.empty() ? "?" : f.log_bin, section));
  }
  if (f.binlog_format != "ROW") {
    r.problems.push_back(fmt::format(
        "binlog_format is {}; set binlog_format=ROW {} (SET GLOBAL binlog_format=ROW also "
        "works until the next restart, once sessions reconnect)",
        f.binlog_format.empty() ? "unknown" : f.binlog_format, section));
  }
  if (f.binlog_row_image == "MINIMAL" || f.binlog_row_image == "NOBLOB") {
    r.notes.push_back(fmt::format(
        "binlog_row_image is {}: updates and deletes carry only some columns, so rowbridge "
        "fills the others from its copy; set binlog_row_image=FULL for complete row images",
        f.binlog_row_image));
  } else if (!f.binlog_row_image.empty() && f.binlog_row_image != "FULL") {
    r.problems.push_back(
        fmt::format("binlog_row_image is {}; set binlog_row_image=FULL (or MINIMAL/NOBLOB) {}",
                    f.binlog_row_image, section));
  }
  if (!f.binlog_checksum.empty() && f.binlog_checksum != "CRC32" && f.binlog_checksum != "NONE") {
    r.problems.push_back(fmt::format("binlog_checksum is {}; set binlog_checksum=CRC32 or NONE {}",
                                     f.binlog_checksum, section));
  }

  if (!HasGlobalPrivilege(f.grants, "REPLICATION SLAVE") &&
      !(mariadb && HasGlobalPrivilege(f.grants, "SUPER"))) {
    r.problems.push_back(
        "the user lacks the REPLICATION SLAVE privilege (needed to stream the binlog); run "
        "GRANT REPLICATION SLAVE ON *.* TO <user>");
  }
  bool monitor = HasGlobalPrivilege(f.grants, "REPLICATION CLIENT") ||
                 HasGlobalPrivilege(f.grants, "SUPER") ||
                 (mariadb && (HasGlobalPrivilege(f.grants, "BINLOG MONITOR") ||
                              HasGlobalPrivilege(f.grants, "REPLICATION SLAVE ADMIN")));
  if (!monitor) {
    r.problems.push_back(fmt::format(
        "the user lacks the {} privilege (needed to read the binlog position); run GRANT {} ON "
        "*.* TO <user>",
        mariadb ? "BINLOG MONITOR (REPLICATION CLIENT)" : "REPLICATION CLIENT",
        mariadb ? "BINLOG MONITOR" : "REPLICATION CLIENT"));
  }

  if (our_server_id == 0) {
    r.problems.push_back(
        "rowbridge's server_id is 0; set a non-zero server_id in rowbridge's config");
  } else if (our_server_id == f.source_server_id) {
    r.problems.push_back(fmt::format(
        "rowbridge's server_id {} equals the source's server_id; choose another server_id in "
        "rowbridge's config (or change server_id {})",
        our_server_id, section));
  } else if (f.replicas) {
    for (const SourceFacts::Replica& replica : *f.replicas) {
      if (replica.server_id != our_server_id) continue;
      if (replica.host == our_report_host) {
        r.notes.push_back(fmt::format(
            "a replica with our server_id {} and report host '{}' is registered, probably an "
            "earlier rowbridge session; the source replaces it when we connect",
            our_server_id, replica.host));
      } else if (replica.host.starts_with(kReportHostPrefix)) {
        r.rowbridge_clashes.push_back(replica);
        r.problems.push_back(fmt::format(
            "{} (report host '{}') is replicating from the source with our "
            "server_id {}; starting would make the source disconnect it. Give each rowbridge job "
            "its own server_id in rowbridge's config, or run standbys of one job with `ha`",
            kAnotherRowbridge, replica.host, our_server_id));
      } else {
        r.problems.push_back(fmt::format(
            "another replica of the source (host '{}') already uses server_id {} (SHOW SLAVE "
            "HOSTS); the source would disconnect one of us; choose an unused server_id in "
            "rowbridge's config",
            replica.host, our_server_id));
      }
    }
  }
  if (f.source_server_id == 0) {
    r.problems.push_back(fmt::format(
        "the source's server_id is 0, so it refuses replicas; set server_id=<non-zero> {}",
        section));
  }
  if (!f.replicas) {
    r.notes.push_back(fmt::format("could not check for a server_id clash with other replicas: {}",
                                  f.replica_hosts_error));
  }
  return r;
}

SourceCheckResult CheckSource(Connection& connection, uint32_t our_server_id,
                              std::string_view our_report_host,
                              std::chrono::milliseconds stale_session_grace) {
  const auto deadline = std::chrono::steady_clock::now() + stale_session_grace;
  SourceCheckResult r =
      EvaluateSource(GatherSourceFacts(connection), our_server_id, our_report_host);
  while (!r.rowbridge_clashes.empty() && r.problems.size() == r.rowbridge_clashes.size() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    r = EvaluateSource(GatherSourceFacts(connection), our_server_id, our_report_host);
  }
  if (!r.rowbridge_clashes.empty() && stale_session_grace.count() > 0) {
    for (std::string& problem : r.problems) {
      if (!problem.starts_with(kAnotherRowbridge)) continue;
      problem += fmt::format(
          " (still registered after {}s; a dead process's session is dropped at the source's "
          "next heartbeat, so this one is alive, unless its host vanished and left a half-open "
          "connection: then KILL its `Binlog Dump` thread, which SHOW PROCESSLIST lists)",
          std::chrono::duration_cast<std::chrono::seconds>(stale_session_grace).count());
    }
  }
  return r;
}

SourceCheckResult RequireSourceReady(Connection& connection, uint32_t our_server_id,
                                     std::string_view our_report_host,
                                     std::chrono::milliseconds stale_session_grace) {
  SourceCheckResult r =
      CheckSource(connection, our_server_id, our_report_host, stale_session_grace);
  if (!r.ok()) {
    std::string list;
    for (const std::string& p : r.problems) list += "\n  - " + p;
    Fail(ErrorCode::kConfig, "{} source {} cannot be replicated from ({} problem{}):{}",
         FlavorName(r.facts.flavor), connection.peer(), r.problems.size(),
         r.problems.size() == 1 ? "" : "s", list);
  }
  return r;
}

BinlogPosition CurrentBinlogPosition(Connection& c) {
  BinlogPosition pos;
  const bool mariadb = c.is_mariadb();
  // MySQL 8.2 renamed the statement and 8.4 removed the old name.
  const bool new_syntax = !mariadb && MysqlVersionAtLeast(c.server_version(), 8, 2, 0);
  ResultSet rs = c.Query(new_syntax ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS");
  if (!rs.Next()) {
    Fail(ErrorCode::kConfig,
         "{} source {} has binary logging off (SHOW MASTER STATUS is empty); set "
         "log_bin=<basename> in the server config [mysqld] section and restart the server",
         mariadb ? "MariaDB" : "MySQL", c.peer());
  }
  pos.file = std::string(rs.Field(rs.ColumnIndex("File")));
  pos.position = std::stoull(std::string(rs.Field(rs.ColumnIndex("Position"))));
  while (rs.Next()) {
  }
  if (mariadb) {
    pos.mariadb_gtids =
        MariadbGtidPosition::Parse(c.QueryValue("SELECT @@global.gtid_binlog_pos").value_or(""));
  } else {
    pos.mysql_gtids =
        MysqlGtidSet::Parse(c.QueryValue("SELECT @@global.gtid_executed").value_or(""));
  }
  return pos;
}

uint64_t BinlogBytesFrom(Connection& c, const std::string& file, uint64_t position) {
  // Files of one basename sort by length, then by name ("mysql-bin.999999" < "mysql-bin.1000000").
  auto before = [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  };
  uint64_t all = 0, from = 0;
  bool listed = false;
  for (const auto& row : c.QueryRows("SHOW BINARY LOGS")) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    const uint64_t size = std::strtoull(row[1]->c_str(), nullptr, 10);
    all += size;
    if (*row[0] == file) {
      listed = true;
      from += size > position ? size - position : 0;
    } else if (before(file, *row[0])) {
      from += size;
    }
  }
  return listed ? from : all;
}

}  // namespace rowbridge::mysql
