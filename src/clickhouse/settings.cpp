#include "clickhouse/settings.h"

#include "clickhouse/protocol.h"
#include "common/error.h"

namespace rowbridge::clickhouse {
namespace {

// Flags of the text format; "important" makes an unknown setting an error on the server.
constexpr uint64_t kSettingFlagImportant = 0x01;

void CheckName(std::string_view name) {
  if (name.empty()) Fail(ErrorCode::kInvalidArgument, "ClickHouse setting name is empty");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) Fail(ErrorCode::kInvalidArgument, "ClickHouse setting name '{}' is not valid", name);
  }
}

}  // namespace

QuerySettings::Entry& QuerySettings::Slot(std::string_view name) {
  CheckName(name);
  for (Entry& e : entries_) {
    if (e.name == name) return e;
  }
  entries_.push_back(Entry{std::string(name), Kind::kText, {}, 0, 0});
  return entries_.back();
}

QuerySettings& QuerySettings::SetUInt(std::string_view name, uint64_t value) {
  Entry& e = Slot(name);
  e.kind = Kind::kUInt;
  e.uint_value = value;
  e.text = std::to_string(value);
  return *this;
}

QuerySettings& QuerySettings::SetInt(std::string_view name, int64_t value) {
  Entry& e = Slot(name);
  e.kind = Kind::kInt;
  e.int_value = value;
  e.text = std::to_string(value);
  return *this;
}

QuerySettings& QuerySettings::Apply(const QuerySettings& other) {
  for (const Entry& e : other.entries_) Slot(e.name) = e;
  return *this;
}

QuerySettings& QuerySettings::SetText(std::string_view name, std::string_view value) {
  Entry& e = Slot(name);
  e.kind = Kind::kText;
  e.text = std::string(value);
  return *this;
}

const QuerySettings::Entry* QuerySettings::Find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void QuerySettings::Write(WireWriter& out, uint64_t revision) const {
  for (const Entry& e : entries_) {
    out.String(e.name);
    if (revision >= kRevisionWithSettingsAsStrings) {
      out.VarUInt(kSettingFlagImportant);
      out.String(e.text);
      continue;
    }
    switch (e.kind) {
      case Kind::kUInt:
        out.VarUInt(e.uint_value);
        break;
      case Kind::kInt: {
        // ClickHouse's VarInt: zig-zag, then VarUInt.
        uint64_t u = static_cast<uint64_t>(e.int_value);
        out.VarUInt((u << 1) ^ (e.int_value < 0 ? ~uint64_t{0} : 0));
        break;
      }
      case Kind::kText:
        out.String(e.text);
        break;
    }
  }
  out.String("");
}

}  // namespace rowbridge::clickhouse
