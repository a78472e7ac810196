// libFuzzer target: feeds arbitrary bytes through the binlog event decoder as a sequence of
// framed events (each event's size comes from its own header, as in a file), parses every event
// type, keeps TABLE_MAPs, walks every rows event with RowCursor and formats every value, and
// (first) the one-pass way, RowCursor::NextInto, reading every value's first and last byte.
// rowbridge::Error is the expected outcome for garbage; anything else (a crash, a sanitizer
// report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/binlog_event_reader.h"
#include "binlog/control_events.h"
#include "binlog/event_source.h"
#include "binlog/gtid_events.h"
#include "binlog/query_event.h"
#include "binlog/row_cursor.h"
#include "binlog/rows_event.h"
#include "binlog/table_map_event.h"
#include "binlog/value_format.h"
#include "common/error.h"

namespace {

using namespace rowbridge::binlog;

// Reads each value's ends (into a volatile, so the reads stay), so the sanitizers see any value
// handed out past the event.
volatile unsigned g_touched = 0;
struct TouchingSink {
  void Value(size_t, const uint8_t* data, size_t size) {
    if (size != 0) g_touched = data[0] + data[size - 1];
  }
  void Null(size_t) {}
};

// Frames events from a memory buffer like BinlogFileReader frames them from a file.
class MemorySource : public EventSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  bool Next(RawEvent& event) override {
    if (pos_ >= data_.size()) return false;
    if (data_.size() - pos_ < 19)
      rowbridge::Fail(rowbridge::ErrorCode::kCorruption, "truncated header");
    auto* h = reinterpret_cast<const uint8_t*>(data_.data() + pos_);
    uint32_t size = h[9] | h[10] << 8 | h[11] << 16 | static_cast<uint32_t>(h[12]) << 24;
    if (size < 19 || size > data_.size() - pos_)
      rowbridge::Fail(rowbridge::ErrorCode::kCorruption, "bad size");
    event = {data_.substr(pos_, size), pos_ + 4};
    pos_ += size;
    return true;
  }
  std::string_view file_name() const override { return "fuzz"; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

void Exercise(const Event& ev, BinlogEventReader& reader, RowCursor& cursor, std::string& scratch,
              std::string& text) {
  const FormatDescription& fd = reader.format();
  switch (ev.type()) {
    case EventType::kRotate:
      ParseRotateEvent(ev, fd, true);
      break;
    case EventType::kQuery:
    case EventType::kMariaQueryCompressed:
    case EventType::kExecuteLoadQuery:
      ParseQueryEvent(ev, fd, scratch);
      break;
    case EventType::kTableMap:
      ParseTableMap(ev, fd);
      break;
    case EventType::kGtid:
    case EventType::kAnonymousGtid:
    case EventType::kGtidTagged:
      ParseGtidEvent(ev).ToString();
      break;
    case EventType::kPreviousGtids:
      FormatGtidSet(ParsePreviousGtids(ev));
      break;
    case EventType::kMariaGtid:
      ParseMariaGtidEvent(ev);
      break;
    case EventType::kMariaGtidList:
      ParseMariaGtidList(ev);
      break;
    case EventType::kMariaBinlogCheckpoint:
      ParseBinlogCheckpoint(ev);
      break;
    case EventType::kXid:
      ParseXidEvent(ev);
      break;
    case EventType::kIntvar:
      ParseIntvarEvent(ev);
      break;
    case EventType::kRand:
      ParseRandEvent(ev);
      break;
    case EventType::kUserVar:
      ParseUserVarEvent(ev);
      break;
    case EventType::kHeartbeat:
    case EventType::kHeartbeatV2:
      ParseHeartbeatEvent(ev);
      break;
    case EventType::kRowsQuery:
    case EventType::kMariaAnnotateRows:
      ParseRowsQueryText(ev);
      break;
    case EventType::kBeginLoadQuery:
    case EventType::kAppendBlock:
      ParseLoadBlockEvent(ev);
      break;
    case EventType::kIncident:
      ParseIncidentEvent(ev);
      break;
    default:
      break;
  }
  if (!IsRowsEvent(ev.type())) return;
  RowsEvent rows = ParseRowsEvent(ev, fd, scratch);
  const TableInfo* table = reader.tables().Find(rows.table_id);
  if (table == nullptr) return;
  cursor.Reset(rows, *table);
  if (cursor.full_images()) {
    TouchingSink sink;
    try {
      while (!cursor.AtEnd()) cursor.NextInto(sink);
    } catch (const rowbridge::Error&) {
      // Then the walk by cells below, which must fail the same way.
    }
    cursor.Reset(rows, *table);
  }
  while (cursor.Next()) {
    for (const Cell& c : cursor.before()) {
      text.clear();
      AppendMysqlbinlogValue(c, text);
      AppendJsonValue(c, text);
    }
    for (const Cell& c : cursor.after()) {
      text.clear();
      AppendMysqlbinlogValue(c, text);
      AppendJsonValue(c, text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  MemorySource source(std::string_view(reinterpret_cast<const char*>(data), size));
  BinlogEventReaderOptions options;
  options.max_payload_size = 1 << 20;
  BinlogEventReader reader(source, options);
  RowCursor cursor;
  std::string scratch, text;
  Event ev;
  try {
    while (reader.Next(ev)) {
      try {
        Exercise(ev, reader, cursor, scratch, text);
      } catch (const rowbridge::Error&) {
        // One bad event; keep going so later events are exercised too.
      }
    }
  } catch (const rowbridge::Error&) {
  }
  return 0;
}
