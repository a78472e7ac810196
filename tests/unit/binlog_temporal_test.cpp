// Temporal decoders: typed parts and text, beyond the mariadb-binlog table in
// binlog_values_test.cpp.
#include <gtest/gtest.h>

#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "binlog/temporal.h"
#include "common/error.h"
#include "support/bytes.h"

namespace rowbridge::binlog {
namespace {

using ::rowbridge::testing::HexBytes;

TemporalParts Parts(uint32_t y, uint32_t mo, uint32_t d, uint32_t h, uint32_t mi, uint32_t s,
                    uint32_t us = 0, bool negative = false) {
  TemporalParts p;
  p.year = y;
  p.month = mo;
  p.day = d;
  p.hour = h;
  p.minute = mi;
  p.second = s;
  p.microsecond = us;
  p.negative = negative;
  return p;
}

TEST(BinlogTemporal, TypedParts) {
  auto date = HexBytes("72b80f");
  EXPECT_EQ(DecodeDate(date.data(), date.size()), Parts(2012, 3, 18, 0, 0, 0));
  auto time2 = HexBytes("6043e5");  // time_issue.000001
  EXPECT_EQ(DecodeTime2(time2.data(), time2.size(), 0), Parts(0, 0, 0, 507, 48, 27, 0, true));
  auto neg_frac = HexBytes("7ffffeec78");  // -00:00:01.500 (fsp 3)
  EXPECT_EQ(DecodeTime2(neg_frac.data(), neg_frac.size(), 3),
            Parts(0, 0, 0, 0, 0, 1, 500000, true));
  auto neg_micro = HexBytes("7fffffffffff");  // -00:00:00.000001 (fsp 6)
  EXPECT_EQ(DecodeTime2(neg_micro.data(), neg_micro.size(), 6), Parts(0, 0, 0, 0, 0, 0, 1, true));
  auto dt2 = HexBytes("fef3ff7efb0f423f");
  EXPECT_EQ(DecodeDateTime2(dt2.data(), dt2.size(), 6), Parts(9999, 12, 31, 23, 59, 59, 999999));
  auto zero_dt2 = HexBytes("8000000000");
  EXPECT_EQ(DecodeDateTime2(zero_dt2.data(), zero_dt2.size(), 0), Parts(0, 0, 0, 0, 0, 0));
  auto dt = HexBytes("15f569a04c120000");
  EXPECT_EQ(DecodeDateTime(dt.data(), dt.size()), Parts(2012, 3, 18, 11, 30, 45));
  auto t = HexBytes("590a80");
  EXPECT_EQ(DecodeTime(t.data(), t.size()), Parts(0, 0, 0, 838, 59, 59, 0, true));
  auto ts2 = HexBytes("7fffffff04d2");
  EXPECT_EQ(DecodeTimestamp2(ts2.data(), ts2.size(), 4), (TimestampValue{2147483647, 123400}));
  auto ts = HexBytes("65c7654f");
  EXPECT_EQ(DecodeTimestamp(ts.data(), ts.size()), (TimestampValue{1332070245, 0}));
  uint8_t year = 0;
  EXPECT_EQ(DecodeYear(&year, 1), 0u);
  year = 255;
  EXPECT_EQ(DecodeYear(&year, 1), 2155u);
}

TEST(BinlogTemporal, PackedFormsUsedByJsonOpaqueValues) {
  // From json-opaque.binlog: DATE 2012-03-18, DATETIME 2012-03-18 11:30:45, TIME 87:31:46.654321.
  EXPECT_EQ(UnpackDateTimePacked(0x198be40000000000), Parts(2012, 3, 18, 0, 0, 0));
  EXPECT_EQ(UnpackDateTimePacked(0x198be4b7ad000000), Parts(2012, 3, 18, 11, 30, 45));
  EXPECT_EQ(UnpackTimePacked(0x0577ee09fbf1), Parts(0, 0, 0, 87, 31, 46, 654321));
  EXPECT_EQ(UnpackTimePacked(-0x0577ee09fbf1), Parts(0, 0, 0, 87, 31, 46, 654321, true));
}

TEST(BinlogTemporal, Text) {
  std::string out;
  AppendTimeText(Parts(0, 0, 0, 5, 6, 7, 120000, true), 3, out);
  EXPECT_EQ(out, "-05:06:07.120");
  out.clear();
  AppendTimeText(Parts(0, 0, 0, 838, 59, 59), 0, out);
  EXPECT_EQ(out, "838:59:59");
  out.clear();
  AppendDateTimeText(Parts(2020, 2, 30, 1, 2, 3, 999999), 1, out);  // truncates, never rounds
  EXPECT_EQ(out, "2020-02-30 01:02:03.9");
  out.clear();
  AppendDateText(Parts(0, 0, 0, 0, 0, 0), out);
  EXPECT_EQ(out, "0000-00-00");
}

TEST(BinlogTemporal, TimestampToUtcMatchesGmtime) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const int64_t seconds = static_cast<int64_t>(rng() % 253402300800ull);  // up to 9999-12-31
    if (seconds == 0) continue;
    time_t t = static_cast<time_t>(seconds);
    struct tm tm;
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    EXPECT_EQ(TimestampToUtcParts({seconds, 5}),
              Parts(static_cast<uint32_t>(tm.tm_year + 1900), static_cast<uint32_t>(tm.tm_mon + 1),
                    static_cast<uint32_t>(tm.tm_mday), static_cast<uint32_t>(tm.tm_hour),
                    static_cast<uint32_t>(tm.tm_min), static_cast<uint32_t>(tm.tm_sec), 5))
        << seconds;
  }
  EXPECT_EQ(TimestampToUtcParts({0, 0}), Parts(0, 0, 0, 0, 0, 0));
}

// Found by binlog_value_fuzzer: a DATETIME2(3) cell whose sign bit is clear (0x00 00 00 00 00,
// the most negative packed value) with a negative fraction overflowed int64 (UBSan). No server
// writes a negative DATETIME2; it is corruption, reported as such.
TEST(BinlogTemporal, DateTime2WithTheSignBitClearIsCorrupt) {
  auto most_negative = HexBytes("0000000000e3ec");
  try {
    DecodeDateTime2(most_negative.data(), most_negative.size(), 3);
    ADD_FAILURE() << "a negative DATETIME2 decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption) << e.what();
    EXPECT_NE(std::string(e.what()).find("DATETIME2 value 0x0000000000 has its sign bit clear"),
              std::string::npos)
        << e.what();
  }
  auto just_below_zero = HexBytes("7fffffffff");
  EXPECT_THROW(DecodeDateTime2(just_below_zero.data(), just_below_zero.size(), 0), Error);
  // The smallest valid value, the zero datetime, still decodes.
  auto zero = HexBytes("8000000000");
  EXPECT_EQ(DecodeDateTime2(zero.data(), zero.size(), 0), Parts(0, 0, 0, 0, 0, 0));
}

TEST(BinlogTemporal, ShortInputAndBadPrecisionThrow) {
  auto two = HexBytes("8000");
  EXPECT_THROW(DecodeDate(two.data(), two.size()), Error);
  EXPECT_THROW(DecodeTime2(two.data(), two.size(), 0), Error);
  auto five = HexBytes("8000000000");
  EXPECT_THROW(DecodeDateTime2(five.data(), five.size(), 1), Error);
  EXPECT_THROW(DecodeDateTime2(five.data(), five.size(), 7), Error);
  EXPECT_THROW(DecodeTimestamp2(five.data(), five.size(), 3), Error);
  EXPECT_THROW(DecodeYear(five.data(), 0), Error);
}

}  // namespace
}  // namespace rowbridge::binlog
