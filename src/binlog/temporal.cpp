#include "binlog/temporal.h"

#include <fmt/format.h>

#include <iterator>

#include "common/civil_date.h"
#include "common/error.h"

namespace rowbridge::binlog {
namespace {

void NeedBytes(size_t size, size_t wanted, const char* what) {
  if (size < wanted) {
    Fail(ErrorCode::kCorruption, "{} value needs {} bytes, got {}", what, wanted, size);
  }
}

uint64_t LoadBigEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

uint64_t LoadLittleEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// The fractional part of TIME2/DATETIME2 as the packed formats hold it: microseconds, signed for
// TIME2 (negative times store a negative fraction, see DecodeTime2).
int64_t ReadSignedFraction(const uint8_t* p, uint32_t fsp) {
  switch (fsp) {
    case 1:
    case 2:
      return static_cast<int8_t>(p[0]) * int64_t{10000};
    case 3:
    case 4:
      return static_cast<int16_t>(LoadBigEndian(p, 2)) * int64_t{100};
    case 5:
    case 6: {
      const uint64_t v = LoadBigEndian(p, 3);
      return (v & 0x800000) != 0 ? static_cast<int64_t>(v) - 0x1000000 : static_cast<int64_t>(v);
    }
    default:
      return 0;
  }
}

uint32_t ReadUnsignedFraction(const uint8_t* p, uint32_t fsp) {
  switch (fsp) {
    case 1:
    case 2:
      return p[0] * 10000u;
    case 3:
    case 4:
      return static_cast<uint32_t>(LoadBigEndian(p, 2)) * 100u;
    case 5:
    case 6:
      return static_cast<uint32_t>(LoadBigEndian(p, 3));
    default:
      return 0;
  }
}

constexpr uint32_t kFractionDivisor[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

void AppendFraction(uint32_t microsecond, uint32_t fsp, std::string& out) {
  if (fsp == 0) return;
  if (fsp > 6) fsp = 6;
  fmt::format_to(std::back_inserter(out), ".{:0{}}", microsecond / kFractionDivisor[fsp], fsp);
}

}  // namespace

size_t FractionalBytes(uint32_t fsp) {
  if (fsp > 6) Fail(ErrorCode::kCorruption, "fractional-second precision {} is outside 0..6", fsp);
  return (fsp + 1) / 2;
}

TemporalParts DecodeDate(const uint8_t* data, size_t size) {
  NeedBytes(size, kDateBytes, "DATE");
  const uint32_t v = static_cast<uint32_t>(LoadLittleEndian(data, 3));
  TemporalParts parts;
  parts.day = v & 31;
  parts.month = (v >> 5) & 15;
  parts.year = v >> 9;
  return parts;
}

TemporalParts DecodeTime(const uint8_t* data, size_t size) {
  NeedBytes(size, kTimeBytes, "TIME");
  uint32_t raw = static_cast<uint32_t>(LoadLittleEndian(data, 3));
  int32_t v =
      (raw & 0x800000) != 0 ? static_cast<int32_t>(raw) - 0x1000000 : static_cast<int32_t>(raw);
  TemporalParts parts;
  parts.negative = v < 0;
  const uint32_t a = static_cast<uint32_t>(v < 0 ? -v : v);  // HHHMMSS as a decimal number
  parts.hour = a / 10000;
  parts.minute = a / 100 % 100;
  parts.second = a % 100;
  return parts;
}

TemporalParts UnpackTimePacked(int64_t packed) {
  TemporalParts parts;
  // The negation of INT64_MIN cannot be represented; no valid TIME gets near it.
  uint64_t magnitude =
      packed < 0 ? uint64_t{0} - static_cast<uint64_t>(packed) : static_cast<uint64_t>(packed);
  parts.negative = packed < 0;
  const uint64_t hms = magnitude >> 24;
  parts.microsecond = static_cast<uint32_t>(magnitude & 0xffffff);
  parts.hour = static_cast<uint32_t>((hms >> 12) % 1024);
  parts.minute = static_cast<uint32_t>((hms >> 6) % 64);
  parts.second = static_cast<uint32_t>(hms % 64);
  return parts;
}

TemporalParts UnpackDateTimePacked(int64_t packed) {
  TemporalParts parts;
  uint64_t magnitude =
      packed < 0 ? uint64_t{0} - static_cast<uint64_t>(packed) : static_cast<uint64_t>(packed);
  parts.negative = packed < 0;
  parts.microsecond = static_cast<uint32_t>(magnitude & 0xffffff);
  const uint64_t ymdhms = magnitude >> 24;
  const uint64_t ymd = ymdhms >> 17;
  const uint64_t ym = ymd >> 5;
  const uint64_t hms = ymdhms & 0x1ffff;
  parts.day = static_cast<uint32_t>(ymd % 32);
  parts.month = static_cast<uint32_t>(ym % 13);
  parts.year = static_cast<uint32_t>(ym / 13);
  parts.second = static_cast<uint32_t>(hms % 64);
  parts.minute = static_cast<uint32_t>((hms >> 6) % 64);
  parts.hour = static_cast<uint32_t>(hms >> 12);
  return parts;
}

TemporalParts DecodeTime2(const uint8_t* data, size_t size, uint32_t fsp) {
  NeedBytes(size, Time2Bytes(fsp), "TIME2");
  constexpr int64_t kIntOffset = 0x800000;
  int64_t int_part = static_cast<int64_t>(LoadBigEndian(data, 3)) - kIntOffset;
  int64_t frac = 0;
  switch (fsp) {
    case 1:
    case 2:
    case 3:
    case 4: {
      // The fraction is stored unsigned; for negative times it counts down from the next
      // whole second, so borrow one second back.
      const int64_t unit = fsp <= 2 ? 0x100 : 0x10000;
      frac = static_cast<int64_t>(LoadBigEndian(data + 3, fsp <= 2 ? 1 : 2));
      if (int_part < 0 && frac != 0) {
        int_part += 1;
        frac -= unit;
      }
      frac *= fsp <= 2 ? 10000 : 100;
      break;
    }
    case 5:
    case 6: {
      // Six bytes hold ((int_part << 24) + frac) + (0x800000 << 24) as one number.
      constexpr int64_t kOffset = int64_t{0x800000} << 24;
      const int64_t packed = static_cast<int64_t>(LoadBigEndian(data, 6)) - kOffset;
      return UnpackTimePacked(packed);
    }
    default:
      break;
  }
  return UnpackTimePacked(int_part * (int64_t{1} << 24) + frac);
}

TemporalParts DecodeDateTime(const uint8_t* data, size_t size) {
  NeedBytes(size, kDateTimeBytes, "DATETIME");
  const uint64_t v = LoadLittleEndian(data, 8);  // YYYYMMDDhhmmss as a decimal number
  const uint64_t date = v / 1000000;
  const uint64_t time = v % 1000000;
  TemporalParts parts;
  parts.year = static_cast<uint32_t>(date / 10000);
  parts.month = static_cast<uint32_t>(date / 100 % 100);
  parts.day = static_cast<uint32_t>(date % 100);
  parts.hour = static_cast<uint32_t>(time / 10000);
  parts.minute = static_cast<uint32_t>(time / 100 % 100);
  parts.second = static_cast<uint32_t>(time % 100);
  return parts;
}

TemporalParts DecodeDateTime2(const uint8_t* data, size_t size, uint32_t fsp) {
  NeedBytes(size, DateTime2Bytes(fsp), "DATETIME2");
  constexpr int64_t kIntOffset = int64_t{0x8000000000};
  const int64_t int_part = static_cast<int64_t>(LoadBigEndian(data, 5)) - kIntOffset;
  // Servers write DATETIME2 with the sign bit set: a datetime is never negative. A clear bit is
  // corrupt data (and the packed arithmetic below would overflow for the most negative values).
  if (int_part < 0) {
    Fail(ErrorCode::kCorruption, "DATETIME2 value 0x{:010x} has its sign bit clear",
         LoadBigEndian(data, 5));
  }
  const int64_t frac = ReadSignedFraction(data + 5, fsp);
  return UnpackDateTimePacked(int_part * (int64_t{1} << 24) + frac);
}

TimestampValue DecodeTimestamp(const uint8_t* data, size_t size) {
  NeedBytes(size, kTimestampBytes, "TIMESTAMP");
  return {static_cast<int64_t>(LoadLittleEndian(data, 4)), 0};
}

TimestampValue DecodeTimestamp2(const uint8_t* data, size_t size, uint32_t fsp) {
  NeedBytes(size, Timestamp2Bytes(fsp), "TIMESTAMP2");
  return {static_cast<int64_t>(LoadBigEndian(data, 4)), ReadUnsignedFraction(data + 4, fsp)};
}

uint32_t DecodeYear(const uint8_t* data, size_t size) {
  NeedBytes(size, 1, "YEAR");
  return data[0] == 0 ? 0 : 1900u + data[0];
}

void AppendDateText(const TemporalParts& p, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02}", p.year, p.month, p.day);
}

void AppendTimeText(const TemporalParts& p, uint32_t fsp, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{}{:02}:{:02}:{:02}", p.negative ? "-" : "", p.hour,
                 p.minute, p.second);
  AppendFraction(p.microsecond, fsp, out);
}

void AppendDateTimeText(const TemporalParts& p, uint32_t fsp, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02} {:02}:{:02}:{:02}", p.year, p.month,
                 p.day, p.hour, p.minute, p.second);
  AppendFraction(p.microsecond, fsp, out);
}

TemporalParts TimestampToUtcParts(const TimestampValue& ts) {
  TemporalParts parts;
  if (ts.seconds == 0 && ts.microsecond == 0) return parts;  // MySQL's zero timestamp
  const int64_t days = FloorDiv(ts.seconds, 86400);
  const int64_t second_of_day = ts.seconds - days * 86400;
  parts.hour = static_cast<uint32_t>(second_of_day / 3600);
  parts.minute = static_cast<uint32_t>(second_of_day / 60 % 60);
  parts.second = static_cast<uint32_t>(second_of_day % 60);
  parts.microsecond = ts.microsecond;
  const CivilDate date = CivilFromDays(days);
  parts.year = static_cast<uint32_t>(date.year);
  parts.month = date.month;
  parts.day = date.day;
  return parts;
}

}  // namespace rowbridge::binlog
