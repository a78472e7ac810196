#include "binlog/event_decoder.h"

#include "binlog/checksum.h"
#include "binlog/control_events.h"
#include "common/error.h"

namespace rowbridge::binlog {

EventDecoder::EventDecoder() : format_(DefaultFormatDescription(ChecksumAlgorithm::kOff)) {
  SetFile("");
}

void EventDecoder::SetFile(std::string_view name) {
  file_.assign(name);
  context_ = name.empty() ? std::string("binlog stream") : "binlog " + file_;
  has_pending_file_ = false;
}

void EventDecoder::SetChecksumBeforeFormat(ChecksumAlgorithm checksum) {
  checksum_before_format_ = checksum;
  if (!has_format_) format_.checksum = checksum;
}

Event EventDecoder::Decode(std::string_view bytes, uint64_t offset) {
  if (has_pending_file_) SetFile(pending_file_);
  ByteReader r(bytes, offset, context_);
  Event ev;
  ev.header = ReadEventHeader(r);
  if (ev.header.event_size != bytes.size()) {
    r.Corrupt(fmt::format("event size {} in the header differs from the {} bytes framed",
                          ev.header.event_size, bytes.size()));
  }
  ev.bytes = bytes;
  ev.offset = offset;
  ev.end_offset = offset + bytes.size();
  ev.body_offset = offset + kEventHeaderSize;
  ev.context = context_;
  ev.file = file_;
  size_t footer = 0;
  if (ev.header.type == EventType::kFormatDescription) {
    format_ = ParseFormatDescription(bytes, context_, offset);
    has_format_ = true;
    if (format_.checksum_aware) footer = 4;
  } else {
    if (format_.HasChecksum()) {
      VerifyEventChecksum(bytes, context_, offset);
      footer = 4;
    }
  }
  if (bytes.size() < kEventHeaderSize + footer) {
    r.Corrupt(fmt::format("event of {} bytes is too short", bytes.size()));
  }
  ev.body = bytes.substr(kEventHeaderSize, bytes.size() - kEventHeaderSize - footer);

  switch (ev.header.type) {
    case EventType::kRotate: {
      RotateEvent rot = ParseRotateEvent(ev, format_, !has_format_);
      pending_file_.assign(rot.next_file);
      has_pending_file_ = true;
      break;
    }
    case EventType::kMariaStartEncryption:
      Fail(ErrorCode::kUnsupported,
           "{} at offset {}: the binlog is encrypted (START_ENCRYPTION event); rowbridge cannot "
           "read encrypted binlogs — read them through the server's replication stream instead",
           context_, offset);
    default:
      break;
  }
  return ev;
}

}  // namespace rowbridge::binlog
