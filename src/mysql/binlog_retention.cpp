#include "mysql/binlog_retention.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "binlog/event_header.h"
#include "common/error.h"
#include "mysql/binlog_stream.h"

namespace rowbridge::mysql {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::optional<double> VariableNumber(const std::map<std::string, std::string>& variables,
                                     const std::string& name) {
  auto it = variables.find(name);
  if (it == variables.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str()) return std::nullopt;
  return value;
}

bool IsOff(const std::map<std::string, std::string>& variables, const std::string& name) {
  auto it = variables.find(name);
  return it != variables.end() && (it->second == "OFF" || it->second == "0");
}

}  // namespace

BinlogPurgeSettings PurgeSettingsFromVariables(
    const std::map<std::string, std::string>& variables) {
  BinlogPurgeSettings s;
  const std::optional<double> seconds = VariableNumber(variables, "binlog_expire_logs_seconds");
  const std::optional<double> days = VariableNumber(variables, "expire_logs_days");
  if (seconds && *seconds > 0) {
    s.expire_seconds = *seconds;
    s.expire_setting = fmt::format("binlog_expire_logs_seconds={}", *seconds);
  } else if (days && *days > 0) {
    s.expire_seconds = *days * 86400;
    s.expire_setting = fmt::format("expire_logs_days={}", *days);
  } else {
    s.expire_setting = seconds ? "binlog_expire_logs_seconds=0" : "expire_logs_days=0";
  }
  // MySQL 8.0.29+: with auto purge off nothing expires, whatever the expiry says.
  if (IsOff(variables, "binlog_expire_logs_auto_purge")) {
    s.expire_seconds = 0;
    s.expire_setting = "binlog_expire_logs_auto_purge=OFF";
  }
  for (const char* name : {"max_binlog_total_size", "binlog_space_limit"}) {
    const std::optional<double> limit = VariableNumber(variables, name);
    if (limit && *limit > 0) {
      s.size_limit = static_cast<uint64_t>(*limit);
      s.size_setting = fmt::format("{}={}", name, s.size_limit);
      break;
    }
  }
  return s;
}

BinlogPurgeSettings ReadPurgeSettings(Connection& connection) {
  std::map<std::string, std::string> variables;
  for (const auto& row : connection.QueryRows(
           "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_expire_logs_seconds', "
           "'expire_logs_days', 'binlog_expire_logs_auto_purge', 'max_binlog_total_size', "
           "'binlog_space_limit')")) {
    if (row.size() >= 2 && row[0] && row[1]) variables[*row[0]] = *row[1];
  }
  return PurgeSettingsFromVariables(variables);
}

BinlogRetention ComputeBinlogRetention(const BinlogRetentionInput& input) {
  BinlogRetention r;
  size_t index = input.files.size();
  for (size_t i = 0; i < input.files.size(); ++i) {
    if (input.files[i].name == input.file) index = i;
  }
  if (index == input.files.size()) {
    r.purged = true;
    r.headroom_seconds = 0;
    r.headroom_bytes = 0;
    return r;
  }
  r.current = index + 1 == input.files.size();

  const double expire = input.settings.expire_seconds;
  if (expire <= 0) {
    r.headroom_seconds = kInf;
  } else if (r.current) {
    r.headroom_seconds = expire;
  } else if (input.next_file_started) {
    r.headroom_seconds = expire - (input.server_now - *input.next_file_started);
  }

  if (input.settings.size_limit == 0) {
    r.headroom_bytes = kInf;
  } else {
    double held = 0;
    for (size_t i = index; i < input.files.size(); ++i) held += input.files[i].size;
    r.headroom_bytes = static_cast<double>(input.settings.size_limit) - held;
  }
  return r;
}

std::string FormatHeadroomSeconds(std::optional<double> seconds) {
  if (!seconds) return "unknown";
  if (std::isinf(*seconds)) return "never";
  const bool negative = *seconds < 0;
  uint64_t s = static_cast<uint64_t>(std::llround(std::fabs(*seconds)));
  std::string out = negative ? "-" : "";
  const uint64_t days = s / 86400, hours = s % 86400 / 3600, minutes = s % 3600 / 60;
  if (days > 0) {
    out += fmt::format("{}d", days);
    if (hours > 0) out += fmt::format("{}h", hours);
  } else if (hours > 0) {
    out += fmt::format("{}h", hours);
    if (minutes > 0) out += fmt::format("{}m", minutes);
  } else if (minutes > 0) {
    out += fmt::format("{}m", minutes);
  } else {
    out += fmt::format("{}s", s % 60);
  }
  return out;
}

LowBinlogRetention FindLowBinlogRetention(const BinlogRetentionCheck& check,
                                          std::chrono::duration<double> warn_below) {
  const BinlogRetention& r = check.retention;
  LowBinlogRetention low;
  low.seconds = r.headroom_seconds && *r.headroom_seconds < warn_below.count();
  low.bytes = check.settings.size_limit > 0 &&
              r.headroom_bytes < static_cast<double>(check.settings.size_limit) / 10;
  return low;
}

std::string FormatHeadroomBytes(double bytes) {
  if (std::isinf(bytes)) return "unlimited";
  const double magnitude = std::fabs(bytes);
  const char* sign = bytes < 0 ? "-" : "";
  if (magnitude >= 1024.0 * 1024 * 1024) {
    return fmt::format("{}{:.1f} GiB", sign, magnitude / (1024.0 * 1024 * 1024));
  }
  if (magnitude >= 1024.0 * 1024) return fmt::format("{}{:.1f} MiB", sign, magnitude / 1048576.0);
  if (magnitude >= 1024.0) return fmt::format("{}{:.1f} KiB", sign, magnitude / 1024.0);
  return fmt::format("{}{} bytes", sign, static_cast<uint64_t>(magnitude));
}

std::string DescribeBinlogRetention(const std::string& file, const BinlogRetention& r,
                                    const BinlogPurgeSettings& settings) {
  if (r.purged) {
    return fmt::format(
        "binlog file {} is no longer on the source (purged): a restart from this checkpoint "
        "cannot resume",
        file);
  }
  std::string time;
  if (!r.headroom_seconds) {
    time = fmt::format("time to purge unknown (the next file's start could not be read; {})",
                       settings.expire_setting);
  } else if (std::isinf(*r.headroom_seconds)) {
    time = fmt::format("never purged by age ({})", settings.expire_setting);
  } else if (*r.headroom_seconds < 0) {
    time = fmt::format("past its expiry by {} ({}): purged at the source's next binlog rotation",
                       FormatHeadroomSeconds(-*r.headroom_seconds), settings.expire_setting);
  } else {
    time = fmt::format("purged by age in {}{} ({})", r.current ? "at least " : "",
                       FormatHeadroomSeconds(r.headroom_seconds), settings.expire_setting);
  }
  std::string bytes;
  if (settings.size_limit == 0) {
    bytes = "no size limit";
  } else if (r.headroom_bytes < 0) {
    bytes = fmt::format("over {} by {}: purged at the next rotation", settings.size_setting,
                        FormatHeadroomBytes(-r.headroom_bytes));
  } else {
    bytes = fmt::format("{} of binlog before {} purges it", FormatHeadroomBytes(r.headroom_bytes),
                        settings.size_setting);
  }
  return fmt::format("binlog file {}{}: {}; {}", file, r.current ? " (being written)" : "", time,
                     bytes);
}

std::optional<double> BinlogFileStartTime(const ConnectOptions& options, const std::string& file) {
  BinlogStreamOptions o;
  o.server_id = 0;  // a one-off read, as mysqlbinlog's: never taken for (or displacing) a replica
  o.file = file;
  o.position = 4;
  o.non_blocking = true;
  o.register_replica = false;
  std::unique_ptr<BinlogStream> stream = BinlogStream::Start(Connection::Connect(options), o);
  // The fake ROTATE first (timestamp 0), then the file's FORMAT_DESCRIPTION as it lies in the
  // file; anything else before it would be a server we do not know.
  for (int i = 0; i < 4; ++i) {
    std::optional<std::string_view> event = stream->Next();
    if (!event) return std::nullopt;
    if (event->size() < binlog::kEventHeaderSize) continue;
    const auto* b = reinterpret_cast<const uint8_t*>(event->data());
    if (b[4] != 15) continue;  // FORMAT_DESCRIPTION_EVENT
    const uint32_t timestamp =
        uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
    if (timestamp == 0) return std::nullopt;
    return timestamp;
  }
  return std::nullopt;
}

BinlogRetentionCheck CheckBinlogRetention(Connection& c, const ConnectOptions& dump_options,
                                          const std::string& file,
                                          std::map<std::string, double>* start_times) {
  BinlogRetentionCheck check;
  check.settings = ReadPurgeSettings(c);
  BinlogRetentionInput input;
  input.file = file;
  input.settings = check.settings;
  for (const auto& row : c.QueryRows("SHOW BINARY LOGS")) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    input.files.push_back({*row[0], std::strtoull(row[1]->c_str(), nullptr, 10)});
  }
  const std::optional<std::string> now = c.QueryValue("SELECT UNIX_TIMESTAMP()");
  if (!now)
    Fail(ErrorCode::kProtocol, "source {}: SELECT UNIX_TIMESTAMP() returned NULL", c.peer());
  input.server_now = std::strtod(now->c_str(), nullptr);
  for (size_t i = 0; i + 1 < input.files.size(); ++i) {
    if (input.files[i].name != file) continue;
    const std::string& next = input.files[i + 1].name;
    if (start_times != nullptr) {
      auto it = start_times->find(next);
      if (it != start_times->end()) input.next_file_started = it->second;
    }
    // Only when the expiry needs it: no dump against a server that never expires binlogs.
    if (!input.next_file_started && check.settings.expire_seconds > 0) {
      input.next_file_started = BinlogFileStartTime(dump_options, next);
      if (input.next_file_started && start_times != nullptr) {
        if (start_times->size() > 64) start_times->clear();  // old files' entries
        (*start_times)[next] = *input.next_file_started;
      }
    }
  }
  check.retention = ComputeBinlogRetention(input);
  return check;
}

}  // namespace rowbridge::mysql
