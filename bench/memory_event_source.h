// An EventSource over a whole binlog file held in memory, so a benchmark measures decoding and
// not the disk. It frames events by the event_size field of each common header (offset 9) and
// leaves every other check to the decoder.
#pragma once

#include <cstdint>
#include <string_view>

#include "binlog/event_source.h"
#include "common/error.h"

namespace rowbridge::bench {

class MemoryEventSource : public binlog::EventSource {
 public:
  // `file` is a complete binlog file, magic included; it must outlive the source.
  MemoryEventSource(std::string_view file, std::string_view name) : file_(file), name_(name) {
    if (file_.size() < 4 || file_.substr(0, 4) != std::string_view("\xfe"
                                                                   "bin",
                                                                   4))
      Fail(ErrorCode::kCorruption, "{}: not a binlog file (bad magic)", name_);
  }

  bool Next(binlog::RawEvent& event) override {
    if (pos_ == file_.size()) return false;
    if (file_.size() - pos_ < 19)
      Fail(ErrorCode::kCorruption, "{}: truncated event header at offset {}", name_, pos_);
    const auto* p = reinterpret_cast<const uint8_t*>(file_.data() + pos_ + 9);
    const uint32_t size =
        uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    if (size < 19 || size > file_.size() - pos_)
      Fail(ErrorCode::kCorruption, "{}: bad event size {} at offset {}", name_, size, pos_);
    event.bytes = file_.substr(pos_, size);
    event.offset = pos_;
    pos_ += size;
    return true;
  }
  std::string_view file_name() const override { return name_; }

 private:
  std::string_view file_;
  std::string_view name_;
  size_t pos_ = 4;
};

}  // namespace rowbridge::bench
