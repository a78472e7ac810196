#include "mysql/replication_event_source.h"

#include "binlog/event_header.h"
#include "common/byte_reader.h"

namespace rowbridge::mysql {

ReplicationEventSource::ReplicationEventSource(std::unique_ptr<BinlogStream> stream)
    : owned_(std::move(stream)), stream_(owned_.get()) {}

ReplicationEventSource::ReplicationEventSource(BinlogStream& stream) : stream_(&stream) {}

bool ReplicationEventSource::Next(binlog::RawEvent& event) {
  std::optional<std::string_view> bytes = stream_->Next();
  if (!bytes) return false;
  event.bytes = *bytes;
  event.offset = 0;
  // A header too short to read is the decoder's to report, with its context.
  if (bytes->size() < binlog::kEventHeaderSize) return true;
  ByteReader reader(*bytes, 0, "replication event header");
  const binlog::EventHeader header = binlog::ReadEventHeader(reader);
  if (header.log_pos != 0) {
    event.offset = header.log_pos >= bytes->size() ? header.log_pos - bytes->size() : 0;
    next_offset_ = header.log_pos;
  } else if ((header.flags & binlog::kEventFlagArtificial) == 0 && next_offset_ != 0 &&
             header.type != binlog::EventType::kRotate &&
             header.type != binlog::EventType::kFormatDescription &&
             header.type != binlog::EventType::kHeartbeat &&
             header.type != binlog::EventType::kHeartbeatV2) {
    event.offset = next_offset_;
    next_offset_ += bytes->size();
  }
  if (header.type == binlog::EventType::kRotate) next_offset_ = 0;
  return true;
}

binlog::ChecksumAlgorithm ReplicationEventSource::checksum() const {
  return stream_->checksum() == "CRC32" ? binlog::ChecksumAlgorithm::kCrc32
                                        : binlog::ChecksumAlgorithm::kOff;
}

}  // namespace rowbridge::mysql
