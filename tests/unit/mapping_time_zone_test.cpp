// TimeZone against the system tzdata: offsets, DST rules past the stored transitions (POSIX
// footer), the gap/overlap rule, and defensive parsing of malformed TZif bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "clickhouse/columns/civil_time.h"
#include "common/error.h"
#include "mapping/time_zone.h"

namespace rowbridge::mapping {
namespace {

int64_t Utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return clickhouse::DaysFromCivil(y, static_cast<uint32_t>(mo), static_cast<uint32_t>(d)) * 86400 +
         h * 3600 + mi * 60 + s;
}

std::string ReadZoneFile(const std::string& name) {
  std::ifstream in(std::string(TimeZone::kDefaultZoneInfoDir) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MappingTimeZone, UtcNeedsNoFile) {
  auto z = TimeZone::Load("UTC");
  EXPECT_TRUE(z->IsUtc());
  EXPECT_EQ(z->OffsetAt(Utc(2024, 7, 1)), 0);
  EXPECT_EQ(z->LocalToUtc(12345), 12345);
  EXPECT_EQ(TimeZone::Load("")->name(), "UTC");
}

TEST(MappingTimeZone, BerlinOffsetsAcrossYears) {
  auto z = TimeZone::Load("Europe/Berlin");
  EXPECT_EQ(z->OffsetAt(Utc(2024, 1, 15, 12)), 3600);
  EXPECT_EQ(z->OffsetAt(Utc(2024, 7, 15, 12)), 7200);
  // DST starts 2024-03-31 01:00 UTC and ends 2024-10-27 01:00 UTC.
  EXPECT_EQ(z->OffsetAt(Utc(2024, 3, 31, 0, 59, 59)), 3600);
  EXPECT_EQ(z->OffsetAt(Utc(2024, 3, 31, 1)), 7200);
  EXPECT_EQ(z->OffsetAt(Utc(2024, 10, 27, 0, 59, 59)), 7200);
  EXPECT_EQ(z->OffsetAt(Utc(2024, 10, 27, 1)), 3600);
  // Past the file's last transition the POSIX footer rule applies.
  EXPECT_EQ(z->OffsetAt(Utc(2090, 7, 1)), 7200);
  EXPECT_EQ(z->OffsetAt(Utc(2090, 12, 1)), 3600);
  EXPECT_EQ(z->OffsetAt(Utc(2090, 3, 26, 0, 59, 59)), 3600);  // last Sunday of March 2090 = 26th
  EXPECT_EQ(z->OffsetAt(Utc(2090, 3, 26, 1)), 7200);
  // Before 1893 Berlin used local mean time (+0:53:28).
  EXPECT_EQ(z->OffsetAt(Utc(1850, 1, 1)), 3208);
}

TEST(MappingTimeZone, SouthernHemisphereRule) {
  auto z = TimeZone::Load("Australia/Sydney");
  EXPECT_EQ(z->OffsetAt(Utc(2090, 1, 15)), 11 * 3600);
  EXPECT_EQ(z->OffsetAt(Utc(2090, 7, 15)), 10 * 3600);
  EXPECT_EQ(z->OffsetAt(Utc(2024, 1, 15)), 11 * 3600);
}

TEST(MappingTimeZone, GapMovesForwardOverlapTakesTheEarlierInstant) {
  auto z = TimeZone::Load("Europe/Berlin");
  // 02:30 does not exist on 2024-03-31: read with +01:00 → 01:30 UTC (03:30 CEST).
  EXPECT_EQ(z->LocalToUtc(Utc(2024, 3, 31, 2, 30)), Utc(2024, 3, 31, 1, 30));
  // 02:30 happens twice on 2024-10-27: the first one, +02:00 → 00:30 UTC.
  EXPECT_EQ(z->LocalToUtc(Utc(2024, 10, 27, 2, 30)), Utc(2024, 10, 27, 0, 30));
  EXPECT_EQ(z->LocalToUtc(Utc(2024, 10, 27, 3, 0)), Utc(2024, 10, 27, 2, 0));
  EXPECT_EQ(z->LocalToUtc(Utc(2024, 7, 1, 12)), Utc(2024, 7, 1, 10));
  // Every instant's wall time reads back as that instant, or as the earlier one of an overlap.
  for (int64_t t = Utc(2023, 1, 1); t < Utc(2025, 1, 1); t += 3607) {
    const int64_t local = z->UtcToLocal(t);
    const int64_t back = z->LocalToUtc(local);
    ASSERT_EQ(z->UtcToLocal(back), local) << t;
    ASSERT_TRUE(back == t || back == t - 3600) << t;
  }
}

TEST(MappingTimeZone, FixedOffsetZones) {
  auto z = TimeZone::Load("Etc/GMT-3");  // POSIX sign: 3 hours EAST
  EXPECT_EQ(z->OffsetAt(Utc(2024, 1, 1)), 3 * 3600);
  EXPECT_EQ(TimeZone::Load("Asia/Kolkata")->OffsetAt(Utc(2024, 1, 1)), 5 * 3600 + 1800);
}

TEST(MappingTimeZone, PosixStrings) {
  auto r = ParsePosixTz("IST-2IDT,M3.4.4/26,M10.5.0", "test");
  EXPECT_EQ(r.std_offset, 7200);
  EXPECT_EQ(r.dst_offset, 10800);
  EXPECT_EQ(r.start.time, 26 * 3600);
  auto q = ParsePosixTz("<+0330>-3:30", "test");
  EXPECT_EQ(q.std_offset, 3 * 3600 + 1800);
  EXPECT_FALSE(q.has_dst);
  auto j = ParsePosixTz("EST5EDT,J60/1:30,300", "test");
  EXPECT_EQ(j.std_offset, -5 * 3600);
  EXPECT_EQ(j.start.time, 5400);
  for (const char* bad : {"", "E5", "EST", "EST5EDT,M13.1.0,M1.1.0", "EST5EDT,M3.2.0", "<AB>1",
                          "EST5EDT,M3.2.0,M11.1.0junk"}) {
    EXPECT_THROW(ParsePosixTz(bad, "test"), Error) << bad;
  }
}

TEST(MappingTimeZone, BadNamesAndMissingZonesAreConfigErrors) {
  for (const char* name :
       {"../etc/passwd", "/etc/localtime", "Europe/../../x", "No/Such_Zone", "a b"}) {
    try {
      TimeZone::Load(name);
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kConfig) << name;
    }
  }
}

TEST(MappingTimeZone, MalformedFilesAreCorruptionNeverCrashes) {
  const std::string good = ReadZoneFile("Europe/Berlin");
  ASSERT_GT(good.size(), 100u);
  EXPECT_NO_THROW(TimeZone::FromTzif("ok", good));
  // Every truncation either parses (the footer is optional for v1 readers only) or throws Error.
  for (size_t n = 0; n < good.size(); n += 7) {
    try {
      TimeZone::FromTzif("cut", good.substr(0, n));
    } catch (const Error& e) {
      EXPECT_TRUE(e.code() == ErrorCode::kCorruption || e.code() == ErrorCode::kUnsupported);
    }
  }
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_THROW(TimeZone::FromTzif("m", bad_magic), Error);
  // Flip bytes all over the file: always Error or a zone, never a crash or a hang.
  for (size_t i = 0; i < good.size(); i += 3) {
    std::string mutated = good;
    mutated[i] = static_cast<char>(mutated[i] ^ 0x5a);
    try {
      auto z = TimeZone::FromTzif("mutated", mutated);
      (void)z->OffsetAt(Utc(2024, 1, 1));
      (void)z->LocalToUtc(Utc(2024, 1, 1));
    } catch (const Error&) {
    }
  }
}

TEST(MappingTimeZone, LeapSecondZonesAreRefused) {
  const std::string right = ReadZoneFile("right/UTC");
  if (right.empty()) GTEST_SKIP() << "tzdata has no right/ zones here";
  try {
    TimeZone::FromTzif("right/UTC", right);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

}  // namespace
}  // namespace rowbridge::mapping
