#include "mysql/binary_row.h"

#include "common/byte_reader.h"
#include "common/error.h"

namespace rowbridge::mysql {
namespace {

// MYSQL_TYPE_* codes the binary row format treats specially.
constexpr uint8_t kTypeTiny = 1, kTypeShort = 2, kTypeLong = 3, kTypeFloat = 4, kTypeDouble = 5,
                  kTypeNull = 6, kTypeTimestamp = 7, kTypeLongLong = 8, kTypeInt24 = 9,
                  kTypeDate = 10, kTypeTime = 11, kTypeDateTime = 12, kTypeYear = 13;

[[noreturn]] void Malformed(std::string_view peer, const ColumnDefinition& column, size_t index,
                            std::string_view what) {
  Fail(ErrorCode::kProtocol, "MySQL server {} sent a malformed binary row: column {} ('{}'): {}",
       peer, index + 1, column.name.substr(0, 64), what);
}

}  // namespace

size_t BinaryFixedSize(uint8_t type) {
  switch (type) {
    case kTypeTiny:
      return 1;
    case kTypeShort:
    case kTypeYear:
      return 2;
    case kTypeLong:
    case kTypeInt24:
    case kTypeFloat:
      return 4;
    case kTypeLongLong:
    case kTypeDouble:
      return 8;
    default:
      return 0;
  }
}

void ParseBinaryRow(std::string_view payload, std::span<const ColumnDefinition> columns,
                    std::vector<std::string_view>& fields, std::vector<uint8_t>& nulls,
                    std::string_view peer) {
  const size_t count = columns.size();
  if (fields.size() != count || nulls.size() != count) {
    Fail(ErrorCode::kInternal, "binary row of {} columns parsed into {} fields", count,
         fields.size());
  }
  const size_t bitmap_size = (count + 9) / 8;
  if (payload.empty() || payload[0] != '\0') {
    Fail(ErrorCode::kProtocol, "MySQL server {} sent a binary row without its 0x00 header", peer);
  }
  if (payload.size() < 1 + bitmap_size) {
    Fail(ErrorCode::kProtocol,
         "MySQL server {} sent a binary row of {} bytes, too short for the NULL bitmap of {} "
         "columns",
         peer, payload.size(), count);
  }
  const auto* bitmap = reinterpret_cast<const uint8_t*>(payload.data()) + 1;
  ByteReader r(payload.substr(1 + bitmap_size), 0, "binary row");
  for (size_t i = 0; i < count; ++i) {
    const ColumnDefinition& column = columns[i];
    const size_t bit = i + 2;
    if ((bitmap[bit / 8] >> (bit % 8)) & 1 || column.type == kTypeNull) {
      nulls[i] = 1;
      fields[i] = {};
      continue;
    }
    nulls[i] = 0;
    size_t size = BinaryFixedSize(column.type);
    if (size == 0) {
      if (r.AtEnd()) Malformed(peer, column, i, "the row ends before the value");
      const uint8_t first = *r.current();
      switch (column.type) {
        case kTypeDate:
        case kTypeDateTime:
        case kTypeTimestamp:
          r.Skip(1);
          size = first;
          if (size != 0 && size != 4 && size != 7 && size != 11)
            Malformed(peer, column, i, fmt::format("a date/time value of {} bytes", size));
          break;
        case kTypeTime:
          r.Skip(1);
          size = first;
          if (size != 0 && size != 8 && size != 12)
            Malformed(peer, column, i, fmt::format("a TIME value of {} bytes", size));
          break;
        default: {
          // Length-encoded: checked here so that ByteReader's own errors never fire.
          size_t prefix = first < 0xfb ? 1 : first == 0xfc ? 3 : first == 0xfd ? 4 : 9;
          if (first == 0xfb || first == 0xff)
            Malformed(peer, column, i, fmt::format("bad length prefix 0x{:02x}", first));
          if (r.remaining() < prefix) Malformed(peer, column, i, "truncated length");
          const uint64_t length = r.LengthEncoded();
          if (length > r.remaining())
            Malformed(
                peer, column, i,
                fmt::format("a value of {} bytes with {} left in the row", length, r.remaining()));
          size = static_cast<size_t>(length);
        }
      }
    }
    if (size > r.remaining())
      Malformed(peer, column, i,
                fmt::format("a value of {} bytes with {} left in the row", size, r.remaining()));
    fields[i] = r.Bytes(size);
  }
  if (!r.AtEnd()) {
    Fail(ErrorCode::kProtocol, "MySQL server {} sent {} bytes after the last value of a binary row",
         peer, r.remaining());
  }
}

}  // namespace rowbridge::mysql
