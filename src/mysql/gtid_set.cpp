#include "mysql/gtid_set.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/error.h"
#include "mysql/payload_writer.h"

namespace rowbridge::mysql {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Unsigned decimal, the whole of `text`; nullopt if not.
std::optional<uint64_t> ParseNumber(std::string_view text) {
  uint64_t v = 0;
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

bool IsTag(std::string_view t) {
  if (t.empty() || t.size() > 32) return false;
  if (!(std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_')) return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void AppendIntervals(std::string& out, const std::vector<GtidInterval>& intervals) {
  for (const GtidInterval& i : intervals) {
    if (i.first == i.last) {
      out += fmt::format(":{}", i.first);
    } else {
      out += fmt::format(":{}-{}", i.first, i.last);
    }
  }
}

}  // namespace

Uuid Uuid::Parse(std::string_view text) {
  Uuid u;
  std::string_view t = Trim(text);
  static constexpr int kDashes[] = {8, 13, 18, 23};
  bool ok = t.size() == 36;
  size_t byte = 0;
  for (size_t i = 0; ok && i < t.size();) {
    if (std::find(std::begin(kDashes), std::end(kDashes), static_cast<int>(i)) !=
        std::end(kDashes)) {
      ok = t[i] == '-';
      ++i;
      continue;
    }
    int hi = HexValue(t[i]);
    int lo = i + 1 < t.size() ? HexValue(t[i + 1]) : -1;
    ok = hi >= 0 && lo >= 0;
    if (ok) u.bytes[byte++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  if (!ok || byte != 16) Fail(ErrorCode::kInvalidArgument, "invalid server UUID '{}'", text);
  return u;
}

std::string Uuid::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xf]);
  }
  return out;
}

MysqlGtidSet MysqlGtidSet::Parse(std::string_view text) {
  MysqlGtidSet set;
  if (Trim(text).empty()) return set;
  for (std::string_view group : Split(text, ',')) {
    std::vector<std::string_view> tokens = Split(group, ':');
    auto bad = [&](std::string_view why) {
      Fail(ErrorCode::kInvalidArgument, "invalid MySQL GTID set '{}': {} in '{}'", text, why,
           Trim(group));
    };
    if (tokens.size() < 2) bad("expected uuid:interval");
    Uuid uuid = Uuid::Parse(tokens[0]);
    std::string tag;
    bool has_interval_for_tag = true;
    for (size_t i = 1; i < tokens.size(); ++i) {
      std::string_view token = Trim(tokens[i]);
      if (!token.empty() && !std::isdigit(static_cast<unsigned char>(token[0]))) {
        if (!IsTag(token)) bad(fmt::format("'{}' is neither an interval nor a tag", token));
        if (!has_interval_for_tag) bad(fmt::format("tag '{}' without intervals", tag));
        tag = Lower(token);
        has_interval_for_tag = false;
        continue;
      }
      size_t dash = token.find('-');
      auto first = ParseNumber(token.substr(0, dash));
      auto last = dash == std::string_view::npos ? first : ParseNumber(token.substr(dash + 1));
      if (!first || !last) bad(fmt::format("'{}' is not an interval", token));
      if (*first == 0 || *last < *first || *last > kMaxGno) {
        bad(fmt::format("interval '{}' is empty or out of range 1..{}", token, kMaxGno));
      }
      set.Add(uuid, tag, *first, *last);
      has_interval_for_tag = true;
    }
    if (!has_interval_for_tag) bad(fmt::format("tag '{}' without intervals", tag));
  }
  return set;
}

std::string MysqlGtidSet::ToString() const {
  std::string out;
  const Uuid* current = nullptr;
  for (const auto& [key, intervals] : sets_) {
    if (current == nullptr || *current != key.uuid) {
      if (current != nullptr) out.push_back(',');
      out += key.uuid.ToString();
      current = &key.uuid;
    }
    if (!key.tag.empty()) out += ":" + key.tag;
    AppendIntervals(out, intervals);
  }
  return out;
}

void MysqlGtidSet::Insert(std::vector<GtidInterval>& v, uint64_t first, uint64_t last) {
  // Fast path: the next transaction of the newest interval.
  if (!v.empty() && v.back().last < last && first <= v.back().last + 1 && first >= v.back().first) {
    v.back().last = last;
    return;
  }
  // First interval whose end reaches `first - 1` (touching intervals merge).
  auto it = std::lower_bound(v.begin(), v.end(), first,
                             [](const GtidInterval& i, uint64_t f) { return i.last + 1 < f; });
  auto end = it;
  while (end != v.end() && end->first <= last + 1) {
    first = std::min(first, end->first);
    last = std::max(last, end->last);
    ++end;
  }
  it = v.erase(it, end);
  v.insert(it, GtidInterval{first, last});
}

void MysqlGtidSet::Add(const Uuid& uuid, std::string_view tag, uint64_t first, uint64_t last) {
  if (first == 0 || last < first || last > kMaxGno) {
    Fail(ErrorCode::kInvalidArgument, "invalid GTID interval {}:{}-{}", uuid.ToString(), first,
         last);
  }
  Key key{uuid, std::string(tag)};
  if (!key.tag.empty()) {
    if (!IsTag(key.tag)) Fail(ErrorCode::kInvalidArgument, "invalid GTID tag '{}'", tag);
    key.tag = Lower(key.tag);
  }
  Insert(sets_[std::move(key)], first, last);
}

bool MysqlGtidSet::Contains(const Uuid& uuid, std::string_view tag, uint64_t gno) const {
  auto found = sets_.find(Key{uuid, Lower(tag)});
  if (found == sets_.end()) return false;
  const auto& v = found->second;
  auto it = std::lower_bound(v.begin(), v.end(), gno,
                             [](const GtidInterval& i, uint64_t g) { return i.last < g; });
  return it != v.end() && it->first <= gno;
}

void MysqlGtidSet::Merge(const MysqlGtidSet& other) {
  for (const auto& [key, intervals] : other.sets_) {
    auto& mine = sets_[key];
    for (const GtidInterval& i : intervals) Insert(mine, i.first, i.last);
  }
}

bool MysqlGtidSet::HasTags() const {
  return std::any_of(sets_.begin(), sets_.end(),
                     [](const auto& e) { return !e.first.tag.empty(); });
}

std::vector<GtidInterval> MysqlGtidSet::Intervals(const Uuid& uuid, std::string_view tag) const {
  auto found = sets_.find(Key{uuid, Lower(tag)});
  return found == sets_.end() ? std::vector<GtidInterval>{} : found->second;
}

std::string MysqlGtidSet::Encode() const {
  PayloadWriter w;
  const bool tagged = HasTags();
  if (tagged) {
    // Tagged format: format byte 1 in the top and bottom byte, entry count in between.
    w.U64((uint64_t{1} << 56) | (uint64_t{sets_.size()} << 8) | 1);
  } else {
    w.U64(sets_.size());
  }
  for (const auto& [key, intervals] : sets_) {
    w.Raw(std::string_view(reinterpret_cast<const char*>(key.uuid.bytes.data()), 16));
    if (tagged) {
      // Tag length as MySQL's variable-length integer: one byte (length << 1) below 128.
      w.U8(static_cast<uint8_t>(key.tag.size() << 1)).Raw(key.tag);
    }
    w.U64(intervals.size());
    for (const GtidInterval& i : intervals) w.U64(i.first).U64(i.last + 1);  // end exclusive
  }
  return w.bytes();
}

MariadbGtid MariadbGtid::Parse(std::string_view text) {
  std::vector<std::string_view> parts = Split(Trim(text), '-');
  std::optional<uint64_t> d, s, n;
  if (parts.size() == 3) {
    d = ParseNumber(parts[0]);
    s = ParseNumber(parts[1]);
    n = ParseNumber(parts[2]);
  }
  if (!d || !s || !n || *d > UINT32_MAX || *s > UINT32_MAX) {
    Fail(ErrorCode::kInvalidArgument,
         "invalid MariaDB GTID '{}' (expected domain-server-sequence, e.g. 0-1-100)", text);
  }
  return MariadbGtid{static_cast<uint32_t>(*d), static_cast<uint32_t>(*s), *n};
}

std::string MariadbGtid::ToString() const {
  return fmt::format("{}-{}-{}", domain_id, server_id, sequence);
}

MariadbGtidPosition MariadbGtidPosition::Parse(std::string_view text) {
  MariadbGtidPosition pos;
  if (Trim(text).empty()) return pos;
  for (std::string_view part : Split(text, ',')) {
    MariadbGtid gtid = MariadbGtid::Parse(part);
    if (!pos.domains_.emplace(gtid.domain_id, gtid).second) {
      Fail(ErrorCode::kInvalidArgument, "MariaDB GTID position '{}' names domain {} twice", text,
           gtid.domain_id);
    }
  }
  return pos;
}

std::string MariadbGtidPosition::ToString() const {
  std::string out;
  for (const auto& [domain, gtid] : domains_) {
    if (!out.empty()) out.push_back(',');
    out += gtid.ToString();
  }
  return out;
}

std::optional<MariadbGtid> MariadbGtidPosition::Find(uint32_t domain_id) const {
  auto it = domains_.find(domain_id);
  if (it == domains_.end()) return std::nullopt;
  return it->second;
}

std::vector<MariadbGtid> MariadbGtidPosition::gtids() const {
  std::vector<MariadbGtid> out;
  for (const auto& [domain, gtid] : domains_) out.push_back(gtid);
  return out;
}

}  // namespace rowbridge::mysql
