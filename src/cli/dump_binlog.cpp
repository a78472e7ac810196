#include "cli/dump_binlog.h"

#include <fmt/format.h>

#include <vector>

#include "binlog/binlog_event_reader.h"
#include "binlog/binlog_file_reader.h"
#include "binlog/control_events.h"
#include "binlog/gtid_events.h"
#include "binlog/query_event.h"
#include "binlog/rows_event.h"
#include "binlog/table_map_event.h"
#include "binlog/transaction_payload.h"
#include "binlog/value_format.h"
#include "common/error.h"

namespace rowbridge::cli {

using namespace rowbridge::binlog;

namespace {

void AppendJsonString(std::string_view s, std::string& out) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

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

void RegisterDumpBinlog(CLI::App& app) {
  struct Args {
    std::vector<std::string> files;
    std::string format = "mysqlbinlog";
    uint64_t start = 4;
    uint64_t stop = UINT64_MAX;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "dump-binlog",
      "Decode binlog files and print their row changes (like mysqlbinlog -v), as JSON lines, or "
      "as an event list");
  cmd->add_option("files", args->files, "binlog files, read in the order given")->required();
  cmd->add_option("--format", args->format,
                  "mysqlbinlog: the ### lines of `mysqlbinlog --base64-output=decode-rows -v`; "
                  "json: one object per row change (insert/delete: \"values\", update: "
                  "\"before\"/\"after\"); events: one line per event")
      ->check(CLI::IsMember({"mysqlbinlog", "json", "events"}));
  cmd->add_option("--start-position", args->start,
                  "start at the event at this offset of the first file");
  cmd->add_option("--stop-position", args->stop,
                  "stop before the first event at or after this offset of the last file");
  cmd->callback([args] {
    DumpBinlogOptions options;
    options.format = args->format == "json"     ? DumpFormat::kJson
                     : args->format == "events" ? DumpFormat::kEvents
                                                : DumpFormat::kMysqlbinlog;
    options.start_position = args->start;
    options.stop_position = args->stop;
    BinlogDumper dumper(options, stdout);
    try {
      for (size_t i = 0; i < args->files.size(); ++i) {
        dumper.DumpFile(args->files[i], i == 0, i + 1 == args->files.size());
      }
    } catch (...) {
      dumper.Finish();  // print what was decoded before the error
      throw;
    }
    dumper.Finish();
  });
}

}  // namespace rowbridge::cli
