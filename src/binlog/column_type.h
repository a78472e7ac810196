// MySQL column type codes as they appear in TABLE_MAP events (enum_field_types), and helpers.
#pragma once

#include <cstdint>
#include <string_view>

namespace rowbridge::binlog {

enum class ColumnType : uint8_t {
  kDecimal = 0,  // pre-5.0 DECIMAL, never in row events of supported servers
  kTiny = 1,
  kShort = 2,
  kLong = 3,
  kFloat = 4,
  kDouble = 5,
  kNull = 6,
  kTimestamp = 7,  // old TIMESTAMP: 4-byte seconds
  kLongLong = 8,
  kInt24 = 9,
  kDate = 10,
  kTime = 11,      // old TIME: 3-byte packed HHMMSS
  kDateTime = 12,  // old DATETIME: 8-byte packed YYYYMMDDHHMMSS
  kYear = 13,
  kNewDate = 14,
  kVarchar = 15,
  kBit = 16,
  kTimestamp2 = 17,
  kDateTime2 = 18,
  kTime2 = 19,
  kTypedArray = 20,
  kVector = 242,
  kInvalid = 243,
  kBool = 244,
  kJson = 245,
  kNewDecimal = 246,
  kEnum = 247,
  kSet = 248,
  kTinyBlob = 249,
  kMediumBlob = 250,
  kLongBlob = 251,
  kBlob = 252,
  kVarString = 253,
  kString = 254,
  kGeometry = 255,
};

// "TINY", "NEWDECIMAL", ... for messages; "UNKNOWN(n)" is not produced here (returns "UNKNOWN").
std::string_view ColumnTypeName(ColumnType type);

}  // namespace rowbridge::binlog
