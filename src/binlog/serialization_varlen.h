// The variable-length integers of MySQL's serialization library (libs/mysql/serialization), used
// by GTID_TAGGED_LOG_EVENT and tagged PREVIOUS_GTIDS. The number of trailing one bits in the
// first byte, plus one, is the encoded length (1..9 bytes); the value is the little-endian bytes
// shifted right by that length, except for 0xff, which is followed by the raw 8-byte value.
// Signed values are zig-zag encoded (the low bit is the sign).
#pragma once

#include <bit>
#include <cstdint>

#include "common/byte_reader.h"

namespace rowbridge::binlog {

inline uint64_t ReadVarlenUnsigned(ByteReader& r, const char* what) {
  uint8_t first = r.U8(what);
  if (first == 0xff) return r.U64(what);
  int n = std::countr_one(first) + 1;
  uint64_t v = first;
  for (int i = 1; i < n; ++i) v |= static_cast<uint64_t>(r.U8(what)) << (8 * i);
  return v >> n;
}

inline int64_t ReadVarlenSigned(ByteReader& r, const char* what) {
  uint64_t u = ReadVarlenUnsigned(r, what);
  uint64_t magnitude = u >> 1;
  return (u & 1) ? -static_cast<int64_t>(magnitude) - 1 : static_cast<int64_t>(magnitude);
}

}  // namespace rowbridge::binlog
