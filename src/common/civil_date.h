// Proleptic Gregorian calendar arithmetic on day numbers counted from 1970-01-01 (day 0), the
// count that Unix time, ClickHouse's Date and MySQL's TIMESTAMP use. Pure integer math over any
// int64 range a date can have: no time zone database, no allocation.
#pragma once

#include <cstdint>

namespace rowbridge {

struct CivilDate {
  int32_t year;    // proleptic: 0 is 1 BC
  uint32_t month;  // 1..12
  uint32_t day;    // 1..31
};

// Days since 1970-01-01 of a calendar date; the date is not checked (Feb 30 is Mar 1 or 2).
int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day);
// The calendar date of a day number; negative numbers are days before 1970.
CivilDate CivilFromDays(int64_t days);

// a / b rounded toward negative infinity (C++ rounds toward zero), for splitting negative second
// counts into days and seconds of the day. b must not be 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace rowbridge
