#include "clickhouse/columns/date.h"

#include "clickhouse/columns/civil_time.h"
#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {

ColumnDate::ColumnDate() : FixedWidthColumn<uint16_t>("Date") {}

void ColumnDate::AppendDays(int64_t days) {
  if (days < 0 || days > 0xffff)
    Fail(ErrorCode::kConversion,
         "day number {} is outside ClickHouse Date (1970-01-01..2149-06-06)", days);
  AppendRaw(static_cast<uint16_t>(days));
}

void ColumnDate::AppendText(size_t row, std::string& out) const {
  AppendDateText(Raw(row), out);
}

ColumnDate32::ColumnDate32() : FixedWidthColumn<int32_t>("Date32") {}

void ColumnDate32::AppendDays(int64_t days) {
  // 1900-01-01 .. 2299-12-31, the range ClickHouse documents for Date32.
  constexpr int64_t kMin = -25567;
  constexpr int64_t kMax = 120529;
  if (days < kMin || days > kMax)
    Fail(ErrorCode::kConversion,
         "day number {} is outside ClickHouse Date32 (1900-01-01..2299-12-31)", days);
  AppendRaw(static_cast<int32_t>(days));
}

void ColumnDate32::AppendText(size_t row, std::string& out) const {
  AppendDateText(Raw(row), out);
}

ColumnDateTime::ColumnDateTime(std::string timezone)
    : FixedWidthColumn<uint32_t>(FormatTypeName(MakeDateTime(timezone))),
      timezone_(std::move(timezone)) {}

void ColumnDateTime::AppendSeconds(int64_t seconds) {
  if (seconds < 0 || seconds > 0xffffffffll)
    Fail(ErrorCode::kConversion, "{} seconds since the epoch is outside ClickHouse DateTime",
         seconds);
  AppendRaw(static_cast<uint32_t>(seconds));
}

void ColumnDateTime::AppendText(size_t row, std::string& out) const {
  AppendDateTimeText(Raw(row), out);
}

ColumnDateTime64::ColumnDateTime64(uint32_t precision, std::string timezone)
    : FixedWidthColumn<int64_t>(FormatTypeName(MakeDateTime64(precision, timezone))),
      precision_(precision),
      timezone_(std::move(timezone)) {}

void ColumnDateTime64::AppendText(size_t row, std::string& out) const {
  int64_t ticks = Raw(row);
  int64_t scale = 1;
  for (uint32_t i = 0; i < precision_; ++i) scale *= 10;
  int64_t seconds = ticks / scale;
  int64_t fraction = ticks % scale;
  if (fraction < 0) {
    fraction += scale;
    seconds -= 1;
  }
  AppendDateTimeText(seconds, out);
  if (precision_ > 0) {
    out.push_back('.');
    std::string digits = std::to_string(fraction);
    out.append(precision_ - digits.size(), '0');
    out.append(digits);
  }
}

}  // namespace rowbridge::clickhouse
