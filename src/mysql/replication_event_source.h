// ReplicationEventSource: a live replication stream (BinlogStream) seen as a binlog::EventSource,
// so that the same BinlogEventReader decodes files and live streams. Each event's file offset is
// derived from its header's end position (log_pos - size); artificial events the source makes up
// (the first ROTATE, FORMAT_DESCRIPTION re-sent at dump start) have log_pos 0 and get offset 0.
// Heartbeats are passed on: the decoder knows them and the caller uses them to measure lag.
#pragma once

#include <memory>
#include <string>

#include "binlog/event_source.h"
#include "binlog/format_description.h"
#include "mysql/binlog_stream.h"

namespace rowbridge::mysql {

class ReplicationEventSource : public binlog::EventSource {
 public:
  explicit ReplicationEventSource(std::unique_ptr<BinlogStream> stream);

  // False when a non-blocking dump reached the end of the source's binlog.
  bool Next(binlog::RawEvent& event) override;
  // The stream learns file names from ROTATE events, which the decoder tracks.
  std::string_view file_name() const override { return {}; }

  // The checksum algorithm the stream negotiated: what events before the first
  // FORMAT_DESCRIPTION carry. Pass it to EventDecoder::SetChecksumBeforeFormat.
  binlog::ChecksumAlgorithm checksum() const;
  BinlogStream& stream() { return *stream_; }

 private:
  std::unique_ptr<BinlogStream> stream_;
};

}  // namespace rowbridge::mysql
