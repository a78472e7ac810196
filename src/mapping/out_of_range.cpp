#include "mapping/out_of_range.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/error.h"

namespace rowbridge::mapping {

namespace {

constexpr std::array<std::string_view, kRangeRuleCount> kRuleNames = {
    "zero_date",        "date_before_range",    "date_after_range", "time_out_of_range",
    "integer_overflow", "negative_to_unsigned", "decimal_overflow", "string_too_long",
    "invalid_enum",     "null_into_not_null",
};

}  // namespace

std::string_view RangeRuleName(RangeRule rule) {
  return kRuleNames[static_cast<size_t>(rule)];
}

std::optional<RangeRule> RangeRuleFromName(std::string_view name) {
  for (size_t i = 0; i < kRuleNames.size(); ++i)
    if (kRuleNames[i] == name) return static_cast<RangeRule>(i);
  return std::nullopt;
}

std::string_view RangePolicyName(RangePolicy policy) {
  return policy == RangePolicy::kClamp ? "clamp" : "error";
}

ConversionCounters::Slot& ConversionCounters::SlotFor(const ColumnName& column, RangeRule rule) {
  std::string key;
  key.reserve(column.database.size() + column.table.size() + column.column.size() + 2);
  key.append(column.database).push_back('\0');
  key.append(column.table).push_back('\0');
  key.append(column.column);
  const size_t hash = std::hash<std::string>{}(key);
  Shard& shard = shards_[hash % kShards];
  ColumnSlots made;
  {
    std::lock_guard lock(shard.mutex);
    auto [it, inserted] = shard.columns.try_emplace(std::move(key));
    if (!inserted) return *it->second.by_rule[static_cast<size_t>(rule)];
    for (size_t i = 0; i < kRangeRuleCount; ++i) {
      it->second.by_rule[i] =
          &shard.slots.emplace_back(column, static_cast<RangeRule>(i), &exporter_);
    }
    made = it->second;
  }
  {
    std::lock_guard lock(qualified_mutex_);
    by_qualified_.try_emplace(column.Qualified(), made);
  }
  return *made.by_rule[static_cast<size_t>(rule)];
}

uint64_t ConversionCounters::Count(std::string_view column, RangeRule rule) const {
  std::lock_guard lock(qualified_mutex_);
  auto it = by_qualified_.find(std::string(column));
  if (it == by_qualified_.end()) return 0;
  return it->second.by_rule[static_cast<size_t>(rule)]->count.load(std::memory_order_relaxed);
}

std::vector<ConversionCounters::Entry> ConversionCounters::Snapshot() const {
  std::vector<Entry> entries;
  for (const Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    for (const Slot& slot : shard.slots) {
      uint64_t n = slot.count.load(std::memory_order_relaxed);
      if (n != 0) entries.push_back({slot.column, slot.rule, n});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.column != b.column ? a.column < b.column : a.rule < b.rule;
  });
  return entries;
}

void ReportOutOfRange(RangePolicy policy, ConversionCounters::Slot& slot, RangeRule rule,
                      std::string_view source_type, std::string_view target_type,
                      std::string_view value, std::string_view what, std::string_view clamped_to,
                      std::string_view policy_key) {
  if (policy == RangePolicy::kError) {
    std::string fix;
    if (!policy_key.empty()) {
      fix = fmt::format("; to write {} instead, set {}: clamp", clamped_to, policy_key);
    }
    Fail(ErrorCode::kConversion,
         "cannot convert {} value '{}' ({}) to {}: {} (rule {}, policy error){}", slot.column,
         value, source_type, target_type, what, RangeRuleName(rule), fix);
  }
  slot.count.fetch_add(1, std::memory_order_relaxed);
  if (slot.exporter != nullptr && *slot.exporter) {
    std::call_once(slot.export_once, [&] { slot.sink = (*slot.exporter)(slot.name, slot.rule); });
    if (slot.sink) slot.sink(1);
  }
  if (!slot.logged.exchange(true, std::memory_order_relaxed)) {
    spdlog::warn(
        "{}: value '{}' ({}) does not fit {}: {}; wrote {} instead (rule {}, policy clamp; further "
        "cases of this column are only counted)",
        slot.column, value, source_type, target_type, what, clamped_to, RangeRuleName(rule));
  }
}

}  // namespace rowbridge::mapping
