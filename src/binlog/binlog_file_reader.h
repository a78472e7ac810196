// BinlogFileReader reads events from one binlog file with bounded buffering: it keeps a window of
// the file in a reusable buffer that grows only to the largest event seen. It checks the magic,
// tracks the file offset of every event, and reports a truncated tail as Error(kCorruption) naming
// the file and offset — a clean end of file is only at an event boundary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "binlog/event_source.h"

namespace rowbridge::binlog {

class BinlogFileReader : public EventSource {
 public:
  // Opens `path` and checks the binlog magic; throws Error(kIo) / Error(kCorruption). An event
  // whose header claims more bytes than the file holds is Error(kCorruption) before any buffer
  // grows to that size, so memory follows the real events, not what a corrupt header says.
  explicit BinlogFileReader(const std::string& path, size_t max_event_size = size_t{1} << 30);

  bool Next(RawEvent& event) override;
  std::string_view file_name() const override { return name_; }

  // The next Next() reads the event at `offset` (>= 4). Used for --start-position, after the
  // FORMAT_DESCRIPTION at offset 4 has been read.
  void Seek(uint64_t offset);
  // Offset of the next event to be read.
  uint64_t position() const { return window_offset_ + pos_; }
  const std::string& path() const { return path_; }

 private:
  // Makes at least `n` bytes available at pos_; returns how many are (less only at EOF).
  size_t Fill(size_t n);
  // The file's size now minus `offset`: an event cannot be longer than what is left.
  uint64_t BytesLeftInFile(uint64_t offset) const;

  std::string path_;
  std::string name_;  // base name, as servers name binlogs in ROTATE events
  std::string context_;
  size_t max_event_size_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::vector<uint8_t> buf_;
  uint64_t window_offset_ = 0;  // file offset of buf_[0]
  size_t pos_ = 0;              // cursor in buf_
  size_t end_ = 0;              // valid bytes in buf_
  bool eof_ = false;
};

}  // namespace rowbridge::binlog
