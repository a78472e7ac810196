// ClickHouse's compressed-block framing, used on the wire for Data packets when a query enables
// compression (and in .bin files on disk). One frame is:
//
//   16 bytes  CityHash128 v1.0.2 of everything after it (low 64 bits first, little-endian)
//    1 byte   method: 0x02 none, 0x82 LZ4 (also LZ4HC), 0x90 ZSTD
//    4 bytes  compressed size, little-endian, INCLUDING this 9-byte method+sizes header
//    4 bytes  uncompressed size, little-endian
//    ...      payload (compressed size - 9 bytes)
//
// A stream is a sequence of frames; one Data packet's block may span several.
//
// Decompression trusts nothing: sizes are bounded by FrameLimits before any allocation, the
// checksum is verified before the payload is decoded, and the decoded size must match the header
// exactly. Damage throws Error(kCorruption); an intact frame whose codec we do not implement
// (Delta, T64, ... which ClickHouse only uses on disk) throws Error(kUnsupported).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "clickhouse/byte_sink.h"

namespace rowbridge::clickhouse {

enum class CompressionMethod : uint8_t {
  kNone = 0x02,
  kLz4 = 0x82,
  kZstd = 0x90,
};

// "none", "lz4", "zstd".
const char* CompressionMethodName(CompressionMethod method);
// Parses "none" / "lz4" / "zstd" (any case); throws Error(kInvalidArgument) otherwise.
CompressionMethod ParseCompressionMethod(std::string_view name);

inline constexpr size_t kChecksumSize = 16;
inline constexpr size_t kFrameHeaderSize = 9;  // method byte + compressed size + uncompressed size
inline constexpr size_t kFramePrefixSize = kChecksumSize + kFrameHeaderSize;

struct FrameLimits {
  // ClickHouse itself refuses compressed frames above 1 GiB. A server sends frames of at most
  // its 1 MiB network buffer, so the default bound is generous and still keeps a corrupt size
  // field from allocating gigabytes.
  uint32_t max_compressed_size = 64u << 20;  // includes the 9-byte header
  uint32_t max_uncompressed_size = 64u << 20;
};

// The 25-byte prefix of a frame, with sizes validated against FrameLimits. `payload_size` is
// how many bytes follow the prefix.
struct FrameHeader {
  uint8_t method = 0;
  uint32_t compressed_size = 0;  // as stored: header + payload
  uint32_t uncompressed_size = 0;
  size_t payload_size() const { return compressed_size - kFrameHeaderSize; }
};

// Parses the first kFramePrefixSize bytes of `prefix` (which must hold at least that many).
// `where` names the stream in error messages.
FrameHeader ParseFrameHeader(std::string_view prefix, const FrameLimits& limits,
                             std::string_view where);

// Compresses and decompresses frames. Holds the LZ4/ZSTD contexts so that a long-lived
// connection reuses them; not thread-safe. Output buffers are appended to / resized, never
// shrunk, so callers can reuse them without reallocating.
class FrameStream;

class FrameCodec {
 public:
  // `zstd_level` is used only for ZSTD (ClickHouse's default network level is 1).
  explicit FrameCodec(CompressionMethod method = CompressionMethod::kLz4, int zstd_level = 1);
  ~FrameCodec();
  FrameCodec(const FrameCodec&) = delete;
  FrameCodec& operator=(const FrameCodec&) = delete;

  CompressionMethod method() const { return method_; }
  int zstd_level() const { return zstd_level_; }

  // Appends frames holding `data` to `out`, cutting the input into pieces of at most
  // `max_frame_input` bytes (ClickHouse cuts at its 1 MiB buffer). Empty input appends nothing.
  void Compress(std::string_view data, std::string& out, size_t max_frame_input = 1u << 20);

  // Verifies and decodes one whole frame (prefix + payload, exactly) into `out`, replacing its
  // contents. The header must already have been checked by ParseFrameHeader.
  void Decompress(const FrameHeader& header, std::string_view frame, std::string& out,
                  std::string_view where);

  // Decodes a buffer holding a sequence of whole frames (e.g. a clickhouse-compressor file),
  // appending the decompressed bytes to `out`. Truncation throws Error(kCorruption).
  void DecompressAll(std::string_view frames, std::string& out, const FrameLimits& limits,
                     std::string_view where);

  // The most bytes a frame holding `piece_size` bytes can take.
  size_t FrameBound(size_t piece_size) const;

 private:
  friend class FrameStream;
  // Appends one frame holding all of `piece`.
  void CompressOne(std::string_view piece, std::string& out);
  // Writes that frame at `frame` (FrameBound bytes of room) and returns its size.
  size_t CompressInto(std::string_view piece, char* frame);

  CompressionMethod method_;
  int zstd_level_;
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
  std::string scratch_;
};

// A byte stream that arrives in pieces (a block written column by column), compressed into
// exactly the frames FrameCodec::Compress gives for the whole stream at once: every frame but
// the last holds max_frame_input bytes. Input that can fill whole frames is compressed where it
// lies; only what is left over at the end of a piece is copied into a pending buffer. So a block
// never has to be assembled in one buffer before it is compressed.
//
// Reusable: Start() begins the next stream and keeps the pending buffer's capacity.
//
// With a drain, every frame is handed to it as soon as it is made, together with `out` (what the
// caller wrote before the stream, such as a packet header, and has not sent yet); the drain sends
// `out` first and empties it, then the frame (a client writes both to the socket). A 20 MiB block
// then never sits compressed in memory: frames are made in one reused buffer, whose pages stay
// mapped and in cache, instead of in `out` growing to the block's size on every writer's first
// batches (page faults and realloc copies cost more than LZ4's output).
class FrameStream : public ByteSink {
 public:
  using Drain = std::function<void(std::string& out, std::string_view frame)>;

  // Throws Error(kInvalidArgument) unless 1 <= max_frame_input <= 1 GiB.
  explicit FrameStream(size_t max_frame_input = 1u << 20);

  // Begins a stream whose frames `codec` appends to `out`; both must outlive Finish(). `drain`,
  // if set, must leave `out` empty (what it throws propagates out of Append).
  void Start(FrameCodec& codec, std::string& out, Drain drain = nullptr);
  void Append(std::string_view bytes) override;
  // Compresses what is still pending (the last, shorter frame). An empty stream appends nothing.
  void Finish();

 private:
  size_t max_frame_input_;
  FrameCodec* codec_ = nullptr;
  std::string* out_ = nullptr;
  Drain drain_;
  std::unique_ptr<char[]> frame_;  // where drained frames are made
  size_t frame_capacity_ = 0;
  std::string pending_;

  void CompressFrame(std::string_view piece);
};

}  // namespace rowbridge::clickhouse
