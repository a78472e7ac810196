#include "binlog/binlog_event_reader.h"

#include <fmt/format.h>

namespace rowbridge::binlog {

BinlogEventReader::BinlogEventReader(EventSource& source, BinlogEventReaderOptions options)
    : source_(source), options_(options) {}

void BinlogEventReader::Track(const Event& event) {
  switch (event.type()) {
    case EventType::kFormatDescription:
      if (!event.in_payload) tables_.Clear();
      break;
    case EventType::kTableMap:
      tables_.Update(event, decoder_.format());
      break;
    default:
      break;
  }
}

bool BinlogEventReader::Next(Event& event) {
  if (in_payload_) {
    if (payload_events_.Next(event)) {
      Track(event);
      return true;
    }
    in_payload_ = false;
    // A transaction of 100 MB decompressed would otherwise keep that buffer for the whole run.
    if (payload_policy_.ReleaseAfter(payload_buffer_.size(), payload_buffer_.capacity()))
      std::string().swap(payload_buffer_);
  }
  RawEvent raw;
  if (!source_.Next(raw)) return false;
  std::string_view name = source_.file_name();
  if (!name.empty() && name != source_file_) {
    source_file_.assign(name);
    decoder_.SetFile(name);
  }
  event = decoder_.Decode(raw.bytes, raw.offset);
  Track(event);
  if (event.type() == EventType::kTransactionPayload) {
    TransactionPayloadEvent payload = ParseTransactionPayload(event);
    DecompressTransactionPayload(payload, payload_buffer_, options_.max_payload_size, event.context,
                                 event.offset);
    payload_context_ = fmt::format("{}, TRANSACTION_PAYLOAD at offset {} (decompressed)",
                                   event.context, event.offset);
    payload_events_ = PayloadEventIterator(payload_buffer_, event, payload_context_);
    in_payload_ = true;
  }
  return true;
}

}  // namespace rowbridge::binlog
