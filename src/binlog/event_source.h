// Where raw events come from: a binlog file (BinlogFileReader) or a live replication stream (the
// MySQL protocol side implements this over its COM_BINLOG_DUMP packets). A source only frames
// events; EventDecoder / BinlogEventReader do the rest.
#pragma once

#include <cstdint>
#include <string_view>

namespace rowbridge::binlog {

struct RawEvent {
  std::string_view bytes;  // exactly one event, header to checksum; valid until the next Next()
  uint64_t offset = 0;     // position of the event's first byte in its binlog file
};

class EventSource {
 public:
  virtual ~EventSource() = default;
  // The next event, or false at a clean end (end of file, or stop position reached).
  virtual bool Next(RawEvent& event) = 0;
  // The binlog file the last event came from, or "" if the source does not know (a stream
  // learns it from ROTATE events, which the decoder tracks).
  virtual std::string_view file_name() const = 0;
};

// A source over one event handed over at a time (a replication stream that already has the
// bytes): Push() sets the next event, Next() returns it once.
class SingleEventSource : public EventSource {
 public:
  void Push(std::string_view bytes, uint64_t offset) {
    event_ = {bytes, offset};
    pending_ = true;
  }
  bool Next(RawEvent& event) override {
    if (!pending_) return false;
    event = event_;
    pending_ = false;
    return true;
  }
  std::string_view file_name() const override { return {}; }

 private:
  RawEvent event_;
  bool pending_ = false;
};

}  // namespace rowbridge::binlog
