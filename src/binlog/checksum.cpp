#include "binlog/checksum.h"

#include "common/crc32.h"
#include "common/error.h"

namespace rowbridge::binlog {

uint32_t Crc32(const uint8_t* data, size_t size) {
  return ::rowbridge::Crc32(0, data, size);
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
  // A server sets LOG_EVENT_BINLOG_IN_USE_F in the FDE of the binlog it is writing after
  // computing the checksum (and clears it on close), so the FDE's CRC covers the flag cleared.
  constexpr size_t kTypeOffset = 4, kFlagsOffset = 17;
  if (stored != computed && n > kFlagsOffset + 1 && bytes[kTypeOffset] == 15 &&
      (bytes[kFlagsOffset] & 0x01)) {
    uint8_t flag = static_cast<uint8_t>(bytes[kFlagsOffset] & ~0x01);
    computed = ::rowbridge::Crc32(0, bytes, kFlagsOffset);
    computed = ::rowbridge::Crc32(computed, &flag, 1);
    computed = ::rowbridge::Crc32(computed, bytes + kFlagsOffset + 1, n - kFlagsOffset - 1);
  }
  if (stored != computed) {
    Fail(ErrorCode::kCorruption,
         "{} at offset {}: event checksum mismatch (stored CRC32 0x{:08x}, computed 0x{:08x})",
         context, offset, stored, computed);
  }
}

}  // namespace rowbridge::binlog
