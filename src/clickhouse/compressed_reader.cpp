#include "clickhouse/compressed_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace rowbridge::clickhouse {

DecompressingReader::DecompressingReader(WireReader& source, FrameLimits limits, std::string where)
    : source_(source), limits_(limits), where_(std::move(where)) {}

void DecompressingReader::ReadExact(void* dst, size_t n) {
  auto* out = static_cast<char*>(dst);
  while (n > 0) {
    if (pos_ == decoded_.size()) LoadFrame();
    size_t take = std::min(n, decoded_.size() - pos_);
    std::memcpy(out, decoded_.data() + pos_, take);
    pos_ += take;
    out += take;
    n -= take;
  }
}

void DecompressingReader::Reset() {
  decoded_.clear();
  pos_ = 0;
}

void DecompressingReader::LoadFrame() {
  frame_.resize(kFramePrefixSize);
  source_.ReadExact(frame_.data(), kFramePrefixSize);
  FrameHeader header = ParseFrameHeader(frame_, limits_, where_);
  frame_.resize(kChecksumSize + header.compressed_size);
  if (header.payload_size() > 0) {
    source_.ReadExact(frame_.data() + kFramePrefixSize, header.payload_size());
  }
  codec_.Decompress(header, frame_, decoded_, where_);
  pos_ = 0;
  ++frames_read_;
}

}  // namespace rowbridge::clickhouse
