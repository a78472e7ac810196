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
  std::lock_guard lock(mutex_);
  for (Slot& slot : slots_)
    if (slot.rule == rule && slot.name == column) return slot;
  return slots_.emplace_back(column, rule, &exporter_);
}

uint64_t ConversionCounters::Count(std::string_view column, RangeRule rule) const {
  std::lock_guard lock(mutex_);
  for (const Slot& slot : slots_)
    if (slot.rule == rule && slot.column == column)
      return slot.count.load(std::memory_order_relaxed);
  return 0;
}

std::vector<ConversionCounters::Entry> ConversionCounters::Snapshot() const {
  std::vector<Entry> entries;
  {
    std::lock_guard lock(mutex_);
    for (const Slot& slot : slots_) {
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
