// CRC32 (zlib's polynomial) over binlog events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rowbridge::binlog {

// The CRC32 of `data` alone (rowbridge::Crc32 started from 0), as stored after a binlog event.
uint32_t Crc32(const uint8_t* data, size_t size);

// Checks that the last 4 bytes of `event` are the CRC32 of the bytes before them; throws
// Error(kCorruption) naming `context` and the event's `offset` if not.
void VerifyEventChecksum(std::string_view event, std::string_view context, uint64_t offset);

}  // namespace rowbridge::binlog
