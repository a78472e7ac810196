#include "mysql/start_position.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <optional>
#include <vector>

#include "common/error.h"
#include "mysql/sql_quote.h"

namespace rowbridge::mysql {
namespace {

constexpr std::string_view kForms =
    "now, earliest, FILE:POS (e.g. mysql-bin.000042:1234) or a GTID set (MySQL uuid:1-100, "
    "MariaDB 0-1-100)";

struct BinlogFile {
  std::string name;
  uint64_t size = 0;
};

std::vector<BinlogFile> ListBinlogs(Connection& c) {
  std::vector<BinlogFile> files;
  for (const auto& row : c.QueryRows("SHOW BINARY LOGS")) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    files.push_back({*row[0], std::strtoull(row[1]->c_str(), nullptr, 10)});
  }
  if (files.empty()) {
    Fail(ErrorCode::kConfig, "source {} lists no binary logs (SHOW BINARY LOGS is empty)",
         c.peer());
  }
  return files;
}

// 8-4-4-4-12 hex digits: the server uuid of a MySQL GTID, never a binlog file name.
bool LooksLikeUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  }
  return true;
}

// The GTID a Gtid row of SHOW BINLOG EVENTS names: MySQL "SET @@SESSION.GTID_NEXT= 'uuid:n'"
// (or 'uuid:tag:n'), MariaDB "BEGIN GTID 0-1-5" / "GTID 0-1-5".
struct EventGtid {
  std::string mysql;    // "uuid[:tag]:n"
  std::string mariadb;  // "d-s-n"
};

std::optional<EventGtid> GtidOfEvent(std::string_view info, bool mariadb) {
  if (mariadb) {
    const size_t at = info.find("GTID ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = info.substr(at + 5);
    const size_t end = rest.find_first_of(" \t");
    return EventGtid{"", std::string(rest.substr(0, end))};
  }
  const size_t open = info.find('\'');
  const size_t close = open == std::string_view::npos ? open : info.find('\'', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return EventGtid{std::string(info.substr(open + 1, close - open - 1)), ""};
}

bool MysqlSetContains(const MysqlGtidSet& set, std::string_view gtid) {
  const size_t first = gtid.find(':');
  const size_t last = gtid.rfind(':');
  if (first == std::string_view::npos) return false;
  const Uuid uuid = Uuid::Parse(gtid.substr(0, first));
  const std::string_view tag =
      first == last ? std::string_view() : gtid.substr(first + 1, last - first - 1);
  uint64_t gno = 0;
  std::from_chars(gtid.data() + last + 1, gtid.data() + gtid.size(), gno);
  return set.Contains(uuid, tag, gno);
}

bool MariadbPositionContains(const MariadbGtidPosition& position, std::string_view gtid) {
  const MariadbGtid g = MariadbGtid::Parse(gtid);
  const std::optional<MariadbGtid> reached = position.Find(g.domain_id);
  return reached && g.sequence <= reached->sequence;
}

// The GTID state a binlog file's header states (MySQL Previous_gtids: every transaction before
// the file; MariaDB Gtid_list: the last GTID of each domain before it), as text; nullopt if the
// file has no such header.
std::optional<std::string> HeaderGtidState(Connection& c, const std::string& file) {
  ResultSet rs = c.Query("SHOW BINLOG EVENTS IN " + QuoteString(file) + " LIMIT 4");
  const size_t type_column = rs.ColumnIndex("Event_type");
  const size_t info_column = rs.ColumnIndex("Info");
  std::optional<std::string> state;
  while (rs.Next()) {
    const std::string_view type = rs.Field(type_column);
    if (state || (type != "Previous_gtids" && type != "Gtid_list")) continue;
    std::string_view info = rs.Field(info_column);
    if (info.starts_with('[') && info.ends_with(']')) info = info.substr(1, info.size() - 2);
    state = std::string(info);
  }
  return state;
}

BinlogPosition ResolveGtidSet(Connection& c, const StartAt& start) {
  const bool mariadb = c.is_mariadb();
  std::optional<MysqlGtidSet> mysql_set;
  std::optional<MariadbGtidPosition> mariadb_position;
  try {
    if (mariadb) {
      mariadb_position = MariadbGtidPosition::Parse(start.gtid_set);
    } else {
      mysql_set = MysqlGtidSet::Parse(start.gtid_set);
    }
  } catch (const Error& e) {
    Fail(ErrorCode::kConfig, "--start-at {}: not a {} GTID set ({})", start.text,
         mariadb ? "MariaDB" : "MySQL", e.what());
  }
  // Skip the files every transaction of which the set holds: scan from the newest file whose header
  // state the set covers, so a start near the end does not read the whole binlog index.
  const std::vector<BinlogFile> files = ListBinlogs(c);
  size_t first_file = 0;
  for (size_t i = files.size(); i-- > 0;) {
    const std::optional<std::string> header = HeaderGtidState(c, files[i].name);
    if (!header) continue;
    bool covered = true;
    if (mariadb) {
      for (const MariadbGtid& g : MariadbGtidPosition::Parse(*header).gtids()) {
        const std::optional<MariadbGtid> reached = mariadb_position->Find(g.domain_id);
        covered = covered && reached && g.sequence <= reached->sequence;
      }
    } else {
      MysqlGtidSet merged = *mysql_set;
      merged.Merge(MysqlGtidSet::Parse(*header));
      covered = merged == *mysql_set;
    }
    if (covered) {
      first_file = i;
      break;
    }
  }
  for (size_t i = first_file; i < files.size(); ++i) {
    const BinlogFile& file = files[i];
    ResultSet rs = c.Query("SHOW BINLOG EVENTS IN " + QuoteString(file.name));
    const size_t pos_column = rs.ColumnIndex("Pos");
    const size_t type_column = rs.ColumnIndex("Event_type");
    const size_t info_column = rs.ColumnIndex("Info");
    std::optional<BinlogPosition> found;
    while (rs.Next()) {
      // Drain the rest of the result once found. MariaDB's "Gtid_list" is a header, not a GTID.
      const std::string_view type = rs.Field(type_column);
      if (found || !type.starts_with("Gtid") || type == "Gtid_list") continue;
      const std::optional<EventGtid> gtid = GtidOfEvent(rs.Field(info_column), mariadb);
      if (!gtid) continue;
      const bool inside = mariadb ? MariadbPositionContains(*mariadb_position, gtid->mariadb)
                                  : MysqlSetContains(*mysql_set, gtid->mysql);
      if (inside) continue;
      BinlogPosition p;
      p.file = file.name;
      p.position = std::strtoull(std::string(rs.Field(pos_column)).c_str(), nullptr, 10);
      found = p;
    }
    if (found) {
      return *found;
    }
  }
  // Every transaction the binlogs hold is in the set: start at the end.
  BinlogPosition end = CurrentBinlogPosition(c);
  end.mysql_gtids = {};
  end.mariadb_gtids = {};
  return end;
}

}  // namespace

StartAt ParseStartAt(std::string_view text) {
  StartAt out;
  out.text = std::string(text);
  if (text == "now") return out;
  if (text == "earliest") {
    out.kind = StartAt::Kind::kEarliest;
    return out;
  }
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos && colon > 0 && AllDigits(text.substr(colon + 1)) &&
      text.find(':') == colon && text.find(',') == std::string_view::npos &&
      !LooksLikeUuid(text.substr(0, colon))) {
    out.kind = StartAt::Kind::kFilePosition;
    out.file = std::string(text.substr(0, colon));
    out.position = std::strtoull(std::string(text.substr(colon + 1)).c_str(), nullptr, 10);
    if (out.position < 4) {
      Fail(ErrorCode::kInvalidArgument,
           "--start-at {}: a binlog's first event is at position 4 or later", text);
    }
    return out;
  }
  const bool gtid_like = !text.empty() && (text.find(':') != std::string_view::npos ||
                                           text.find('-') != std::string_view::npos);
  if (!gtid_like) {
    Fail(ErrorCode::kInvalidArgument, "--start-at {}: expected {}", text, kForms);
  }
  out.kind = StartAt::Kind::kGtidSet;
  out.gtid_set = std::string(text);
  return out;
}

BinlogPosition ResolveStartAt(Connection& c, const StartAt& start) {
  switch (start.kind) {
    case StartAt::Kind::kNow:
      return CurrentBinlogPosition(c);
    case StartAt::Kind::kEarliest: {
      BinlogPosition p;
      p.file = ListBinlogs(c).front().name;
      p.position = 4;
      return p;
    }
    case StartAt::Kind::kFilePosition: {
      const std::vector<BinlogFile> files = ListBinlogs(c);
      for (const BinlogFile& file : files) {
        if (file.name != start.file) continue;
        // The last file is the one being written: it may grow past its listed size meanwhile.
        if (start.position >= file.size && &file != &files.back()) {
          Fail(ErrorCode::kConfig, "--start-at {}: {} has only {} bytes", start.text, file.name,
               file.size);
        }
        BinlogPosition p;
        p.file = file.name;
        p.position = start.position;
        return p;
      }
      std::string names;
      for (const BinlogFile& file : files) names += (names.empty() ? "" : ", ") + file.name;
      Fail(ErrorCode::kConfig,
           "--start-at {}: the source {} has no binlog {} (purged, or another server's?); it has "
           "{}",
           start.text, c.peer(), start.file, names);
    }
    case StartAt::Kind::kGtidSet:
      return ResolveGtidSet(c, start);
  }
  Fail(ErrorCode::kInternal, "unknown --start-at kind");
}

}  // namespace rowbridge::mysql
