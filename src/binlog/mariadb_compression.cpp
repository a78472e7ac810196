#include "binlog/mariadb_compression.h"

#include <zlib.h>

#include "common/error.h"

namespace rowbridge::binlog {

std::string_view MariaUncompress(std::string_view stored, std::string& out,
                                 std::string_view context, uint64_t offset) {
  if (stored.empty()) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: compressed data is empty", context, offset);
  }
  uint8_t header = static_cast<uint8_t>(stored[0]);
  size_t length_bytes = header & 0x07;
  if ((header & 0xf0) != 0x80 || length_bytes == 0 || length_bytes > 4) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: bad compression header 0x{:02x} (want zlib, 1-4 length bytes)", context,
         offset, header);
  }
  if (stored.size() < 1 + length_bytes) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: truncated compressed length", context, offset);
  }
  size_t length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    length = (length << 8) | static_cast<uint8_t>(stored[1 + i]);
  }
  if (length > kMaxMariaUncompressedSize) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: uncompressed size {} exceeds the {} byte limit",
         context, offset, length, kMaxMariaUncompressedSize);
  }
  std::string_view z = stored.substr(1 + length_bytes);
  // Deflate expands at most 1032:1, so a larger claim is corrupt; checking it first keeps a bad
  // length byte from costing a buffer of up to 1 GiB.
  constexpr size_t kMaxDeflateRatio = 1032;
  if (length > z.size() * kMaxDeflateRatio + 64) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: uncompressed size {} is impossible for {} compressed bytes", context,
         offset, length, z.size());
  }
  out.resize(length);
  uLongf produced = static_cast<uLongf>(length);
  int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &produced,
                      reinterpret_cast<const Bytef*>(z.data()), static_cast<uLong>(z.size()));
  if (rc != Z_OK || produced != length) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: zlib decompression failed ({}; got {} of {} bytes)", context, offset,
         rc == Z_OK ? "ok" : zError(rc), produced, length);
  }
  return out;
}

}  // namespace rowbridge::binlog
