#include "common/civil_date.h"

namespace rowbridge {

// The era-based algorithm: a 400-year era has a fixed 146097 days, and counting years from
// March makes the leap day the last day of the year.
int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day) {
  if (year >= 0 && year <= 1'000'000) [[likely]] {
    // Every year a MySQL value holds: shifted one era up, the year is never negative, so the
    // era split is two unsigned divisions by constants instead of floor divisions (a date
    // column costs this once per row).
    const uint64_t y = static_cast<uint64_t>(year) + 400 - (month <= 2 ? 1 : 0);
    const uint64_t era = y / 400;
    const uint64_t year_of_era = y - era * 400;
    const uint64_t month_from_march = (month + 9) % 12;
    const uint64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    const uint64_t day_of_era =
        year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return static_cast<int64_t>(era * 146097 + day_of_era) - 146097 - 719468;
  }
  int64_t y = static_cast<int64_t>(year) - (month <= 2 ? 1 : 0);
  int64_t era = FloorDiv(y, 400);
  int64_t year_of_era = y - era * 400;                                // [0, 399]
  int64_t month_from_march = (static_cast<int64_t>(month) + 9) % 12;  // March = 0
  int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;   // [0, 365]
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  int64_t era = FloorDiv(days, 146097);
  int64_t day_of_era = days - era * 146097;  // [0, 146096]
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_from_march = (5 * day_of_year + 2) / 153;
  auto day = static_cast<uint32_t>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  auto month =
      static_cast<uint32_t>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {static_cast<int32_t>(year), month, day};
}

}  // namespace rowbridge
