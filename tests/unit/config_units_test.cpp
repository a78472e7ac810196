#include <gtest/gtest.h>

#include "common/error.h"
#include "config/units.h"

namespace rowbridge::config {
namespace {

using std::chrono::milliseconds;

std::string SizeError(std::string_view text) {
  try {
    ParseSize(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error for size " << text;
  return "";
}

std::string DurationError(std::string_view text) {
  try {
    ParseDuration(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error for duration " << text;
  return "";
}

TEST(ConfigUnits, SizesInEveryUnit) {
  EXPECT_EQ(ParseSize("0"), 0u);
  EXPECT_EQ(ParseSize("12345"), 12345u);
  EXPECT_EQ(ParseSize("100B"), 100u);
  EXPECT_EQ(ParseSize("1KiB"), 1024u);
  EXPECT_EQ(ParseSize("64MiB"), 64u << 20);
  EXPECT_EQ(ParseSize("1GiB"), 1u << 30);
  EXPECT_EQ(ParseSize("2TiB"), 2ULL << 40);
  EXPECT_EQ(ParseSize("1KB"), 1000u);
  EXPECT_EQ(ParseSize("5MB"), 5000000u);
  EXPECT_EQ(ParseSize("3GB"), 3000000000u);
  EXPECT_EQ(ParseSize("1TB"), 1000000000000u);
  EXPECT_EQ(ParseSize("64mib"), 64u << 20);
  EXPECT_EQ(ParseSize("64 MiB"), 64u << 20);
  EXPECT_EQ(ParseSize("1.5GiB"), 1610612736u);
  EXPECT_EQ(ParseSize("0.5KiB"), 512u);
}

TEST(ConfigUnits, BadSizesSayWhy) {
  EXPECT_EQ(SizeError(""),
            "size \"\" must be a number of bytes with an optional unit, e.g. 64MiB, 1GiB, 500KB");
  EXPECT_EQ(SizeError("-1"),
            "size \"-1\" must be a number of bytes with an optional unit, e.g. 64MiB, 1GiB, 500KB");
  EXPECT_EQ(SizeError("64M"),
            "size \"64M\" has an unknown unit \"M\" (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB)");
  EXPECT_EQ(SizeError("64 MiB x"),
            "size \"64 MiB x\" has an unknown unit \"MiB x\" (use B, KiB, "
            "MiB, GiB, TiB or KB, MB, GB, TB)");
  EXPECT_EQ(SizeError("1.1B"), "size \"1.1B\" is not a whole number of bytes");
  EXPECT_EQ(SizeError(".5MiB"), "size \".5MiB\" is not a number (write e.g. 0.5, not .5 or 5.)");
  EXPECT_EQ(SizeError("5.MiB"), "size \"5.MiB\" is not a number (write e.g. 0.5, not .5 or 5.)");
  EXPECT_EQ(SizeError("18446744073709551616"), "size \"18446744073709551616\" is too large");
  EXPECT_EQ(SizeError("20000000TiB"), "size \"20000000TiB\" is too large");
  EXPECT_EQ(SizeError("1.0000000001KiB"), "size \"1.0000000001KiB\" has too many decimal places");
}

TEST(ConfigUnits, Durations) {
  EXPECT_EQ(ParseDuration("0"), milliseconds(0));
  EXPECT_EQ(ParseDuration("0s"), milliseconds(0));
  EXPECT_EQ(ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(ParseDuration("1s"), milliseconds(1000));
  EXPECT_EQ(ParseDuration("2m"), milliseconds(120000));
  EXPECT_EQ(ParseDuration("1h"), milliseconds(3600000));
  EXPECT_EQ(ParseDuration("1d"), milliseconds(86400000));
  EXPECT_EQ(ParseDuration("1h30m"), milliseconds(5400000));
  EXPECT_EQ(ParseDuration("1m30s250ms"), milliseconds(90250));
  EXPECT_EQ(ParseDuration("1.5s"), milliseconds(1500));
  EXPECT_EQ(ParseDuration("0.25m"), milliseconds(15000));
}

TEST(ConfigUnits, BadDurationsSayWhy) {
  EXPECT_EQ(DurationError("5"), "duration \"5\" needs a unit (ms, s, m, h or d), e.g. \"5s\"");
  EXPECT_EQ(DurationError(""),
            "duration \"\" must be a number with a unit, e.g. 500ms, 10s, 2m, 1h30m");
  EXPECT_EQ(DurationError("-1s"),
            "duration \"-1s\" must be a number with a unit, e.g. 500ms, 10s, 2m, 1h30m");
  EXPECT_EQ(DurationError("1sec"),
            "duration \"1sec\" must be a number with a unit, e.g. 500ms, 10s, 2m, 1h30m");
  EXPECT_EQ(DurationError("10us"),
            "duration \"10us\" has an unknown unit at \"us\" (use ms, s, m, h or d)");
  EXPECT_EQ(DurationError("30m1h"),
            "duration \"30m1h\" must list its units from largest to smallest, each once");
  EXPECT_EQ(DurationError("1s1s"),
            "duration \"1s1s\" must list its units from largest to smallest, each once");
  EXPECT_EQ(DurationError("0.5ms"), "duration \"0.5ms\" is not a whole number of milliseconds");
  EXPECT_EQ(DurationError("1m30"),
            "duration \"1m30\" needs a unit (ms, s, m, h or d), e.g. \"1m30s\"");
  EXPECT_EQ(DurationError("999999999999999999d"), "duration \"999999999999999999d\" is too large");
}

TEST(ConfigUnits, FormattingReadsBack) {
  EXPECT_EQ(FormatSize(0), "0B");
  EXPECT_EQ(FormatSize(64u << 20), "64MiB");
  EXPECT_EQ(FormatSize(1000), "1KB");
  EXPECT_EQ(FormatSize(1023), "1023B");
  EXPECT_EQ(FormatSize(1536), "1536B");
  EXPECT_EQ(FormatSize(3000), "3KB");
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1s500ms");
  EXPECT_EQ(FormatDuration(milliseconds(86400000 + 1)), "1d1ms");
  for (uint64_t size : {0ULL, 1ULL, 999ULL, 1024ULL, 1536ULL, 5000000ULL, 1ULL << 40, ~0ULL}) {
    EXPECT_EQ(ParseSize(FormatSize(size)), size) << FormatSize(size);
  }
  for (int64_t ms : {0LL, 1LL, 999LL, 1000LL, 61001LL, 3600000LL * 25}) {
    EXPECT_EQ(ParseDuration(FormatDuration(milliseconds(ms))), milliseconds(ms));
  }
}

}  // namespace
}  // namespace rowbridge::config
