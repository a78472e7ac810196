// MySQL temporal column values as stored in row events, and their text forms.
//
// Old formats (before MySQL 5.6.4 / MariaDB with mysql56_temporal_format=OFF) are little-endian
// packed decimal-ish integers; the "2" formats (TIME2, DATETIME2, TIMESTAMP2) are big-endian with
// an optional fractional part of (fsp + 1) / 2 bytes. Zero and invalid dates (0000-00-00,
// 2020-02-31 with ALLOW_INVALID_DATES) are kept as their parts: nothing is validated against a
// calendar, because MySQL stores and prints them as they are.
//
// Decoders take the cell bytes and throw Error(kCorruption) if fewer bytes than the format needs
// are given or fsp is out of 0..6. They never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rowbridge::binlog {

// A broken-down DATE, TIME or DATETIME. For TIME, `hour` holds all hours (may exceed 23, up to
// 838 for valid MySQL values, 1023 representable) and year/month/day are 0.
struct TemporalParts {
  uint32_t year = 0;
  uint32_t month = 0;
  uint32_t day = 0;
  uint32_t hour = 0;
  uint32_t minute = 0;
  uint32_t second = 0;
  uint32_t microsecond = 0;
  bool negative = false;  // TIME only
  bool operator==(const TemporalParts&) const = default;
};

// A TIMESTAMP: seconds since the Unix epoch (UTC) plus microseconds. 0 is MySQL's zero timestamp
// ('0000-00-00 00:00:00').
struct TimestampValue {
  int64_t seconds = 0;
  uint32_t microsecond = 0;
  bool operator==(const TimestampValue&) const = default;
};

// Bytes each format takes in a row event.
inline constexpr size_t kDateBytes = 3;
inline constexpr size_t kTimeBytes = 3;
inline constexpr size_t kDateTimeBytes = 8;
inline constexpr size_t kTimestampBytes = 4;
size_t FractionalBytes(uint32_t fsp);  // (fsp + 1) / 2; throws kCorruption if fsp > 6
inline size_t Time2Bytes(uint32_t fsp) {
  return 3 + FractionalBytes(fsp);
}
inline size_t DateTime2Bytes(uint32_t fsp) {
  return 5 + FractionalBytes(fsp);
}
inline size_t Timestamp2Bytes(uint32_t fsp) {
  return 4 + FractionalBytes(fsp);
}

TemporalParts DecodeDate(const uint8_t* data, size_t size);                     // DATE (NEWDATE)
TemporalParts DecodeTime(const uint8_t* data, size_t size);                     // old TIME
TemporalParts DecodeTime2(const uint8_t* data, size_t size, uint32_t fsp);      // TIME2
TemporalParts DecodeDateTime(const uint8_t* data, size_t size);                 // old DATETIME
TemporalParts DecodeDateTime2(const uint8_t* data, size_t size, uint32_t fsp);  // DATETIME2
TimestampValue DecodeTimestamp(const uint8_t* data, size_t size);               // old TIMESTAMP
TimestampValue DecodeTimestamp2(const uint8_t* data, size_t size, uint32_t fsp);
// YEAR: 0 stays 0 (printed 0000), otherwise 1900 + byte.
uint32_t DecodeYear(const uint8_t* data, size_t size);

// The packed 8-byte integers MySQL uses inside binary JSON opaque values (and in-memory):
// DATETIME/DATE/TIMESTAMP as ((year*13+month)<<5|day)<<17 | hour<<12|minute<<6|second) << 24 |
// microsecond, TIME as (hour<<12|minute<<6|second) << 24 | microsecond; negated when negative.
TemporalParts UnpackDateTimePacked(int64_t packed);
TemporalParts UnpackTimePacked(int64_t packed);

// Text exactly as MySQL prints the value: "YYYY-MM-DD", "[-]HH:MM:SS[.ffffff]" (at least two hour
// digits), "YYYY-MM-DD HH:MM:SS[.ffffff]" with `fsp` fraction digits (none when fsp == 0).
void AppendDateText(const TemporalParts& parts, std::string& out);
void AppendTimeText(const TemporalParts& parts, uint32_t fsp, std::string& out);
void AppendDateTimeText(const TemporalParts& parts, uint32_t fsp, std::string& out);
// UTC broken-down time of a timestamp (proleptic Gregorian; seconds == 0 gives all-zero parts).
TemporalParts TimestampToUtcParts(const TimestampValue& ts);

}  // namespace rowbridge::binlog
