#include "mapping/time_zone.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "clickhouse/columns/civil_time.h"
#include "common/byte_reader.h"
#include "common/civil_date.h"
#include "common/error.h"

namespace rowbridge::mapping {

namespace {

// RFC 8536 allows any offset but real zones stay within ±15 h; ±26 h keeps arithmetic simple and
// still accepts every file tzdata ships.
constexpr int32_t kMaxOffsetSeconds = 26 * 3600;
// A TZif file of tzdata is a few kB; anything much larger is not one.
constexpr size_t kMaxTzifBytes = 4 << 20;
constexpr uint32_t kMaxTransitions = 1u << 20;

bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// Big-endian fields on top of ByteReader (TZif is big-endian, ByteReader little-endian).
uint32_t ReadBigEndian32(ByteReader& in, const char* what) {
  std::string_view b = in.Bytes(4, what);
  return (uint32_t{static_cast<uint8_t>(b[0])} << 24) |
         (uint32_t{static_cast<uint8_t>(b[1])} << 16) |
         (uint32_t{static_cast<uint8_t>(b[2])} << 8) | uint32_t{static_cast<uint8_t>(b[3])};
}
int64_t ReadBigEndianSigned(ByteReader& in, size_t bytes, const char* what) {
  if (bytes == 4) return static_cast<int32_t>(ReadBigEndian32(in, what));
  uint64_t high = ReadBigEndian32(in, what);
  uint64_t low = ReadBigEndian32(in, what);
  return static_cast<int64_t>((high << 32) | low);
}

struct TzifCounts {
  uint32_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

TzifCounts ReadHeader(ByteReader& in, char& version) {
  if (in.Bytes(4, "TZif magic") != "TZif") in.Corrupt("not a TZif file (bad magic)");
  version = static_cast<char>(in.U8("TZif version"));
  if (version != 0 && (version < '2' || version > '4'))
    in.Corrupt(fmt::format("unknown TZif version byte 0x{:02x}", static_cast<uint8_t>(version)));
  in.Skip(15, "TZif reserved bytes");
  TzifCounts c;
  c.isut = ReadBigEndian32(in, "tzh_ttisutcnt");
  c.isstd = ReadBigEndian32(in, "tzh_ttisstdcnt");
  c.leap = ReadBigEndian32(in, "tzh_leapcnt");
  c.time = ReadBigEndian32(in, "tzh_timecnt");
  c.type = ReadBigEndian32(in, "tzh_typecnt");
  c.chars = ReadBigEndian32(in, "tzh_charcnt");
  if (c.type == 0 || c.type > 256) in.Corrupt(fmt::format("bad local time type count {}", c.type));
  if (c.time > kMaxTransitions) in.Corrupt(fmt::format("too many transitions ({})", c.time));
  if (c.isut != 0 && c.isut != c.type) in.Corrupt("UT/local indicator count differs from types");
  if (c.isstd != 0 && c.isstd != c.type)
    in.Corrupt("standard/wall indicator count differs from types");
  if (c.chars > 65536) in.Corrupt(fmt::format("bad designation byte count {}", c.chars));
  return c;
}

size_t BodySize(const TzifCounts& c, size_t time_bytes) {
  return size_t{c.time} * time_bytes + c.time + size_t{c.type} * 6 + c.chars +
         size_t{c.leap} * (time_bytes + 4) + c.isstd + c.isut;
}

// --- POSIX TZ strings -------------------------------------------------------------------------

class PosixParser {
 public:
  PosixParser(std::string_view text, std::string_view context) : text_(text), context_(context) {}

  TimeZone::PosixRule Parse() {
    TimeZone::PosixRule rule;
    Name();
    rule.std_offset = -Offset(24);
    if (AtEnd()) return rule;
    Name();
    rule.has_dst = true;
    rule.dst_offset = rule.std_offset + 3600;
    if (!AtEnd() && Peek() != ',') rule.dst_offset = -Offset(24);
    if (AtEnd()) {
      // POSIX leaves the default rule to the implementation; tzcode uses the US rules.
      rule.start = {TimeZone::PosixRule::DateKind::kMonthWeekDay, 0, 3, 2, 7200};
      rule.end = {TimeZone::PosixRule::DateKind::kMonthWeekDay, 0, 11, 1, 7200};
      return rule;
    }
    Expect(',');
    rule.start = RuleDate();
    Expect(',');
    rule.end = RuleDate();
    if (!AtEnd()) Bad("trailing characters");
    return rule;
  }

 private:
  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  [[noreturn]] void Bad(std::string_view what) const {
    Fail(ErrorCode::kCorruption, "{}: bad POSIX TZ string '{}' at character {}: {}", context_,
         text_, pos_, what);
  }
  void Expect(char c) {
    if (Peek() != c) Bad(fmt::format("expected '{}'", c));
    ++pos_;
  }
  void Name() {
    if (Peek() == '<') {
      ++pos_;
      size_t start = pos_;
      while (!AtEnd() && Peek() != '>') {
        char c = Peek();
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-')
          Bad("bad character in quoted zone abbreviation");
        ++pos_;
      }
      if (pos_ - start < 3) Bad("zone abbreviation shorter than 3 characters");
      Expect('>');
      return;
    }
    size_t start = pos_;
    while (!AtEnd() && std::isalpha(static_cast<unsigned char>(Peek()))) ++pos_;
    if (pos_ - start < 3) Bad("zone abbreviation shorter than 3 characters");
  }
  int32_t Number(int32_t max) {
    if (!std::isdigit(static_cast<unsigned char>(Peek()))) Bad("expected a number");
    int32_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      v = v * 10 + (Peek() - '0');
      if (v > max) Bad("number out of range");
      ++pos_;
    }
    return v;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  int32_t Offset(int32_t max_hours) {
    int32_t sign = 1;
    if (Peek() == '+' || Peek() == '-') {
      if (Peek() == '-') sign = -1;
      ++pos_;
    }
    int32_t seconds = Number(max_hours) * 3600;
    if (Peek() == ':') {
      ++pos_;
      seconds += Number(59) * 60;
      if (Peek() == ':') {
        ++pos_;
        seconds += Number(59);
      }
    }
    return sign * seconds;
  }
  TimeZone::PosixRule::Date RuleDate() {
    TimeZone::PosixRule::Date d;
    if (Peek() == 'J') {
      ++pos_;
      d.kind = TimeZone::PosixRule::DateKind::kJulianNoLeap;
      d.day = Number(365);
      if (d.day < 1) Bad("Julian day must be 1..365");
    } else if (Peek() == 'M') {
      ++pos_;
      d.kind = TimeZone::PosixRule::DateKind::kMonthWeekDay;
      d.month = Number(12);
      Expect('.');
      d.week = Number(5);
      Expect('.');
      d.day = Number(6);
      if (d.month < 1 || d.week < 1) Bad("month must be 1..12 and week 1..5");
    } else {
      d.kind = TimeZone::PosixRule::DateKind::kZeroBasedDay;
      d.day = Number(365);
    }
    if (Peek() == '/') {
      ++pos_;
      d.time = Offset(167);  // RFC 8536 (TZif v3+) extends the hour range to -167..167
    }
    return d;
  }

  std::string_view text_;
  std::string_view context_;
  size_t pos_ = 0;
};

// Days since the epoch of the rule date in `year`.
int64_t RuleDay(const TimeZone::PosixRule::Date& d, int32_t year) {
  using Kind = TimeZone::PosixRule::DateKind;
  const int64_t jan1 = clickhouse::DaysFromCivil(year, 1, 1);
  switch (d.kind) {
    case Kind::kJulianNoLeap:
      return jan1 + d.day - 1 + ((IsLeapYear(year) && d.day >= 60) ? 1 : 0);
    case Kind::kZeroBasedDay:
      return jan1 + d.day;
    case Kind::kMonthWeekDay:
      break;
  }
  const int64_t first = clickhouse::DaysFromCivil(year, static_cast<uint32_t>(d.month), 1);
  const int64_t next_month = d.month == 12 ? clickhouse::DaysFromCivil(year + 1, 1, 1)
                                           : clickhouse::DaysFromCivil(year, d.month + 1, 1);
  const int64_t first_weekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
  int64_t day = first + (d.day - first_weekday + 7) % 7 + int64_t{d.week - 1} * 7;
  while (day >= next_month) day -= 7;  // week 5 means "the last one"
  return day;
}

}  // namespace

TimeZone::PosixRule ParsePosixTz(std::string_view text, std::string_view context) {
  return PosixParser(text, context).Parse();
}

std::shared_ptr<const TimeZone> TimeZone::Utc() {
  static const std::shared_ptr<const TimeZone> utc = [] {
    std::shared_ptr<TimeZone> z(new TimeZone());
    z->name_ = "UTC";
    z->is_utc_ = true;
    z->offsets_.push_back(0);
    return z;
  }();
  return utc;
}

std::shared_ptr<const TimeZone> TimeZone::Load(std::string_view name,
                                               const std::filesystem::path& zoneinfo_dir) {
  if (name.empty() || name == "UTC" || name == "Etc/UTC") return Utc();
  // Only plain relative names: a zone name must never walk out of the zoneinfo directory.
  bool plain = name.front() != '/' && name.find("..") == std::string_view::npos &&
               name.find("//") == std::string_view::npos && name.size() <= 255;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '/' && c != '_' && c != '-' &&
        c != '+')
      plain = false;
  }
  if (!plain) Fail(ErrorCode::kConfig, "invalid time zone name '{}'", name);
  const std::filesystem::path path = zoneinfo_dir / std::string(name);
  std::ifstream file(path, std::ios::binary);
  if (!file)
    Fail(ErrorCode::kConfig,
         "unknown time zone '{}': cannot open {} (is the tzdata package installed?)", name,
         path.string());
  std::string bytes;
  bytes.resize(kMaxTzifBytes + 1);
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(file.gcount()));
  if (bytes.size() > kMaxTzifBytes)
    Fail(ErrorCode::kCorruption, "time zone file {} is larger than {} bytes", path.string(),
         kMaxTzifBytes);
  return FromTzif(std::string(name), bytes);
}

std::shared_ptr<const TimeZone> TimeZone::FromTzif(std::string name, std::string_view bytes) {
  const std::string context = "time zone file '" + name + "'";
  ByteReader in(bytes, 0, context);
  char version = 0;
  TzifCounts counts = ReadHeader(in, version);
  size_t time_bytes = 4;
  if (version >= '2') {
    // The v1 block only serves old readers; the 64-bit block after it is the one to use.
    in.Skip(BodySize(counts, 4), "TZif v1 data block");
    char version2 = 0;
    counts = ReadHeader(in, version2);
    time_bytes = 8;
  }
  if (counts.leap != 0)
    Fail(ErrorCode::kUnsupported, "{}: zones with leap seconds are not supported", context);
  in.Need(BodySize(counts, time_bytes), "TZif data block");

  std::shared_ptr<TimeZone> zone(new TimeZone());
  zone->name_ = std::move(name);
  zone->transitions_.reserve(counts.time);
  for (uint32_t i = 0; i < counts.time; ++i) {
    int64_t t = ReadBigEndianSigned(in, time_bytes, "transition time");
    if (!zone->transitions_.empty() && t <= zone->transitions_.back())
      in.Corrupt("transition times do not ascend");
    zone->transitions_.push_back(t);
  }
  zone->transition_type_.reserve(counts.time);
  for (uint32_t i = 0; i < counts.time; ++i) {
    uint8_t type = in.U8("transition type");
    if (type >= counts.type)
      in.Corrupt(fmt::format("transition type {} out of range ({} types)", type, counts.type));
    zone->transition_type_.push_back(type);
  }
  for (uint32_t i = 0; i < counts.type; ++i) {
    int32_t offset = static_cast<int32_t>(ReadBigEndian32(in, "UT offset"));
    uint8_t is_dst = in.U8("isdst");
    uint8_t designation = in.U8("designation index");
    if (offset < -kMaxOffsetSeconds || offset > kMaxOffsetSeconds)
      in.Corrupt(fmt::format("UT offset {} s out of range", offset));
    if (is_dst > 1) in.Corrupt("isdst is not 0 or 1");
    if (designation >= counts.chars && counts.chars != 0)
      in.Corrupt("designation index past the designation bytes");
    zone->offsets_.push_back(offset);
  }
  in.Skip(counts.chars + counts.isstd + counts.isut, "designations and indicators");

  if (version >= '2') {
    if (in.U8("footer start") != '\n') in.Corrupt("TZif footer does not start with a newline");
    std::string_view rest(reinterpret_cast<const char*>(in.current()), in.remaining());
    size_t newline = rest.find('\n');
    if (newline == std::string_view::npos) in.Corrupt("TZif footer does not end with a newline");
    std::string_view tz = rest.substr(0, newline);
    if (!tz.empty()) {
      zone->rule_ = ParsePosixTz(tz, context);
      zone->has_rule_ = true;
    }
  }
  zone->is_utc_ = zone->transitions_.empty() && zone->offsets_.size() == 1 &&
                  zone->offsets_[0] == 0 &&
                  (!zone->has_rule_ || (!zone->rule_.has_dst && zone->rule_.std_offset == 0));
  return zone;
}

int32_t TimeZone::RuleOffsetAt(int64_t utc) const {
  if (!rule_.has_dst) return rule_.std_offset;
  const int64_t local_std_days = FloorDiv(utc + rule_.std_offset, 86400);
  const int32_t year = clickhouse::CivilFromDays(local_std_days).year;
  const int64_t start = RuleDay(rule_.start, year) * 86400 + rule_.start.time - rule_.std_offset;
  const int64_t end = RuleDay(rule_.end, year) * 86400 + rule_.end.time - rule_.dst_offset;
  bool dst;
  if (start < end) {
    dst = utc >= start && utc < end;
  } else {  // southern hemisphere: DST spans the turn of the year
    dst = !(utc >= end && utc < start);
  }
  return dst ? rule_.dst_offset : rule_.std_offset;
}

int32_t TimeZone::OffsetAt(int64_t utc) const {
  if (is_utc_) return 0;
  if (transitions_.empty()) return has_rule_ ? RuleOffsetAt(utc) : offsets_[0];
  if (utc < transitions_.front()) return offsets_[0];
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), utc);
  size_t index = static_cast<size_t>(it - transitions_.begin()) - 1;
  if (index + 1 == transitions_.size() && has_rule_) return RuleOffsetAt(utc);
  return offsets_[transition_type_[index]];
}

int64_t TimeZone::LocalToUtc(int64_t local) const {
  if (is_utc_) return local;
  // Any instant whose wall time is `local` lies within ±kMaxOffsetSeconds of it, so the offsets at
  // both ends of that window are the candidates (zones do not change twice within two days).
  const int32_t before = OffsetAt(local - kMaxOffsetSeconds);
  const int32_t after = OffsetAt(local + kMaxOffsetSeconds);
  const int64_t with_before = local - before;
  const int64_t with_after = local - after;
  const bool before_valid = OffsetAt(with_before) == before;
  const bool after_valid = OffsetAt(with_after) == after;
  if (before_valid && after_valid) return std::min(with_before, with_after);  // overlap: earlier
  if (after_valid) return with_after;
  return with_before;  // valid, or a gap: read with the offset before the jump
}

}  // namespace rowbridge::mapping
