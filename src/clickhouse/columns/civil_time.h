// Proleptic Gregorian calendar arithmetic for ClickHouse's date and time columns, which count
// days (Date, Date32) or seconds/ticks (DateTime, DateTime64) from 1970-01-01 00:00:00 UTC.
// Pure integer math: no time zone database, no allocation.
#pragma once

#include <cstdint>
#include <string>

namespace rowbridge::clickhouse {

struct CivilDate {
  int32_t year;
  uint32_t month;  // 1..12
  uint32_t day;    // 1..31
};

// Days since 1970-01-01 of a valid calendar date (not checked here).
int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day);
CivilDate CivilFromDays(int64_t days);

// "YYYY-MM-DD" for a day number.
void AppendDateText(int64_t days, std::string& out);
// "YYYY-MM-DD hh:mm:ss" for seconds since the epoch, in UTC.
void AppendDateTimeText(int64_t seconds, std::string& out);

}  // namespace rowbridge::clickhouse
