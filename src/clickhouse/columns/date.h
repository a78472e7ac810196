// Date and time columns. All store ClickHouse's raw counts (see civil_time.h for conversions):
//   Date        UInt16 days since 1970-01-01 (1970-01-01 .. 2149-06-06)
//   Date32      Int32 days since 1970-01-01 (ClickHouse 21.9+; 1900-01-01 .. 2299-12-31)
//   DateTime    UInt32 seconds since the epoch, optional time zone in the type
//   DateTime64  Int64 ticks of 10^-precision seconds since the epoch (ClickHouse 20.1+)
// Append* take the raw count and throw Error(kConversion) when it is outside the type's range.
#pragma once

#include <string>

#include "clickhouse/columns/fixed_width.h"

namespace rowbridge::clickhouse {

class ColumnDate : public FixedWidthColumn<uint16_t> {
 public:
  ColumnDate();
  void AppendDays(int64_t days_since_epoch);
  uint16_t At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnDate>(); }
};

class ColumnDate32 : public FixedWidthColumn<int32_t> {
 public:
  ColumnDate32();
  void AppendDays(int64_t days_since_epoch);
  int32_t At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnDate32>(); }
};

class ColumnDateTime : public FixedWidthColumn<uint32_t> {
 public:
  explicit ColumnDateTime(std::string timezone = {});
  const std::string& timezone() const { return timezone_; }
  void AppendSeconds(int64_t seconds_since_epoch);
  uint32_t At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override { return std::make_unique<ColumnDateTime>(timezone_); }

 private:
  std::string timezone_;
};

class ColumnDateTime64 : public FixedWidthColumn<int64_t> {
 public:
  ColumnDateTime64(uint32_t precision, std::string timezone = {});
  uint32_t precision() const { return precision_; }
  const std::string& timezone() const { return timezone_; }
  void AppendTicks(int64_t ticks) { AppendRaw(ticks); }
  int64_t At(size_t row) const { return Raw(row); }
  void AppendText(size_t row, std::string& out) const override;
  ColumnPtr CloneEmpty() const override {
    return std::make_unique<ColumnDateTime64>(precision_, timezone_);
  }

 private:
  uint32_t precision_;
  std::string timezone_;
};

}  // namespace rowbridge::clickhouse
