// The binlog retention arithmetic (mysql/binlog_retention.h): settings of each flavor, the seconds
// and bytes until the checkpoint's file is purged, and how they read.
#include "mysql/binlog_retention.h"

#include <gtest/gtest.h>

#include <cmath>

namespace rowbridge::mysql {
namespace {

std::vector<BinlogFileSize> Files() {
  return {{"bin.000007", 1000}, {"bin.000008", 2000}, {"bin.000009", 500}};
}

TEST(BinlogRetentionSettings, EachFlavorsVariables) {
  // MySQL 8.4/9.x: seconds, auto purge on.
  BinlogPurgeSettings s = PurgeSettingsFromVariables(
      {{"binlog_expire_logs_seconds", "2592000"}, {"binlog_expire_logs_auto_purge", "ON"}});
  EXPECT_EQ(s.expire_seconds, 2592000);
  EXPECT_EQ(s.expire_setting, "binlog_expire_logs_seconds=2592000");
  EXPECT_EQ(s.size_limit, 0u);
  // MySQL with auto purge off: nothing expires, whatever the seconds say.
  s = PurgeSettingsFromVariables(
      {{"binlog_expire_logs_seconds", "2592000"}, {"binlog_expire_logs_auto_purge", "OFF"}});
  EXPECT_EQ(s.expire_seconds, 0);
  EXPECT_EQ(s.expire_setting, "binlog_expire_logs_auto_purge=OFF");
  // MariaDB 10.6+: both variables, kept in step; the seconds win.
  s = PurgeSettingsFromVariables(
      {{"binlog_expire_logs_seconds", "86400"}, {"expire_logs_days", "1.000000"}});
  EXPECT_EQ(s.expire_seconds, 86400);
  // An older server or MySQL 8.0 with only the days set.
  s = PurgeSettingsFromVariables(
      {{"binlog_expire_logs_seconds", "0"}, {"expire_logs_days", "0.500000"}});
  EXPECT_EQ(s.expire_seconds, 43200);
  EXPECT_EQ(s.expire_setting, "expire_logs_days=0.5");
  // MariaDB's default: never.
  s = PurgeSettingsFromVariables(
      {{"binlog_expire_logs_seconds", "0"}, {"expire_logs_days", "0.000000"}});
  EXPECT_EQ(s.expire_seconds, 0);
  // MariaDB 11.4+: a size limit, under either name.
  s = PurgeSettingsFromVariables({{"max_binlog_total_size", "1073741824"},
                                  {"binlog_space_limit", "1073741824"},
                                  {"binlog_expire_logs_seconds", "0"}});
  EXPECT_EQ(s.size_limit, 1073741824u);
  EXPECT_EQ(s.size_setting, "max_binlog_total_size=1073741824");
  s = PurgeSettingsFromVariables({{"max_binlog_total_size", "0"}});
  EXPECT_EQ(s.size_limit, 0u);
  EXPECT_EQ(s.size_setting, "");
}

TEST(BinlogRetention, AnOlderFileExpiresFromTheStartOfTheNextOne) {
  BinlogRetentionInput in;
  in.file = "bin.000008";
  in.files = Files();
  in.settings.expire_seconds = 3600;
  in.server_now = 10000;
  in.next_file_started = 9000;  // bin.000008 was last written 1000 s ago
  BinlogRetention r = ComputeBinlogRetention(in);
  EXPECT_FALSE(r.purged);
  EXPECT_FALSE(r.current);
  ASSERT_TRUE(r.headroom_seconds);
  EXPECT_DOUBLE_EQ(*r.headroom_seconds, 2600);
  EXPECT_TRUE(std::isinf(r.headroom_bytes)) << "no size limit";

  // Past the expiry: negative (it goes at the next rotation).
  in.next_file_started = 5000;
  EXPECT_DOUBLE_EQ(*ComputeBinlogRetention(in).headroom_seconds, -1400);

  // The next file's start unknown: so is the headroom.
  in.next_file_started.reset();
  EXPECT_FALSE(ComputeBinlogRetention(in).headroom_seconds);
}

TEST(BinlogRetention, TheFileBeingWrittenHasAtLeastTheExpiry) {
  BinlogRetentionInput in;
  in.file = "bin.000009";
  in.files = Files();
  in.settings.expire_seconds = 7200;
  in.server_now = 10000;
  BinlogRetention r = ComputeBinlogRetention(in);
  EXPECT_TRUE(r.current);
  EXPECT_DOUBLE_EQ(*r.headroom_seconds, 7200);
}

TEST(BinlogRetention, NoExpiryIsInfinite) {
  BinlogRetentionInput in;
  in.file = "bin.000007";
  in.files = Files();
  in.server_now = 10000;
  BinlogRetention r = ComputeBinlogRetention(in);
  ASSERT_TRUE(r.headroom_seconds);
  EXPECT_TRUE(std::isinf(*r.headroom_seconds) && *r.headroom_seconds > 0);
}

TEST(BinlogRetention, BytesAreTheLimitLessTheFileAndThoseAfterIt) {
  BinlogRetentionInput in;
  in.file = "bin.000008";
  in.files = Files();
  in.settings.size_limit = 10000;
  in.server_now = 10000;
  EXPECT_DOUBLE_EQ(ComputeBinlogRetention(in).headroom_bytes, 10000 - 2000 - 500);
  in.file = "bin.000007";
  EXPECT_DOUBLE_EQ(ComputeBinlogRetention(in).headroom_bytes, 10000 - 3500);
  in.settings.size_limit = 3000;
  EXPECT_DOUBLE_EQ(ComputeBinlogRetention(in).headroom_bytes, -500);
}

TEST(BinlogRetention, AFileNoLongerListedIsPurged) {
  BinlogRetentionInput in;
  in.file = "bin.000006";
  in.files = Files();
  in.settings.expire_seconds = 3600;
  in.settings.size_limit = 1 << 20;
  BinlogRetention r = ComputeBinlogRetention(in);
  EXPECT_TRUE(r.purged);
  EXPECT_EQ(*r.headroom_seconds, 0);
  EXPECT_EQ(r.headroom_bytes, 0);
  EXPECT_NE(DescribeBinlogRetention(in.file, r, in.settings).find("purged"), std::string::npos);
}

TEST(BinlogRetention, Formatting) {
  EXPECT_EQ(FormatHeadroomSeconds(std::nullopt), "unknown");
  EXPECT_EQ(FormatHeadroomSeconds(INFINITY), "never");
  EXPECT_EQ(FormatHeadroomSeconds(12), "12s");
  EXPECT_EQ(FormatHeadroomSeconds(45 * 60), "45m");
  EXPECT_EQ(FormatHeadroomSeconds(3 * 3600 + 5 * 60), "3h5m");
  EXPECT_EQ(FormatHeadroomSeconds(2 * 86400 + 3 * 3600 + 60), "2d3h");
  EXPECT_EQ(FormatHeadroomSeconds(-300), "-5m");
  EXPECT_EQ(FormatHeadroomBytes(INFINITY), "unlimited");
  EXPECT_EQ(FormatHeadroomBytes(512), "512 bytes");
  EXPECT_EQ(FormatHeadroomBytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
  EXPECT_EQ(FormatHeadroomBytes(-200.0 * 1024 * 1024), "-200.0 MiB");

  BinlogPurgeSettings s;
  s.expire_seconds = 86400;
  s.expire_setting = "binlog_expire_logs_seconds=86400";
  BinlogRetention r;
  r.current = true;
  r.headroom_seconds = 86400;
  r.headroom_bytes = INFINITY;
  EXPECT_EQ(DescribeBinlogRetention("bin.000009", r, s),
            "binlog file bin.000009 (being written): purged by age in at least 1d "
            "(binlog_expire_logs_seconds=86400); no size limit");
}

// The one warning rule of `run` and `validate`: the seconds below warn_below, the bytes below a
// tenth of the size limit; unknown seconds and a source without a limit never warn.
TEST(BinlogRetention, LowMeansBelowTheThresholds) {
  using namespace std::chrono_literals;
  BinlogRetentionCheck check;
  check.retention.headroom_seconds = 5 * 3600;
  check.retention.headroom_bytes = INFINITY;
  EXPECT_TRUE(FindLowBinlogRetention(check, 6h).seconds);
  EXPECT_FALSE(FindLowBinlogRetention(check, 5h).seconds);
  EXPECT_FALSE(FindLowBinlogRetention(check, 6h).bytes);
  check.retention.headroom_seconds.reset();
  EXPECT_FALSE(FindLowBinlogRetention(check, 6h).seconds);

  check.settings.size_limit = 1000;
  check.retention.headroom_bytes = 99;
  EXPECT_TRUE(FindLowBinlogRetention(check, 6h).bytes);
  check.retention.headroom_bytes = 100;
  EXPECT_FALSE(FindLowBinlogRetention(check, 6h).bytes);
}

}  // namespace
}  // namespace rowbridge::mysql
