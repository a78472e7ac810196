#include "clickhouse/compression.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "clickhouse/cityhash.h"
#include "common/error.h"

namespace rowbridge::clickhouse {
namespace {

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void StoreU32(char* p, uint32_t v) {
  std::memcpy(p, &v, sizeof v);
}

// Method bytes ClickHouse defines for codecs it uses only on disk (Multiple, Delta, T64,
// DoubleDelta, Gorilla, AES...). Seeing one on an intact frame is "unsupported", not "corrupt".
bool IsKnownOtherCodec(uint8_t method) {
  return method >= 0x91 && method <= 0x9f;
}

}  // namespace

const char* CompressionMethodName(CompressionMethod method) {
  switch (method) {
    case CompressionMethod::kNone:
      return "none";
    case CompressionMethod::kLz4:
      return "lz4";
    case CompressionMethod::kZstd:
      return "zstd";
  }
  return "unknown";
}

CompressionMethod ParseCompressionMethod(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "none") return CompressionMethod::kNone;
  if (lower == "lz4") return CompressionMethod::kLz4;
  if (lower == "zstd") return CompressionMethod::kZstd;
  Fail(ErrorCode::kInvalidArgument,
       "unknown ClickHouse compression method '{}' (want none, lz4 or zstd)", name);
}

FrameHeader ParseFrameHeader(std::string_view prefix, const FrameLimits& limits,
                             std::string_view where) {
  if (prefix.size() < kFramePrefixSize) {
    Fail(ErrorCode::kCorruption, "{}: compressed frame prefix truncated ({} of {} bytes)", where,
         prefix.size(), kFramePrefixSize);
  }
  FrameHeader header;
  header.method = static_cast<uint8_t>(prefix[kChecksumSize]);
  header.compressed_size = LoadU32(prefix.data() + kChecksumSize + 1);
  header.uncompressed_size = LoadU32(prefix.data() + kChecksumSize + 5);
  if (header.compressed_size < kFrameHeaderSize) {
    Fail(ErrorCode::kCorruption, "{}: compressed frame size {} is smaller than its {}-byte header",
         where, header.compressed_size, kFrameHeaderSize);
  }
  if (header.compressed_size > limits.max_compressed_size) {
    Fail(ErrorCode::kCorruption, "{}: compressed frame size {} exceeds the limit of {} bytes",
         where, header.compressed_size, limits.max_compressed_size);
  }
  if (header.uncompressed_size > limits.max_uncompressed_size) {
    Fail(ErrorCode::kCorruption, "{}: uncompressed frame size {} exceeds the limit of {} bytes",
         where, header.uncompressed_size, limits.max_uncompressed_size);
  }
  return header;
}

struct FrameCodec::Contexts {
  ZSTD_CCtx* zstd_compress = nullptr;
  ZSTD_DCtx* zstd_decompress = nullptr;
  ~Contexts() {
    ZSTD_freeCCtx(zstd_compress);
    ZSTD_freeDCtx(zstd_decompress);
  }
};

FrameCodec::FrameCodec(CompressionMethod method, int zstd_level)
    : method_(method), zstd_level_(zstd_level), contexts_(std::make_unique<Contexts>()) {
  if (method != CompressionMethod::kNone && method != CompressionMethod::kLz4 &&
      method != CompressionMethod::kZstd) {
    Fail(ErrorCode::kInvalidArgument, "compression method byte 0x{:02x} cannot be written",
         static_cast<unsigned>(method));
  }
  if (method == CompressionMethod::kZstd &&
      (zstd_level < ZSTD_minCLevel() || zstd_level > ZSTD_maxCLevel())) {
    Fail(ErrorCode::kInvalidArgument, "ZSTD level {} is outside {}..{}", zstd_level,
         ZSTD_minCLevel(), ZSTD_maxCLevel());
  }
}

FrameCodec::~FrameCodec() = default;

void FrameCodec::Compress(std::string_view data, std::string& out, size_t max_frame_input) {
  if (max_frame_input == 0 || max_frame_input > (1u << 30)) {
    Fail(ErrorCode::kInvalidArgument, "compressed frame input size {} must be 1..1 GiB",
         max_frame_input);
  }
  for (size_t pos = 0; pos < data.size(); pos += max_frame_input) {
    CompressOne(data.substr(pos, max_frame_input), out);
  }
}

size_t FrameCodec::FrameBound(size_t piece_size) const {
  switch (method_) {
    case CompressionMethod::kNone:
      break;
    case CompressionMethod::kLz4:
      return kFramePrefixSize +
             static_cast<size_t>(LZ4_compressBound(static_cast<int>(piece_size)));
    case CompressionMethod::kZstd:
      return kFramePrefixSize + ZSTD_compressBound(piece_size);
  }
  return kFramePrefixSize + piece_size;
}

void FrameCodec::CompressOne(std::string_view piece, std::string& out) {
  const size_t start = out.size();
  out.resize(start + FrameBound(piece.size()));
  out.resize(start + CompressInto(piece, out.data() + start));
}

size_t FrameCodec::CompressInto(std::string_view piece, char* frame) {
  const size_t bound = FrameBound(piece.size()) - kFramePrefixSize;
  char* payload = frame + kFramePrefixSize;
  size_t payload_size = 0;
  switch (method_) {
    case CompressionMethod::kNone:
      if (!piece.empty()) std::memcpy(payload, piece.data(), piece.size());
      payload_size = piece.size();
      break;
    case CompressionMethod::kLz4: {
      int n = LZ4_compress_default(piece.data(), payload, static_cast<int>(piece.size()),
                                   static_cast<int>(bound));
      if (n <= 0) Fail(ErrorCode::kInternal, "LZ4 failed to compress {} bytes", piece.size());
      payload_size = static_cast<size_t>(n);
      break;
    }
    case CompressionMethod::kZstd: {
      if (contexts_->zstd_compress == nullptr) {
        contexts_->zstd_compress = ZSTD_createCCtx();
        if (contexts_->zstd_compress == nullptr) {
          Fail(ErrorCode::kInternal, "ZSTD_createCCtx failed (out of memory)");
        }
      }
      size_t n = ZSTD_compressCCtx(contexts_->zstd_compress, payload, bound, piece.data(),
                                   piece.size(), zstd_level_);
      if (ZSTD_isError(n)) {
        Fail(ErrorCode::kInternal, "ZSTD failed to compress {} bytes: {}", piece.size(),
             ZSTD_getErrorName(n));
      }
      payload_size = n;
      break;
    }
  }
  frame[kChecksumSize] = static_cast<char>(method_);
  StoreU32(frame + kChecksumSize + 1, static_cast<uint32_t>(kFrameHeaderSize + payload_size));
  StoreU32(frame + kChecksumSize + 5, static_cast<uint32_t>(piece.size()));
  CityHash128Value sum = CityHash128(frame + kChecksumSize, kFrameHeaderSize + payload_size);
  std::memcpy(frame, &sum.low, 8);
  std::memcpy(frame + 8, &sum.high, 8);
  return kFramePrefixSize + payload_size;
}

void FrameCodec::Decompress(const FrameHeader& header, std::string_view frame, std::string& out,
                            std::string_view where) {
  if (frame.size() != kChecksumSize + header.compressed_size) {
    Fail(ErrorCode::kInternal, "{}: frame buffer holds {} bytes, header says {}", where,
         frame.size(), kChecksumSize + header.compressed_size);
  }
  CityHash128Value expected;
  std::memcpy(&expected.low, frame.data(), 8);
  std::memcpy(&expected.high, frame.data() + 8, 8);
  CityHash128Value actual = CityHash128(frame.data() + kChecksumSize, header.compressed_size);
  if (actual != expected) {
    Fail(ErrorCode::kCorruption,
         "{}: checksum mismatch in compressed frame (method 0x{:02x}, {} compressed bytes): "
         "stored {:016x}{:016x}, computed {:016x}{:016x}",
         where, header.method, header.compressed_size, expected.high, expected.low, actual.high,
         actual.low);
  }
  std::string_view payload = frame.substr(kFramePrefixSize);
  out.resize(header.uncompressed_size);
  switch (header.method) {
    case static_cast<uint8_t>(CompressionMethod::kNone):
      if (payload.size() != header.uncompressed_size) {
        Fail(ErrorCode::kCorruption,
             "{}: uncompressed frame carries {} bytes but declares {} uncompressed", where,
             payload.size(), header.uncompressed_size);
      }
      if (!payload.empty()) std::memcpy(out.data(), payload.data(), payload.size());
      return;
    case static_cast<uint8_t>(CompressionMethod::kLz4): {
      int n = LZ4_decompress_safe(payload.data(), out.data(), static_cast<int>(payload.size()),
                                  static_cast<int>(header.uncompressed_size));
      if (n < 0 || static_cast<uint32_t>(n) != header.uncompressed_size) {
        Fail(ErrorCode::kCorruption, "{}: LZ4 frame does not decode to its declared {} bytes{}",
             where, header.uncompressed_size, n < 0 ? " (malformed)" : "");
      }
      return;
    }
    case static_cast<uint8_t>(CompressionMethod::kZstd): {
      if (contexts_->zstd_decompress == nullptr) {
        contexts_->zstd_decompress = ZSTD_createDCtx();
        if (contexts_->zstd_decompress == nullptr) {
          Fail(ErrorCode::kInternal, "ZSTD_createDCtx failed (out of memory)");
        }
      }
      size_t n = ZSTD_decompressDCtx(contexts_->zstd_decompress, out.data(), out.size(),
                                     payload.data(), payload.size());
      if (ZSTD_isError(n)) {
        Fail(ErrorCode::kCorruption, "{}: ZSTD frame does not decode: {}", where,
             ZSTD_getErrorName(n));
      }
      if (n != header.uncompressed_size) {
        Fail(ErrorCode::kCorruption, "{}: ZSTD frame decodes to {} bytes, header declares {}",
             where, n, header.uncompressed_size);
      }
      return;
    }
    default:
      if (IsKnownOtherCodec(header.method)) {
        Fail(ErrorCode::kUnsupported,
             "{}: compressed frame uses ClickHouse codec 0x{:02x}, which rowbridge does not "
             "decode (only none, LZ4 and ZSTD)",
             where, header.method);
      }
      Fail(ErrorCode::kCorruption, "{}: unknown compression method byte 0x{:02x}", where,
           header.method);
  }
}

void FrameCodec::DecompressAll(std::string_view frames, std::string& out, const FrameLimits& limits,
                               std::string_view where) {
  size_t pos = 0;
  while (pos < frames.size()) {
    const std::string what = fmt::format("{} (frame at byte {})", where, pos);
    FrameHeader header = ParseFrameHeader(frames.substr(pos), limits, what);
    size_t frame_size = kChecksumSize + header.compressed_size;
    if (frame_size > frames.size() - pos) {
      Fail(ErrorCode::kCorruption, "{}: frame of {} bytes truncated to {}", what, frame_size,
           frames.size() - pos);
    }
    Decompress(header, frames.substr(pos, frame_size), scratch_, what);
    out.append(scratch_);
    pos += frame_size;
  }
}

FrameStream::FrameStream(size_t max_frame_input) : max_frame_input_(max_frame_input) {
  if (max_frame_input == 0 || max_frame_input > (1u << 30)) {
    Fail(ErrorCode::kInvalidArgument, "compressed frame input size {} must be 1..1 GiB",
         max_frame_input);
  }
}

void FrameStream::Start(FrameCodec& codec, std::string& out, Drain drain) {
  codec_ = &codec;
  out_ = &out;
  drain_ = std::move(drain);
  pending_.clear();
}

void FrameStream::CompressFrame(std::string_view piece) {
  if (!drain_) {
    codec_->CompressOne(piece, *out_);
    return;
  }
  // Compressed into a buffer that is only ever grown, so its pages are neither zero-filled per
  // frame (as growing a std::string would) nor given back.
  const size_t bound = codec_->FrameBound(piece.size());
  if (frame_capacity_ < bound) {
    frame_ = std::make_unique_for_overwrite<char[]>(bound);
    frame_capacity_ = bound;
  }
  const size_t size = codec_->CompressInto(piece, frame_.get());
  drain_(*out_, std::string_view(frame_.get(), size));
}

void FrameStream::Append(std::string_view bytes) {
  if (codec_ == nullptr) Fail(ErrorCode::kInternal, "FrameStream::Append before Start");
  while (!bytes.empty()) {
    if (pending_.empty() && bytes.size() >= max_frame_input_) {
      CompressFrame(bytes.substr(0, max_frame_input_));
      bytes.remove_prefix(max_frame_input_);
      continue;
    }
    const size_t take = std::min(max_frame_input_ - pending_.size(), bytes.size());
    pending_.append(bytes.data(), take);
    bytes.remove_prefix(take);
    if (pending_.size() == max_frame_input_) {
      CompressFrame(pending_);
      pending_.clear();
    }
  }
}

void FrameStream::Finish() {
  if (codec_ == nullptr) Fail(ErrorCode::kInternal, "FrameStream::Finish before Start");
  if (!pending_.empty()) CompressFrame(pending_);
  pending_.clear();
  codec_ = nullptr;
  out_ = nullptr;
  drain_ = nullptr;
}

}  // namespace rowbridge::clickhouse
