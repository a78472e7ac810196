// FORMAT_DESCRIPTION_EVENT: the first event of every binlog v4 file (and of every stream). It
// says which server wrote the log, how long each event type's post-header is, and whether events
// carry a CRC32 checksum.
//
// The FDE's own checksum rule: a checksum-aware server (MySQL >= 5.6.1, MariaDB >= 5.3) always
// ends the FDE with the algorithm byte followed by 4 checksum bytes, whatever the algorithm; the
// 4 bytes are only meaningful (and only verified) when the algorithm is CRC32. Older servers
// write neither.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "binlog/event_header.h"

namespace rowbridge::binlog {

enum class ChecksumAlgorithm : uint8_t { kOff = 0, kCrc32 = 1, kUndefined = 255 };

struct FormatDescription {
  uint16_t binlog_version = 4;
  std::string server_version;  // "8.0.28", "10.5.15-MariaDB-log"
  uint32_t create_timestamp = 0;
  uint8_t header_length = kEventHeaderSize;
  // Post-header length per event type code; types beyond what the server listed have 0.
  std::array<uint8_t, 256> post_header_lengths{};
  ChecksumAlgorithm checksum = ChecksumAlgorithm::kOff;
  // The FDE itself ends with the algorithm byte and 4 checksum bytes (see above).
  bool checksum_aware = false;
  bool is_mariadb = false;

  uint8_t PostHeaderLength(EventType type) const {
    return post_header_lengths[static_cast<uint8_t>(type)];
  }
  bool HasChecksum() const { return checksum == ChecksumAlgorithm::kCrc32; }
};

// Parses a whole FDE (header included, `event` spans exactly event_size bytes). Verifies the
// FDE's own CRC32 when it announces CRC32. `context`/`offset` name the input in errors.
FormatDescription ParseFormatDescription(std::string_view event, std::string_view context,
                                         uint64_t offset);

// A FormatDescription for a 5.0+ v4 log before any FDE was seen (MySQL's defaults), with the
// given checksum. Used for the events a live stream sends ahead of its FDE.
FormatDescription DefaultFormatDescription(ChecksumAlgorithm checksum);

// Leading "X.Y.Z" of a server version as X*10000+Y*100+Z; 0 if it does not start with digits.
uint32_t ServerVersionNumber(std::string_view server_version);

}  // namespace rowbridge::binlog
