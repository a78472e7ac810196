// Binlog retention headroom: how long, and how many more bytes of binlog, until the source purges
// the binlog file a checkpoint points into. A restart from a checkpoint whose file is gone cannot
// resume, so this is the margin an operator has while rowbridge is stopped or behind.
//
// Time. Both flavors purge automatically by file age: a file goes once its last write (its mtime)
// is older than the expiry, checked when the server rotates to a new file (FLUSH BINARY LOGS, a
// full file, a restart), never the file being written. The expiry is binlog_expire_logs_seconds
// when non-zero, else expire_logs_days * 86400 (MySQL 8.0, MariaDB; MariaDB 10.6+ keeps the two
// in step); 0 means never, and so does MySQL's binlog_expire_logs_auto_purge=OFF. The mtime is not
// readable over SQL; a file's last write is the server rotating away from it, which is when the
// next file begins, so the header timestamp of the next file's FORMAT_DESCRIPTION event is taken
// instead (read with a one-off non-blocking dump, as mysqlbinlog does: server_id 0, not
// registered, so it displaces no replica). After a server restart the true last write was the
// shutdown, earlier than the next file's start by the downtime, so the headroom is then too high
// by that much. For the file being written the headroom is at least the expiry (it cannot expire
// before it is rotated); that lower bound is reported.
//
// Bytes. MariaDB 11.4+ also purges the oldest files while the binlogs' total size exceeds
// max_binlog_total_size (binlog_space_limit); 0 means no limit, and MySQL has none. The
// checkpoint's file goes once it and the files after it hold more than the limit, so the headroom
// is the limit less their total size (SHOW BINARY LOGS).
//
// Either number can be negative: the file is past its expiry or the limit and goes at the server's
// next purge. +Inf: the server never purges by that measure. Not modelled: MariaDB 11.4+'s
// slave_connections_needed_for_purge (no automatic purge with fewer replicas connected; the
// headroom assumes purging happens) and a replica still reading a file (the servers keep a file a
// dump thread is reading; rowbridge's own stream keeps its current file only while connected).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mysql/connection.h"

namespace rowbridge::mysql {

struct BinlogFileSize {
  std::string name;
  uint64_t size = 0;
};

// The server's purge settings.
struct BinlogPurgeSettings {
  double expire_seconds = 0;  // 0: files never expire by age
  uint64_t size_limit = 0;    // 0: no limit on the binlogs' total size
  std::string
      expire_setting;  // where expire_seconds came from, e.g. "binlog_expire_logs_seconds=86400"
  std::string size_setting;  // e.g. "max_binlog_total_size=1073741824"; empty when none
};

// Derives the settings from SHOW GLOBAL VARIABLES rows (name → value) of either flavor.
BinlogPurgeSettings PurgeSettingsFromVariables(const std::map<std::string, std::string>& variables);
// Reads them from the server.
BinlogPurgeSettings ReadPurgeSettings(Connection& connection);

struct BinlogRetentionInput {
  std::string file;                   // the checkpoint's binlog file
  std::vector<BinlogFileSize> files;  // SHOW BINARY LOGS, oldest first
  BinlogPurgeSettings settings;
  double server_now = 0;  // the server's clock, unix seconds
  // Unix time the file after `file` began (its FORMAT_DESCRIPTION's timestamp); nullopt when
  // `file` is the last one or that time could not be read.
  std::optional<double> next_file_started;
};

struct BinlogRetention {
  bool purged = false;   // `file` is no longer on the server (or never was)
  bool current = false;  // `file` is the one the server writes: the seconds are a lower bound
  // Seconds / bytes until `file` would be purged; +Inf when the server never purges that way.
  // nullopt: unknown (the next file's start could not be read). 0 once purged.
  std::optional<double> headroom_seconds;
  double headroom_bytes = 0;
};

// The arithmetic (no I/O).
BinlogRetention ComputeBinlogRetention(const BinlogRetentionInput& input);

// "2d3h", "45m", "12s", "-5m" (negative: overdue), "never" (+Inf), "unknown".
std::string FormatHeadroomSeconds(std::optional<double> seconds);
// "1.5 GiB", "-200 MiB", "unlimited".
std::string FormatHeadroomBytes(double bytes);
// One line for logs and validate: "binlog mysql-bin.000003: purged in about 5d (expiry ...)".
std::string DescribeBinlogRetention(const std::string& file, const BinlogRetention& retention,
                                    const BinlogPurgeSettings& settings);

// Reads what ComputeBinlogRetention needs over `connection` and, for the next file's start, a
// one-off dump on a second connection made with `dump_options`. `start_times` caches file start
// times between calls (a file's start never changes); may be null.
struct BinlogRetentionCheck {
  BinlogPurgeSettings settings;
  BinlogRetention retention;
};
BinlogRetentionCheck CheckBinlogRetention(Connection& connection,
                                          const ConnectOptions& dump_options,
                                          const std::string& file,
                                          std::map<std::string, double>* start_times);

// Which measures of a check are below their warning threshold: the seconds below `warn_below`
// (source.binlog_retention.warn_below), the bytes below a tenth of the source's size limit. The
// one rule of `run`'s warning and `validate`'s.
struct LowBinlogRetention {
  bool seconds = false;
  bool bytes = false;
};
LowBinlogRetention FindLowBinlogRetention(const BinlogRetentionCheck& check,
                                          std::chrono::duration<double> warn_below);

// The header timestamp of the first FORMAT_DESCRIPTION event of `file`, read with a non-blocking
// dump under server_id 0 on a new connection (closed before returning). nullopt if the dump ended
// before one.
std::optional<double> BinlogFileStartTime(const ConnectOptions& options, const std::string& file);

}  // namespace rowbridge::mysql
