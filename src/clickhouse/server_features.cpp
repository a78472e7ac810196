#include "clickhouse/server_features.h"

#include <algorithm>
#include <charconv>

#include "common/error.h"

namespace rowbridge::clickhouse {

ServerVersion ServerVersion::Parse(std::string_view text) {
  uint32_t parts[3] = {0, 0, 0};
  size_t count = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (count < 3) {
    auto [next, ec] = std::from_chars(p, end, parts[count]);
    if (ec != std::errc())
      Fail(ErrorCode::kInvalidArgument, "invalid ClickHouse version '{}'", text);
    ++count;
    p = next;
    if (p == end || *p != '.') break;
    ++p;
  }
  if (count < 2) Fail(ErrorCode::kInvalidArgument, "invalid ClickHouse version '{}'", text);
  return {parts[0], parts[1], parts[2]};
}

std::string ServerVersion::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

void ServerFeatures::CheckType(const TypeDesc& type) const {
  bool ok = true;
  switch (type.code) {
    case TypeCode::kLowCardinality:
      ok = HasLowCardinality();
      break;
    case TypeCode::kDateTime64:
      ok = HasDateTime64();
      break;
    case TypeCode::kInt128:
    case TypeCode::kInt256:
    case TypeCode::kUInt256:
    case TypeCode::kDecimal256:
      ok = HasBigIntegers();
      break;
    case TypeCode::kUInt128:
      ok = HasUInt128();
      break;
    case TypeCode::kDate32:
      ok = HasDate32();
      break;
    case TypeCode::kBool:
      ok = HasBool();
      break;
    default:
      break;
  }
  if (!ok)
    Fail(ErrorCode::kUnsupported, "ClickHouse {} has no type {}", version_.ToString(), type.name);
  for (const auto& nested : type.nested) CheckType(nested);
}

std::vector<std::string> ServerFeatures::CreateSettingsFor(const TypeDesc& type) const {
  std::vector<std::string> settings;
  auto add = [&settings](const char* setting) {
    if (std::find(settings.begin(), settings.end(), setting) == settings.end())
      settings.emplace_back(setting);
  };
  auto visit = [&](const TypeDesc& t, auto& self) -> void {
    if (t.code == TypeCode::kLowCardinality && LowCardinalityNeedsSetting())
      add("allow_experimental_low_cardinality_type=1");
    if ((t.code == TypeCode::kInt128 || t.code == TypeCode::kInt256 ||
         t.code == TypeCode::kUInt256 || t.code == TypeCode::kDecimal256) &&
        BigIntegersNeedSetting())
      add("allow_experimental_bigint_types=1");
    for (const auto& nested : t.nested) self(nested, self);
  };
  visit(type, visit);
  return settings;
}

}  // namespace rowbridge::clickhouse
