// Converters for DATE, DATETIME(f), TIMESTAMP(f) and TIME(f).
//
// DATETIME is a wall time: it becomes an instant by reading it in the plan's time zone
// (ConverterSettings::zone, default UTC; DST gaps and overlaps as TimeZone::LocalToUtc says).
// TIMESTAMP is an instant (UTC seconds) and is stored as is; only its text and its date depend on
// the zone. DATE is a calendar day; into DateTime it is midnight of that day in the zone.
//
// Targets and rules:
//   Date       1970-01-01 .. 2105-12-31 (ClickHouse 18.16 prints later days wrongly)
//   Date32     1900-01-01 .. 2299-12-31
//   DateTime   1970-01-01 00:00:00 .. 2105-12-31 23:59:59 UTC; fractions are dropped
//   DateTime64(P)  1900-01-01 00:00:00 .. 2299-12-31 23:59:59 UTC (P = 9: up to 2262-04-11);
//              fraction digits beyond P are dropped
//   String, LowCardinality(String), FixedString   MySQL's text (zero dates kept as 0000-00-00)
//   Int64 (TIME)   signed microseconds
//   UInt32, Int64, UInt64 (TIMESTAMP)   seconds since the epoch
//   DateTime, DateTime64 (TIME)         the time of day on 1970-01-01 UTC
// Out of range: zero_date (0000-00-00, a zero or impossible month/day, the zero TIMESTAMP) clamps
// to the raw 0 of the target (1970-01-01 [00:00:00], which ClickHouse 18.16 prints as
// 0000-00-00); date_before_range / date_after_range clamp to the first / last day (second) of the
// target; time_out_of_range (TIME < 0 or >= 24 h into a time of day) clamps to 00:00:00 /
// 23:59:59[.999...].
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectTemporalConverter(Converter& c, std::string& why_not);

// Range limits of the ClickHouse date and time types as rowbridge applies them (days since
// 1970-01-01 and seconds since the epoch, inclusive).
struct TemporalLimits {
  static constexpr int64_t kDateMaxDay = 49672;     // 2105-12-31
  static constexpr int64_t kDate32MinDay = -25567;  // 1900-01-01
  static constexpr int64_t kDate32MaxDay = 120529;  // 2299-12-31
  static constexpr int64_t kDateTimeMax = (kDateMaxDay + 1) * 86400 - 1;
  static constexpr int64_t kDateTime64Min = kDate32MinDay * 86400;
  static constexpr int64_t kDateTime64Max = (kDate32MaxDay + 1) * 86400 - 1;
};

}  // namespace rowbridge::mapping
