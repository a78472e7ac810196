// TimeZone: UTC offsets of one IANA time zone, read from the system's compiled tzdata (TZif files
// under /usr/share/zoneinfo, Debian package tzdata). g++ 12's libstdc++ has no std::chrono tzdb,
// so rowbridge reads the files itself.
//
// The parser accepts TZif versions 1..4 (RFC 8536) and uses the 64-bit data block when present;
// instants after the last stored transition follow the POSIX TZ rule in the file's footer
// ("CET-1CEST,M3.5.0,M10.5.0/3"), instants before the first transition use the first local time
// type. Files are untrusted input: every count and index is bounds-checked, transitions must
// ascend, offsets must lie within ±26 hours, and anything else throws Error(kCorruption) naming
// the file and what was wrong. Zones with leap seconds ("right/...") are refused (kUnsupported):
// neither MySQL nor ClickHouse counts leap seconds.
//
// Wall time → instant (LocalToUtc) has two special cases, resolved as java.time and most
// databases' connectors do:
//   gap     (the wall time does not exist, clocks jump forward): it is read with the offset in
//           effect BEFORE the jump, which moves it forward by the gap's length
//           (Europe/Berlin 2024-03-31 02:30 → 01:30 UTC, shown as 03:30 CEST);
//   overlap (the wall time happens twice, clocks fall back): the EARLIER instant, i.e. the
//           offset in effect before the change (Europe/Berlin 2024-10-27 02:30 → 00:30 UTC).
//
// A TimeZone is immutable after loading and safe to share between threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rowbridge::mapping {

class TimeZone {
 public:
  // The system tzdata directory.
  static constexpr const char* kDefaultZoneInfoDir = "/usr/share/zoneinfo";

  // UTC, without reading any file.
  static std::shared_ptr<const TimeZone> Utc();
  // "UTC", "Etc/UTC" and "" give Utc(); any other name is read from `<zoneinfo_dir>/<name>`.
  // Throws Error(kConfig) for a name that is not a plain relative zone name or has no file,
  // Error(kCorruption) for a malformed file.
  static std::shared_ptr<const TimeZone> Load(
      std::string_view name, const std::filesystem::path& zoneinfo_dir = kDefaultZoneInfoDir);
  // Parses TZif bytes; `name` is used for messages and name().
  static std::shared_ptr<const TimeZone> FromTzif(std::string name, std::string_view bytes);

  const std::string& name() const { return name_; }
  bool IsUtc() const { return is_utc_; }

  // Seconds east of UTC in effect at `utc_seconds` (seconds since 1970-01-01 00:00:00 UTC).
  int32_t OffsetAt(int64_t utc_seconds) const;
  int64_t UtcToLocal(int64_t utc_seconds) const { return utc_seconds + OffsetAt(utc_seconds); }
  // The instant of a wall time given as seconds since 1970-01-01 00:00:00 local; gaps and
  // overlaps as described above.
  int64_t LocalToUtc(int64_t local_seconds) const;

  // One clock change in the rule that follows the stored transitions: the POSIX TZ footer.
  struct PosixRule {
    enum class DateKind : uint8_t { kJulianNoLeap, kZeroBasedDay, kMonthWeekDay };
    struct Date {
      DateKind kind = DateKind::kMonthWeekDay;
      int32_t day = 0;      // Jn: 1..365; n: 0..365; M: weekday 0..6 (Sunday = 0)
      int32_t month = 0;    // M only: 1..12
      int32_t week = 0;     // M only: 1..5 (5 = last)
      int32_t time = 7200;  // seconds after local midnight, may be negative or > 24 h
    };
    int32_t std_offset = 0;  // seconds east of UTC
    bool has_dst = false;
    int32_t dst_offset = 0;
    Date start;  // DST starts (given in standard local time)
    Date end;    // DST ends (given in DST local time)
  };

 private:
  TimeZone() = default;
  int32_t RuleOffsetAt(int64_t utc_seconds) const;

  std::string name_;
  bool is_utc_ = false;
  std::vector<int64_t> transitions_;      // ascending UTC instants
  std::vector<uint8_t> transition_type_;  // index into offsets_, one per transition
  std::vector<int32_t> offsets_;          // UTC offset of each local time type
  bool has_rule_ = false;
  PosixRule rule_;
};

// Parses a POSIX TZ string as found in TZif footers ("EST5EDT,M3.2.0,M11.1.0", "<+03>-3",
// "IST-2IDT,M3.4.4/26,M10.5.0"). Throws Error(kCorruption) naming `context` on malformed text.
TimeZone::PosixRule ParsePosixTz(std::string_view text, std::string_view context);

}  // namespace rowbridge::mapping
