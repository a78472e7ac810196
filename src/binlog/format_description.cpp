#include "binlog/format_description.h"

#include "binlog/checksum.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace {

constexpr size_t kServerVersionLength = 50;

bool IsChecksumAware(std::string_view version, bool is_mariadb) {
  uint32_t v = ServerVersionNumber(version);
  return is_mariadb ? v >= 50300 : v >= 50601;
}

}  // namespace

uint32_t ServerVersionNumber(std::string_view version) {
  uint32_t parts[3] = {0, 0, 0};
  size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    if (i >= version.size() || version[i] < '0' || version[i] > '9') break;
    uint32_t n = 0;
    while (i < version.size() && version[i] >= '0' && version[i] <= '9' && n < 100000) {
      n = n * 10 + static_cast<uint32_t>(version[i] - '0');
      ++i;
    }
    parts[part] = n;
    if (part < 2) {
      if (i >= version.size() || version[i] != '.') break;
      ++i;
    }
  }
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

FormatDescription ParseFormatDescription(std::string_view event, std::string_view context,
                                         uint64_t offset) {
  ByteReader r(event, offset, context);
  EventHeader header = ReadEventHeader(r);
  if (header.type != EventType::kFormatDescription) {
    r.Corrupt("expected a FORMAT_DESCRIPTION event");
  }
  FormatDescription fd;
  fd.binlog_version = r.U16("binlog version");
  if (fd.binlog_version != 4) {
    Fail(ErrorCode::kUnsupported,
         "{} at offset {}: binlog version {} is not supported (only v4, MySQL 5.0 and later)",
         context, offset, fd.binlog_version);
  }
  std::string_view version = r.Bytes(kServerVersionLength, "server version");
  fd.server_version.assign(version.substr(0, version.find('\0')));
  fd.create_timestamp = r.U32("FDE create timestamp");
  fd.header_length = r.U8("common header length");
  if (fd.header_length < kEventHeaderSize) {
    r.Corrupt(fmt::format("common header length {} is shorter than {}", fd.header_length,
                          kEventHeaderSize));
  }
  fd.is_mariadb = fd.server_version.find("MariaDB") != std::string::npos;

  size_t rest = r.remaining();
  fd.checksum_aware = IsChecksumAware(fd.server_version, fd.is_mariadb);
  if (fd.checksum_aware) {
    if (rest < 5) r.Corrupt("FORMAT_DESCRIPTION too short for its checksum algorithm and checksum");
    rest -= 5;
  }
  std::string_view lengths = r.Bytes(rest, "post-header lengths");
  // Index 0 is the post-header length of event type 1.
  for (size_t i = 0; i < lengths.size() && i + 1 < fd.post_header_lengths.size(); ++i) {
    fd.post_header_lengths[i + 1] = static_cast<uint8_t>(lengths[i]);
  }
  if (!r.AtEnd()) {
    uint8_t alg = r.U8("checksum algorithm");
    if (alg == static_cast<uint8_t>(ChecksumAlgorithm::kCrc32)) {
      fd.checksum = ChecksumAlgorithm::kCrc32;
      VerifyEventChecksum(event, context, offset);
    } else if (alg == static_cast<uint8_t>(ChecksumAlgorithm::kOff) ||
               alg == static_cast<uint8_t>(ChecksumAlgorithm::kUndefined)) {
      fd.checksum = ChecksumAlgorithm::kOff;
    } else {
      Fail(ErrorCode::kUnsupported, "{} at offset {}: unknown binlog checksum algorithm {}",
           context, offset, alg);
    }
  }
  return fd;
}

FormatDescription DefaultFormatDescription(ChecksumAlgorithm checksum) {
  FormatDescription fd;
  fd.server_version = "5.6.1";
  fd.checksum = checksum;
  auto set = [&fd](EventType t, uint8_t n) { fd.post_header_lengths[static_cast<uint8_t>(t)] = n; };
  set(EventType::kQuery, 13);
  set(EventType::kRotate, 8);
  set(EventType::kAppendBlock, 4);
  set(EventType::kBeginLoadQuery, 4);
  set(EventType::kExecuteLoadQuery, 26);
  set(EventType::kFormatDescription, 84);
  set(EventType::kTableMap, 8);
  set(EventType::kPreGaWriteRows, 8);
  set(EventType::kPreGaUpdateRows, 8);
  set(EventType::kPreGaDeleteRows, 8);
  set(EventType::kWriteRowsV1, 8);
  set(EventType::kUpdateRowsV1, 8);
  set(EventType::kDeleteRowsV1, 8);
  set(EventType::kIncident, 2);
  set(EventType::kWriteRows, 10);
  set(EventType::kUpdateRows, 10);
  set(EventType::kDeleteRows, 10);
  set(EventType::kPartialUpdateRows, 10);
  set(EventType::kGtid, 42);
  set(EventType::kAnonymousGtid, 42);
  set(EventType::kMariaQueryCompressed, 13);
  set(EventType::kMariaWriteRowsCompressedV1, 8);
  set(EventType::kMariaUpdateRowsCompressedV1, 8);
  set(EventType::kMariaDeleteRowsCompressedV1, 8);
  set(EventType::kMariaWriteRowsCompressed, 10);
  set(EventType::kMariaUpdateRowsCompressed, 10);
  set(EventType::kMariaDeleteRowsCompressed, 10);
  set(EventType::kMariaGtid, 19);
  set(EventType::kMariaGtidList, 4);
  set(EventType::kMariaBinlogCheckpoint, 4);
  return fd;
}

}  // namespace rowbridge::binlog
