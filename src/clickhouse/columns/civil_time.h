// Proleptic Gregorian calendar arithmetic for ClickHouse's date and time columns, which count
// days (Date, Date32) or seconds/ticks (DateTime, DateTime64) from 1970-01-01 00:00:00 UTC.
// Pure integer math: no time zone database, no allocation.
#pragma once

#include <cstdint>
#include <string>

#include "common/civil_date.h"

namespace rowbridge::clickhouse {

// The calendar math itself is common/civil_date.h's; these names keep column code short.
using ::rowbridge::CivilDate;
using ::rowbridge::CivilFromDays;
using ::rowbridge::DaysFromCivil;

// "YYYY-MM-DD" for a day number.
void AppendDateText(int64_t days, std::string& out);
// "YYYY-MM-DD hh:mm:ss" for seconds since the epoch, in UTC.
void AppendDateTimeText(int64_t seconds, std::string& out);

}  // namespace rowbridge::clickhouse
