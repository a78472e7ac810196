#include <gtest/gtest.h>

#include <cstdint>

#include "common/civil_date.h"

namespace rowbridge {
namespace {

// The era algorithm in plain signed arithmetic with floor division, written independently of the
// production code's fast path: the two must agree on every date.
int64_t ReferenceDays(int64_t year, int64_t month, int64_t day) {
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t year_of_era = y - era * 400;
  const int64_t month_from_march = (month + 9) % 12;
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

TEST(CivilDate, KnownDays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2149, 6, 6), 65535);  // the last day of ClickHouse's Date
  EXPECT_EQ(DaysFromCivil(0, 1, 1), -719528);   // MySQL's first year
  EXPECT_EQ(DaysFromCivil(9999, 12, 31), 2932896);
}

// Every year MySQL stores and well beyond, both sides of the fast path's bounds, with the month
// and day fields a zero or invalid MySQL date can hold (month 0..15, day 0..31).
TEST(CivilDate, EveryDateAgreesWithTheReference) {
  for (int64_t year : {-1'000'001LL, -2'000LL, -401LL, -400LL, -1LL}) {
    for (int64_t month = 0; month <= 15; ++month)
      for (int64_t day = 0; day <= 31; ++day)
        ASSERT_EQ(DaysFromCivil(static_cast<int32_t>(year), static_cast<uint32_t>(month),
                                static_cast<uint32_t>(day)),
                  ReferenceDays(year, month, day))
            << year << "-" << month << "-" << day;
  }
  for (int64_t year = 0; year <= 12'000; ++year) {
    for (int64_t month = 0; month <= 15; ++month)
      for (int64_t day : {0, 1, 15, 28, 29, 30, 31})
        ASSERT_EQ(DaysFromCivil(static_cast<int32_t>(year), static_cast<uint32_t>(month),
                                static_cast<uint32_t>(day)),
                  ReferenceDays(year, month, day))
            << year << "-" << month << "-" << day;
  }
  for (int64_t year : {999'999LL, 1'000'000LL, 1'000'001LL, 2'000'000'000LL}) {
    for (int64_t month = 0; month <= 15; ++month)
      ASSERT_EQ(DaysFromCivil(static_cast<int32_t>(year), static_cast<uint32_t>(month), 17),
                ReferenceDays(year, month, 17))
          << year << "-" << month;
  }
}

TEST(CivilDate, DaysRoundTrip) {
  for (int64_t days = -800'000; days <= 3'000'000; days += 7) {
    const CivilDate date = CivilFromDays(days);
    ASSERT_EQ(DaysFromCivil(date.year, date.month, date.day), days) << days;
  }
}

}  // namespace
}  // namespace rowbridge
