#include "cli/dump_binlog.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <vector>

#include "binlog/binlog_event_reader.h"
#include "binlog/binlog_file_reader.h"
#include "binlog/control_events.h"
#include "binlog/gtid_events.h"
#include "binlog/json_string.h"
#include "binlog/query_event.h"
#include "binlog/rows_event.h"
#include "binlog/table_map_event.h"
#include "binlog/transaction_payload.h"
#include "binlog/value_format.h"
#include "common/error.h"
#include "mysql/binlog_stream.h"
#include "mysql/replication_event_source.h"

namespace rowbridge::cli {

using namespace rowbridge::binlog;

namespace {

const char* KindName(RowsKind kind) {
  switch (kind) {
    case RowsKind::kWrite:
      return "insert";
    case RowsKind::kUpdate:
      return "update";
    case RowsKind::kDelete:
      return "delete";
  }
  return "?";
}

}  // namespace

BinlogDumper::BinlogDumper(const DumpBinlogOptions& options, std::FILE* out)
    : options_(options), out_(out) {}

BinlogDumper::~BinlogDumper() {
  try {
    Finish();
  } catch (...) {
  }
}

void BinlogDumper::MaybeFlush() {
  if (out_ != nullptr && buffer_.size() >= (1 << 16)) Finish();
}

void BinlogDumper::Finish() {
  if (out_ == nullptr || buffer_.empty()) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) {
    Fail(ErrorCode::kIo, "dump-binlog: cannot write output");
  }
  buffer_.clear();
}

void BinlogDumper::DumpFile(const std::string& path, bool first, bool last) {
  BinlogFileReader file(path);
  BinlogEventReader reader(file);
  uint64_t start = first ? options_.start_position : 4;
  uint64_t stop = last ? options_.stop_position : UINT64_MAX;
  Event ev;
  bool seeked = start <= 4;
  while (reader.Next(ev)) {
    if (!ev.in_payload && ev.offset >= stop) break;
    if (!seeked) {
      // The FORMAT_DESCRIPTION at offset 4 is always read; then jump to the start position.
      if (ev.type() == EventType::kFormatDescription || ev.offset + ev.bytes.size() > start) {
        file.Seek(start);
        seeked = true;
      }
      continue;
    }
    OnEvent(ev, reader.format(), reader.tables());
    MaybeFlush();
  }
}

void BinlogDumper::DumpStream(BinlogEventReader& reader) {
  Event ev;
  while (reader.Next(ev)) {
    bool in_stop_file = options_.stop_file.empty() || ev.file == options_.stop_file;
    // Artificial events (offset 0: the first ROTATE, a re-sent FORMAT_DESCRIPTION) never stop.
    if (!ev.in_payload && ev.offset != 0 && in_stop_file && ev.offset >= options_.stop_position)
      break;
    if (ev.type() == EventType::kHeartbeat || ev.type() == EventType::kHeartbeatV2) continue;
    OnEvent(ev, reader.format(), reader.tables());
    // A live stream can be slow: show what arrived instead of holding it in the buffer.
    Finish();
  }
}

void BinlogDumper::OnEvent(const Event& ev, const FormatDescription& format,
                           const TableMapCache& tables) {
  switch (ev.type()) {
    case EventType::kGtid:
    case EventType::kAnonymousGtid:
    case EventType::kGtidTagged: {
      GtidEvent g = ParseGtidEvent(ev);
      gtid_ = g.anonymous ? std::string() : g.ToString();
      break;
    }
    case EventType::kMariaGtid:
      gtid_ = ParseMariaGtidEvent(ev).gtid.ToString();
      break;
    default:
      break;
  }
  if (options_.format == DumpFormat::kEvents) {
    PrintEventLine(ev, format);
    return;
  }
  if (IsRowsEvent(ev.type())) PrintRows(ev, format, tables);
}

void BinlogDumper::PrintEventLine(const Event& ev, const FormatDescription& format) {
  auto& o = buffer_;
  fmt::format_to(std::back_inserter(o), "{}{}\t{}({})\tsize={}\tend_log_pos={}",
                 ev.in_payload ? "  " : "", ev.offset, EventTypeName(ev.type()),
                 static_cast<unsigned>(ev.type()), ev.bytes.size(), ev.header.log_pos);
  switch (ev.type()) {
    case EventType::kFormatDescription:
      fmt::format_to(std::back_inserter(o), "\tserver={} checksum={}", format.server_version,
                     format.HasChecksum() ? "CRC32" : "NONE");
      break;
    case EventType::kRotate: {
      RotateEvent r = ParseRotateEvent(ev, format);
      fmt::format_to(std::back_inserter(o), "\tnext={}:{}", r.next_file, r.position);
      break;
    }
    case EventType::kQuery:
    case EventType::kMariaQueryCompressed:
    case EventType::kExecuteLoadQuery: {
      QueryEvent q = ParseQueryEvent(ev, format, scratch_);
      o += "\tdb=";
      o += q.database;
      o += "\tsql=";
      AppendJsonString(q.sql.substr(0, 200), o);
      break;
    }
    case EventType::kTableMap: {
      TableMap m = ParseTableMap(ev, format);
      fmt::format_to(std::back_inserter(o), "\ttable_id={} {}.{} columns={}", m.table_id,
                     m.database, m.table, m.columns.size());
      break;
    }
    case EventType::kGtid:
    case EventType::kAnonymousGtid:
    case EventType::kGtidTagged:
      fmt::format_to(std::back_inserter(o), "\t{}", ParseGtidEvent(ev).ToString());
      break;
    case EventType::kMariaGtid:
      fmt::format_to(std::back_inserter(o), "\t{}", ParseMariaGtidEvent(ev).gtid.ToString());
      break;
    case EventType::kPreviousGtids:
      fmt::format_to(std::back_inserter(o), "\t{}", FormatGtidSet(ParsePreviousGtids(ev)));
      break;
    case EventType::kMariaGtidList: {
      auto list = ParseMariaGtidList(ev);
      o += "\t[";
      for (size_t i = 0; i < list.size(); ++i) {
        if (i) o += ',';
        o += list[i].ToString();
      }
      o += ']';
      break;
    }
    case EventType::kXid:
      fmt::format_to(std::back_inserter(o), "\txid={}", ParseXidEvent(ev));
      break;
    default:
      if (IsRowsEvent(ev.type())) {
        RowsEvent rows = ParseRowsEvent(ev, format, scratch_);
        fmt::format_to(std::back_inserter(o), "\ttable_id={} flags={}", rows.table_id, rows.flags);
      }
      break;
  }
  o += '\n';
}

void BinlogDumper::PrintRows(const Event& ev, const FormatDescription& format,
                             const TableMapCache& tables) {
  RowsEvent rows = ParseRowsEvent(ev, format, scratch_);
  const TableInfo* table = tables.Find(rows.table_id);
  if (table == nullptr) {
    if (rows.rows.empty()) return;  // the dummy end-of-statement event of old servers
    Fail(ErrorCode::kCorruption, "{} at offset {}: rows event for table id {} without a TABLE_MAP",
         ev.context, ev.offset, rows.table_id);
  }
  cursor_.Reset(rows, *table);
  while (cursor_.Next()) {
    if (options_.format == DumpFormat::kMysqlbinlog) {
      PrintMysqlbinlogRow(rows, *table);
    } else {
      PrintJsonRow(ev, rows, *table);
    }
  }
}

void BinlogDumper::PrintMysqlbinlogRow(const RowsEvent& rows, const TableInfo& table) {
  auto& o = buffer_;
  auto image = [&](std::span<const Cell> cells) {
    for (const Cell& c : cells) {
      fmt::format_to(std::back_inserter(o), "###   @{}=", c.index + 1);
      AppendMysqlbinlogValue(c, o);
      o += '\n';
    }
  };
  const auto& m = table.map;
  switch (rows.kind) {
    case RowsKind::kWrite:
      fmt::format_to(std::back_inserter(o), "### INSERT INTO `{}`.`{}`\n### SET\n", m.database,
                     m.table);
      image(cursor_.after());
      break;
    case RowsKind::kUpdate:
      fmt::format_to(std::back_inserter(o), "### UPDATE `{}`.`{}`\n### WHERE\n", m.database,
                     m.table);
      image(cursor_.before());
      o += "### SET\n";
      image(cursor_.after());
      break;
    case RowsKind::kDelete:
      fmt::format_to(std::back_inserter(o), "### DELETE FROM `{}`.`{}`\n### WHERE\n", m.database,
                     m.table);
      image(cursor_.before());
      break;
  }
}

void BinlogDumper::AppendJsonImage(std::span<const Cell> cells) {
  auto& o = buffer_;
  o += '{';
  bool first = true;
  for (const Cell& c : cells) {
    if (!first) o += ',';
    first = false;
    if (!c.column->name.empty()) {
      AppendJsonString(c.column->name, o);
    } else {
      fmt::format_to(std::back_inserter(o), "\"@{}\"", c.index + 1);
    }
    o += ':';
    AppendJsonValue(c, o);
  }
  o += '}';
}

void BinlogDumper::PrintJsonRow(const Event& ev, const RowsEvent& rows, const TableInfo& table) {
  auto& o = buffer_;
  o += "{\"database\":";
  AppendJsonString(table.map.database, o);
  o += ",\"table\":";
  AppendJsonString(table.map.table, o);
  fmt::format_to(std::back_inserter(o), ",\"type\":\"{}\",\"file\":", KindName(rows.kind));
  AppendJsonString(ev.file, o);
  fmt::format_to(std::back_inserter(o), ",\"pos\":{},\"gtid\":", ev.offset);
  if (gtid_.empty()) {
    o += "null";
  } else {
    AppendJsonString(gtid_, o);
  }
  fmt::format_to(std::back_inserter(o), ",\"timestamp\":{}", ev.header.timestamp);
  switch (rows.kind) {
    case RowsKind::kWrite:
      o += ",\"values\":";
      AppendJsonImage(cursor_.after());
      break;
    case RowsKind::kUpdate:
      o += ",\"before\":";
      AppendJsonImage(cursor_.before());
      o += ",\"after\":";
      AppendJsonImage(cursor_.after());
      break;
    case RowsKind::kDelete:
      o += ",\"values\":";
      AppendJsonImage(cursor_.before());
      break;
  }
  o += "}\n";
}

namespace {

struct DumpArgs {
  std::vector<std::string> files;
  std::string format = "mysqlbinlog";
  uint64_t start = 4;
  uint64_t stop = UINT64_MAX;
  // Live mode.
  std::string host;
  uint16_t port = 3306;
  std::string user = "root";
  std::string password;
  uint32_t server_id = 0;
  std::string start_file;
  std::string start_gtid;
  std::string stop_file;
  bool follow = false;
  std::string tls_mode = "preferred";
  std::string ssl_ca;
  double heartbeat_s = 1.0;
};

std::unique_ptr<mysql::ReplicationEventSource> OpenLiveSource(const DumpArgs& a) {
  mysql::ConnectOptions connect;
  connect.host = a.host;
  connect.port = a.port;
  connect.user = a.user;
  connect.password = a.password;
  connect.tls.mode = ParseTlsMode(a.tls_mode);
  connect.tls.ca_file = a.ssl_ca;
  connect.program_name = "rowbridge dump-binlog";
  auto connection = mysql::Connection::Connect(connect);

  mysql::BinlogStreamOptions stream;
  // A replica id no real replica is likely to use; --server-id overrides it.
  stream.server_id =
      a.server_id ? a.server_id : 0x7f000000u + (static_cast<uint32_t>(getpid()) & 0xffffff);
  stream.non_blocking = !a.follow;
  stream.heartbeat_period = std::chrono::milliseconds(static_cast<int64_t>(a.heartbeat_s * 1000));
  if (!a.start_gtid.empty()) {
    // MySQL GTID sets name a server UUID ("uuid:1-5"); MariaDB positions are domain-server-seq.
    if (a.start_gtid.find(':') != std::string::npos) {
      stream.mode = mysql::BinlogStartMode::kMysqlGtid;
      stream.mysql_gtids = mysql::MysqlGtidSet::Parse(a.start_gtid);
    } else {
      stream.mode = mysql::BinlogStartMode::kMariadbGtid;
      stream.mariadb_gtids = mysql::MariadbGtidPosition::Parse(a.start_gtid);
    }
  } else {
    stream.mode = mysql::BinlogStartMode::kFilePosition;
    stream.file = a.start_file;
    stream.position = a.start;
  }
  return std::make_unique<mysql::ReplicationEventSource>(
      mysql::BinlogStream::Start(std::move(connection), stream));
}

}  // namespace

void RegisterDumpBinlog(CLI::App& app) {
  auto args = std::make_shared<DumpArgs>();
  CLI::App* cmd = app.add_subcommand(
      "dump-binlog",
      "Decode binlog files, or a live replication stream from a server, and print their row "
      "changes (like mysqlbinlog -v), as JSON lines, or as an event list");
  cmd->add_option("files", args->files, "binlog files, read in the order given");
  cmd->add_option("--format", args->format,
                  "mysqlbinlog: the ### lines of `mysqlbinlog --base64-output=decode-rows -v`; "
                  "json: one object per row change (insert/delete: \"values\", update: "
                  "\"before\"/\"after\"); events: one line per event")
      ->check(CLI::IsMember({"mysqlbinlog", "json", "events"}));
  cmd->add_option("--start-position", args->start,
                  "start at the event at this offset of the first file");
  cmd->add_option("--stop-position", args->stop,
                  "stop before the first event at or after this offset of the last file "
                  "(live: of --stop-file, or of any file)");
  auto* live = cmd->add_option_group("live", "read from a server's replication stream");
  auto* host = live->add_option("--host", args->host, "source host: read live instead of files");
  live->add_option("--port", args->port, "source port");
  live->add_option("--user", args->user, "replication user");
  live->add_option("--password", args->password, "password (better: env MYSQL_PWD)")
      ->envname("MYSQL_PWD");
  live->add_option("--server-id", args->server_id,
                   "our replica server_id (default: derived from the pid)");
  live->add_option("--start-file", args->start_file,
                   "binlog file to start in (default: the oldest the source has)");
  live->add_option("--start-gtid", args->start_gtid,
                   "start after these transactions: a MySQL GTID set (uuid:1-5) or a MariaDB GTID "
                   "position (0-1-42)");
  live->add_option("--stop-file", args->stop_file, "the file --stop-position applies to");
  live->add_flag("--follow", args->follow,
                 "keep waiting for new events (default: stop at the end of the source's binlog)");
  live->add_option("--tls-mode", args->tls_mode,
                   "disabled, preferred, required, verify-ca or verify-identity");
  live->add_option("--ssl-ca", args->ssl_ca, "CA file for verify-ca / verify-identity");
  live->add_option("--heartbeat", args->heartbeat_s,
                   "seconds between source heartbeats; silence for 3 periods is an error");
  cmd->callback([args, host] {
    DumpBinlogOptions options;
    options.format = args->format == "json"     ? DumpFormat::kJson
                     : args->format == "events" ? DumpFormat::kEvents
                                                : DumpFormat::kMysqlbinlog;
    options.start_position = args->start;
    options.stop_position = args->stop;
    options.stop_file = args->stop_file;
    bool is_live = host->count() > 0;
    if (is_live == !args->files.empty())
      Fail(ErrorCode::kInvalidArgument,
           "dump-binlog: give either binlog files or --host for a live stream");
    BinlogDumper dumper(options, stdout);
    try {
      if (is_live) {
        auto source = OpenLiveSource(*args);
        BinlogEventReader reader(*source);
        reader.decoder().SetChecksumBeforeFormat(source->checksum());
        dumper.DumpStream(reader);
      } else {
        for (size_t i = 0; i < args->files.size(); ++i) {
          dumper.DumpFile(args->files[i], i == 0, i + 1 == args->files.size());
        }
      }
    } catch (...) {
      dumper.Finish();  // print what was decoded before the error
      throw;
    }
    dumper.Finish();
  });
}

}  // namespace rowbridge::cli
