#include "mysql/replication_event_source.h"

#include "common/byte_reader.h"

namespace rowbridge::mysql {

ReplicationEventSource::ReplicationEventSource(std::unique_ptr<BinlogStream> stream)
    : stream_(std::move(stream)) {}

bool ReplicationEventSource::Next(binlog::RawEvent& event) {
  std::optional<std::string_view> bytes = stream_->Next();
  if (!bytes) return false;
  uint64_t log_pos = 0;
  if (bytes->size() >= 19) {
    // Common header: timestamp(4) type(1) server_id(4) event_size(4) log_pos(4) flags(2).
    ByteReader header(*bytes, 0, "replication event header");
    header.Skip(13);
    log_pos = header.U32();
  }
  event.bytes = *bytes;
  event.offset = log_pos >= bytes->size() ? log_pos - bytes->size() : 0;
  return true;
}

binlog::ChecksumAlgorithm ReplicationEventSource::checksum() const {
  return stream_->checksum() == "CRC32" ? binlog::ChecksumAlgorithm::kCrc32
                                        : binlog::ChecksumAlgorithm::kOff;
}

}  // namespace rowbridge::mysql
