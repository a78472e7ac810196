// DecompressingReader: a WireReader that decodes a stream of compressed frames (compression.h)
// pulled from another WireReader, the way ClickHouse sends a query's Data blocks when
// compression is on. Frames are read lazily, one at a time; a block may span several frames.
//
// ClickHouse flushes its compressor at the end of every block, so a block always ends on a frame
// boundary. AtFrameBoundary() lets the packet reader check that after each block: leftover
// decompressed bytes mean the stream is out of step and must not be trusted further.
#pragma once

#include <cstdint>
#include <string>

#include "clickhouse/compression.h"
#include "clickhouse/wire.h"

namespace rowbridge::clickhouse {

class DecompressingReader : public WireReader {
 public:
  // `where` names the stream in error messages ("ClickHouse 127.0.0.1:9000 Data packet").
  DecompressingReader(WireReader& source, FrameLimits limits, std::string where);

  void ReadExact(void* dst, size_t n) override;

  // True when every decompressed byte of the last frame has been consumed.
  bool AtFrameBoundary() const { return pos_ == decoded_.size(); }
  // Drops any buffered bytes (after an error, or when a new query starts).
  void Reset();

  uint64_t frames_read() const { return frames_read_; }

 private:
  void LoadFrame();

  WireReader& source_;
  FrameLimits limits_;
  std::string where_;
  FrameCodec codec_;
  std::string frame_;    // prefix + payload of the current frame
  std::string decoded_;  // its decompressed bytes
  size_t pos_ = 0;
  uint64_t frames_read_ = 0;
};

}  // namespace rowbridge::clickhouse
