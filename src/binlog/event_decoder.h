// EventDecoder frames single events: it checks sizes and CRC32 checksums, keeps the stream state
// (the current FORMAT_DESCRIPTION and binlog file name, which a ROTATE changes) and returns Event
// views. It is push-style so both a file reader and a live replication stream can feed it raw
// event bytes one event at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/event.h"
#include "binlog/format_description.h"

namespace rowbridge::binlog {

class EventDecoder {
 public:
  EventDecoder();

  // Names the binlog file the following events belong to (error messages and Event::file).
  void SetFile(std::string_view name);
  // Checksum of the events a live stream sends before its first FORMAT_DESCRIPTION (the
  // source's @@binlog_checksum as negotiated); files never need it.
  void SetChecksumBeforeFormat(ChecksumAlgorithm checksum);

  // Validates one complete event (`bytes` spans exactly the event) at file offset `offset` and
  // returns a view of it, valid until the next call. Throws Error(kCorruption) for a bad size or
  // checksum and Error(kUnsupported) for encrypted binlogs (START_ENCRYPTION).
  Event Decode(std::string_view bytes, uint64_t offset);

  bool has_format() const { return has_format_; }
  const FormatDescription& format() const { return format_; }
  const std::string& file() const { return file_; }
  const std::string& context() const { return context_; }

 private:
  FormatDescription format_;
  bool has_format_ = false;
  ChecksumAlgorithm checksum_before_format_ = ChecksumAlgorithm::kOff;
  std::string file_;
  std::string context_;
  std::string pending_file_;  // set by a ROTATE; applies from the next event on
  bool has_pending_file_ = false;
};

}  // namespace rowbridge::binlog
