#include "binlog/checksum.h"

#include <zlib.h>

#include "common/error.h"

namespace rowbridge::binlog {

uint32_t Crc32(const uint8_t* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; events are < 4 GiB but feed in chunks to stay correct regardless.
  while (size > 0) {
    uInt chunk = size > (1u << 30) ? (1u << 30) : static_cast<uInt>(size);
    crc = crc32(crc, data, chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

void VerifyEventChecksum(std::string_view event, std::string_view context, uint64_t offset) {
  if (event.size() < 4) {
    Fail(ErrorCode::kCorruption, "{} at offset {}: event of {} bytes cannot hold a checksum",
         context, offset, event.size());
  }
  auto* bytes = reinterpret_cast<const uint8_t*>(event.data());
  size_t n = event.size() - 4;
  uint32_t stored = static_cast<uint32_t>(bytes[n]) | static_cast<uint32_t>(bytes[n + 1]) << 8 |
                    static_cast<uint32_t>(bytes[n + 2]) << 16 |
                    static_cast<uint32_t>(bytes[n + 3]) << 24;
  uint32_t computed = Crc32(bytes, n);
  if (stored != computed) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: event checksum mismatch (stored CRC32 0x{:08x}, computed 0x{:08x})",
         context, offset, stored, computed);
  }
}

}  // namespace rowbridge::binlog
