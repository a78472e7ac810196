// ReplicationEventSource: a live replication stream (BinlogStream) seen as a binlog::EventSource,
// so that the same BinlogEventReader decodes files and live streams.
//
// Each event's file offset is derived from its header's end position (log_pos - size).
// Artificial events the source makes up (the first ROTATE, FORMAT_DESCRIPTION re-sent at dump
// start) have log_pos 0 and get offset 0. MariaDB 11.4+ (binlog_legacy_event_pos=OFF, its
// default) also writes log_pos 0 on the events inside a transaction, which are real: such an event
// is placed right after the one before it, as it lies in the file.
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
  // Reads a stream the caller keeps; it must outlive this source.
  explicit ReplicationEventSource(BinlogStream& stream);

  // False when a non-blocking dump reached the end of the source's binlog.
  bool Next(binlog::RawEvent& event) override;
  // The stream learns file names from ROTATE events, which the decoder tracks.
  std::string_view file_name() const override { return {}; }

  // The checksum algorithm the stream negotiated: what events before the first
  // FORMAT_DESCRIPTION carry. Pass it to EventDecoder::SetChecksumBeforeFormat.
  binlog::ChecksumAlgorithm checksum() const;
  BinlogStream& stream() { return *stream_; }

 private:
  std::unique_ptr<BinlogStream> owned_;
  BinlogStream* stream_;
  // Where the event after the last placed one starts (0 until one was placed).
  uint64_t next_offset_ = 0;
};

}  // namespace rowbridge::mysql
