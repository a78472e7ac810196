// BinlogEventReader turns an EventSource into decoded Events: it frames and checks each event
// (EventDecoder), keeps the TABLE_MAP cache current, clears it at each FORMAT_DESCRIPTION, and
// expands TRANSACTION_PAYLOAD events: Next() returns the payload event itself, then each inner
// event with Event::in_payload set.
//
//   BinlogFileReader file("mysql-bin.000003");
//   BinlogEventReader reader(file);
//   Event ev;
//   while (reader.Next(ev)) {
//     if (IsRowsEvent(ev.type())) {
//       RowsEvent rows = ParseRowsEvent(ev, reader.format(), scratch);
//       const TableInfo* table = reader.tables().Find(rows.table_id);
//       ...
//     }
//   }
#pragma once

#include <cstdint>
#include <string>

#include "binlog/event.h"
#include "binlog/event_decoder.h"
#include "binlog/event_source.h"
#include "binlog/table_map_cache.h"
#include "binlog/transaction_payload.h"
#include "common/retain_policy.h"

namespace rowbridge::binlog {

struct BinlogEventReaderOptions {
  // Upper bound for one decompressed TRANSACTION_PAYLOAD.
  size_t max_payload_size = size_t{1} << 30;
};

class BinlogEventReader {
 public:
  explicit BinlogEventReader(EventSource& source, BinlogEventReaderOptions options = {});

  // The next event; false at the source's clean end. The Event's views are valid until the
  // next call.
  bool Next(Event& event);

  const FormatDescription& format() const { return decoder_.format(); }
  EventDecoder& decoder() { return decoder_; }
  TableMapCache& tables() { return tables_; }

 private:
  void Track(const Event& event);

  EventSource& source_;
  BinlogEventReaderOptions options_;
  EventDecoder decoder_;
  TableMapCache tables_;
  std::string source_file_;
  // TRANSACTION_PAYLOAD expansion state.
  std::string payload_buffer_;
  RetainPolicy payload_policy_{size_t{4} << 20, std::chrono::seconds(5)};
  std::string payload_context_;
  PayloadEventIterator payload_events_;
  bool in_payload_ = false;
};

}  // namespace rowbridge::binlog
