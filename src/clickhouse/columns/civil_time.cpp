#include "clickhouse/columns/civil_time.h"

namespace rowbridge::clickhouse {
namespace {

// Floor division and modulo, because C++ rounds toward zero and pre-1970 values are negative.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

void AppendDigits(int64_t v, int width, std::string& out) {
  char buf[20];
  int n = 0;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (v < 0) out.push_back('-');
  for (int i = n; i < width; ++i) out.push_back('0');
  while (n > 0) out.push_back(buf[--n]);
}

}  // namespace

// The era-based algorithm: a 400-year era has a fixed 146097 days, and counting years from
// March makes the leap day the last day of the year.
int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day) {
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

void AppendDateText(int64_t days, std::string& out) {
  CivilDate d = CivilFromDays(days);
  AppendDigits(d.year, 4, out);
  out.push_back('-');
  AppendDigits(d.month, 2, out);
  out.push_back('-');
  AppendDigits(d.day, 2, out);
}

void AppendDateTimeText(int64_t seconds, std::string& out) {
  int64_t days = FloorDiv(seconds, 86400);
  int64_t second_of_day = seconds - days * 86400;
  AppendDateText(days, out);
  out.push_back(' ');
  AppendDigits(second_of_day / 3600, 2, out);
  out.push_back(':');
  AppendDigits(second_of_day / 60 % 60, 2, out);
  out.push_back(':');
  AppendDigits(second_of_day % 60, 2, out);
}

}  // namespace rowbridge::clickhouse
