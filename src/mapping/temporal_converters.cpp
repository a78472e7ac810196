#include "mapping/temporal_converters.h"

#include <limits>

#include "clickhouse/columns/civil_time.h"
#include "clickhouse/columns/date.h"
#include "clickhouse/columns/numeric.h"
#include "common/civil_date.h"
#include "mapping/integer_converters.h"
#include "mapping/text_sink.h"

namespace rowbridge::mapping {

namespace {

using binlog::Cell;
using binlog::ColumnType;
using binlog::TemporalParts;
using clickhouse::Column;
using clickhouse::TypeCode;

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

uint32_t DaysInMonth(uint32_t year, uint32_t month) {
  static constexpr uint8_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)) return 29;
  return kDays[month - 1];
}

// 0000-00-00, a zero month or day, or a day the month does not have (ALLOW_INVALID_DATES).
inline bool IsZeroOrInvalidDate(const TemporalParts& p) {
  return p.month == 0 || p.day == 0 || p.month > 12 || p.day > DaysInMonth(p.year, p.month);
}

inline int64_t DaysOf(const TemporalParts& p) {
  return clickhouse::DaysFromCivil(static_cast<int32_t>(p.year), p.month, p.day);
}

inline int64_t LocalSecondsOf(const TemporalParts& p) {
  return DaysOf(p) * 86400 + int64_t{p.hour} * 3600 + int64_t{p.minute} * 60 + p.second;
}

// Ticks of a DateTime64 for `seconds` plus `micros` (0..999999).
inline int64_t Ticks(const Converter& c, int64_t seconds, uint32_t micros) {
  const int64_t tps = c.ticks_per_second;
  const int64_t fraction = tps <= 1000000 ? micros / (1000000 / tps) : micros * (tps / 1000000);
  return seconds * tps + fraction;
}

enum class Unit { kDays, kSeconds };

[[gnu::noinline]] int64_t ClampRange(const Converter& c, const Cell& cell, int64_t v, Unit unit) {
  const bool below = v < c.range_min;
  const int64_t bound = below ? c.range_min : c.range_max;
  std::string bound_text;
  if (unit == Unit::kDays)
    clickhouse::AppendDateText(bound, bound_text);
  else
    clickhouse::AppendDateTimeText(bound, bound_text);
  c.OutOfRange(below ? RangeRule::kDateBeforeRange : RangeRule::kDateAfterRange, cell,
               below ? "before the first day the target type holds"
                     : "after the last day the target type holds",
               bound_text);
  return bound;
}

[[gnu::noinline]] void ReportZero(const Converter& c, const Cell& cell) {
  c.OutOfRange(RangeRule::kZeroDate, cell, "a zero or invalid date has no ClickHouse value",
               "the type's zero (1970-01-01 00:00:00)");
}

inline int64_t InRange(const Converter& c, const Cell& cell, int64_t v, Unit unit) {
  if (v < c.range_min || v > c.range_max) [[unlikely]]
    return ClampRange(c, cell, v, unit);
  return v;
}

// ---- sinks: one per target type, taking the value in the target's unit ----

enum class Sink { kDate, kDate32, kDateTime, kDateTime64 };

template <Sink S>
inline void StoreInstant(const Converter& c, const Cell& cell, Column& column, int64_t seconds,
                         uint32_t micros) {
  if constexpr (S == Sink::kDateTime) {
    static_cast<clickhouse::ColumnDateTime&>(column).AppendSeconds(
        InRange(c, cell, seconds, Unit::kSeconds));
  } else if constexpr (S == Sink::kDateTime64) {
    const int64_t checked = InRange(c, cell, seconds, Unit::kSeconds);
    static_cast<clickhouse::ColumnDateTime64&>(column).AppendTicks(
        Ticks(c, checked, checked == seconds ? micros : 0));
  }
}

template <Sink S>
inline void StoreDays(const Converter& c, const Cell& cell, Column& column, int64_t days) {
  const int64_t checked = InRange(c, cell, days, Unit::kDays);
  if constexpr (S == Sink::kDate)
    static_cast<clickhouse::ColumnDate&>(column).AppendDays(checked);
  else
    static_cast<clickhouse::ColumnDate32&>(column).AppendDays(checked);
}

template <Sink S>
inline void StoreZero(Column& column) {
  if constexpr (S == Sink::kDate) static_cast<clickhouse::ColumnDate&>(column).AppendDays(0);
  if constexpr (S == Sink::kDate32) static_cast<clickhouse::ColumnDate32&>(column).AppendDays(0);
  if constexpr (S == Sink::kDateTime)
    static_cast<clickhouse::ColumnDateTime&>(column).AppendSeconds(0);
  if constexpr (S == Sink::kDateTime64)
    static_cast<clickhouse::ColumnDateTime64&>(column).AppendTicks(0);
}

constexpr bool IsDaySink(Sink s) {
  return s == Sink::kDate || s == Sink::kDate32;
}

// ---- DATE ----

template <Sink S>
void DateTo(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const TemporalParts p = CellDateParts(cell);
  if (IsZeroOrInvalidDate(p)) [[unlikely]] {
    ReportZero(c, cell);
    StoreZero<S>(column);
    return;
  }
  if constexpr (IsDaySink(S)) {
    StoreDays<S>(c, cell, column, DaysOf(p));
  } else {
    StoreInstant<S>(c, cell, column, c.zone->LocalToUtc(DaysOf(p) * 86400), 0);
  }
}

void DateToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatDate(CellDateParts(cell), text);
  PutText(c, cell, column, text.view());
}

// ---- DATETIME ----

template <Sink S>
void DateTimeTo(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const TemporalParts p = CellDateTimeParts(cell);
  if (IsZeroOrInvalidDate(p)) [[unlikely]] {
    ReportZero(c, cell);
    StoreZero<S>(column);
    return;
  }
  if constexpr (IsDaySink(S)) {
    StoreDays<S>(c, cell, column, DaysOf(p));
  } else {
    StoreInstant<S>(c, cell, column, c.zone->LocalToUtc(LocalSecondsOf(p)), p.microsecond);
  }
}

void DateTimeToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatDateTime(CellDateTimeParts(cell), TemporalFsp(c.source), text);
  PutText(c, cell, column, text.view());
}

// ---- TIMESTAMP ----

template <Sink S>
void TimestampTo(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  const binlog::TimestampValue ts = CellTimestamp(cell);
  if (ts.seconds == 0 && ts.microsecond == 0) [[unlikely]] {
    ReportZero(c, cell);
    StoreZero<S>(column);
    return;
  }
  if constexpr (IsDaySink(S)) {
    StoreDays<S>(c, cell, column, FloorDiv(c.zone->UtcToLocal(ts.seconds), 86400));
  } else {
    StoreInstant<S>(c, cell, column, ts.seconds, ts.microsecond);
  }
}

void TimestampToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatDateTime(TimestampParts(CellTimestamp(cell), *c.zone), TemporalFsp(c.source), text);
  PutText(c, cell, column, text.view());
}

void TimestampToSeconds(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  StoreInteger(c, cell, column, CellTimestamp(cell).seconds);
}

// ---- TIME ----

inline int64_t TimeMicros(const TemporalParts& p) {
  const int64_t magnitude =
      (int64_t{p.hour} * 3600 + int64_t{p.minute} * 60 + p.second) * 1000000 + p.microsecond;
  return p.negative ? -magnitude : magnitude;
}

void TimeToText(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  TextBuffer text;
  FormatTime(CellTimeParts(cell), TemporalFsp(c.source), text);
  PutText(c, cell, column, text.view());
}

void TimeToMicros(const Converter&, const Cell& cell, Column& column, ConvertScratch&) {
  static_cast<clickhouse::ColumnInt64&>(column).Append(TimeMicros(CellTimeParts(cell)));
}

template <Sink S>
void TimeOfDay(const Converter& c, const Cell& cell, Column& column, ConvertScratch&) {
  int64_t micros = TimeMicros(CellTimeParts(cell));
  if (micros < 0 || micros >= kMicrosPerDay) [[unlikely]] {
    const bool below = micros < 0;
    micros = below ? 0 : kMicrosPerDay - 1;
    c.OutOfRange(RangeRule::kTimeOutOfRange, cell,
                 below ? "a negative TIME is no time of day"
                       : "a TIME of 24 hours or more is no "
                         "time of day",
                 below ? "00:00:00" : "23:59:59.999999");
  }
  if constexpr (S == Sink::kDateTime) {
    static_cast<clickhouse::ColumnDateTime&>(column).AppendSeconds(micros / 1000000);
  } else {
    static_cast<clickhouse::ColumnDateTime64&>(column).AppendTicks(
        Ticks(c, micros / 1000000, static_cast<uint32_t>(micros % 1000000)));
  }
}

// ---- selection ----

bool SetupTarget(Converter& c, Sink& sink) {
  switch (c.target.code) {
    case TypeCode::kDate:
      sink = Sink::kDate;
      c.range_min = 0;
      c.range_max = TemporalLimits::kDateMaxDay;
      return true;
    case TypeCode::kDate32:
      sink = Sink::kDate32;
      c.range_min = TemporalLimits::kDate32MinDay;
      c.range_max = TemporalLimits::kDate32MaxDay;
      return true;
    case TypeCode::kDateTime:
      sink = Sink::kDateTime;
      c.range_min = 0;
      c.range_max = TemporalLimits::kDateTimeMax;
      return true;
    case TypeCode::kDateTime64: {
      sink = Sink::kDateTime64;
      if (c.target.precision > 9) return false;
      int64_t tps = 1;
      for (uint32_t i = 0; i < c.target.precision; ++i) tps *= 10;
      c.ticks_per_second = tps;
      c.range_min =
          std::max(TemporalLimits::kDateTime64Min, std::numeric_limits<int64_t>::min() / tps + 1);
      c.range_max =
          std::min(TemporalLimits::kDateTime64Max, std::numeric_limits<int64_t>::max() / tps - 1);
      return true;
    }
    default:
      return false;
  }
}

ConvertFn ForSink(Sink s, ConvertFn date, ConvertFn date32, ConvertFn datetime,
                  ConvertFn datetime64) {
  switch (s) {
    case Sink::kDate:
      return date;
    case Sink::kDate32:
      return date32;
    case Sink::kDateTime:
      return datetime;
    case Sink::kDateTime64:
      return datetime64;
  }
  return nullptr;
}

}  // namespace

bool SelectTemporalConverter(Converter& c, std::string& why_not) {
  const ColumnType type = c.source.type;
  const bool is_date = type == ColumnType::kDate || type == ColumnType::kNewDate;
  const bool is_datetime = type == ColumnType::kDateTime || type == ColumnType::kDateTime2;
  const bool is_timestamp = type == ColumnType::kTimestamp || type == ColumnType::kTimestamp2;
  if (TemporalFsp(c.source) > 6) {
    why_not = fmt::format("fractional-second precision {} is outside 0..6", c.source.meta);
    return false;
  }
  if (c.text_sink != TextSink::kNone) {
    c.fn = is_date        ? &DateToText
           : is_datetime  ? &DateTimeToText
           : is_timestamp ? &TimestampToText
                          : &TimeToText;
    return true;
  }
  Sink sink;
  const bool temporal_target = SetupTarget(c, sink);
  if (c.target.code == TypeCode::kDateTime64 && !temporal_target) {
    why_not = fmt::format("DateTime64 precision {} is outside 0..9", c.target.precision);
    return false;
  }
  if (is_date && temporal_target) {
    c.fn = ForSink(sink, &DateTo<Sink::kDate>, &DateTo<Sink::kDate32>, &DateTo<Sink::kDateTime>,
                   &DateTo<Sink::kDateTime64>);
    return true;
  }
  if (is_datetime && temporal_target) {
    c.fn = ForSink(sink, &DateTimeTo<Sink::kDate>, &DateTimeTo<Sink::kDate32>,
                   &DateTimeTo<Sink::kDateTime>, &DateTimeTo<Sink::kDateTime64>);
    return true;
  }
  if (is_timestamp && temporal_target) {
    c.fn = ForSink(sink, &TimestampTo<Sink::kDate>, &TimestampTo<Sink::kDate32>,
                   &TimestampTo<Sink::kDateTime>, &TimestampTo<Sink::kDateTime64>);
    return true;
  }
  if (is_timestamp && (c.target.code == TypeCode::kUInt32 || c.target.code == TypeCode::kInt64 ||
                       c.target.code == TypeCode::kUInt64)) {
    SetIntegerTargetRange(c);
    c.fn = &TimestampToSeconds;
    return true;
  }
  const bool is_time = !is_date && !is_datetime && !is_timestamp;
  if (is_time) {
    if (c.target.code == TypeCode::kInt64) {
      c.fn = &TimeToMicros;
      return true;
    }
    if (temporal_target && sink == Sink::kDateTime) {
      c.fn = &TimeOfDay<Sink::kDateTime>;
      return true;
    }
    if (temporal_target && sink == Sink::kDateTime64) {
      c.fn = &TimeOfDay<Sink::kDateTime64>;
      return true;
    }
  }
  why_not = fmt::format("{} does not take {} values", c.target.name, c.source_type);
  return false;
}

}  // namespace rowbridge::mapping
