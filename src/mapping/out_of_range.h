// What happens when a MySQL value has no faithful counterpart in the target ClickHouse column
// (0000-00-00 into Date, 300 into Int8, a 2300 date into DateTime64, ...). Each case is a
// RangeRule with its own policy (RangePolicies defaults to kClamp; the configuration's default,
// conversion.on_out_of_range, is error):
//   kClamp            write the documented nearest value (see docs/type-mapping.md), count it per
//                     db.table.column and rule in ConversionCounters, and log the first one of
//                     each column and rule with spdlog (warn);
//   kError            throw Error(kConversion) naming db.table.column, the value and the rule.
// Nothing is ever written silently wrong.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rowbridge::mapping {

enum class RangeRule : uint8_t {
  kZeroDate,            // 0000-00-00, a zero month or day, the zero TIMESTAMP
  kDateBeforeRange,     // a date/time before the target type's first day
  kDateAfterRange,      // a date/time after the target type's last day
  kTimeOutOfRange,      // TIME < 0 or >= 24:00:00 into DateTime/DateTime64 (time of day)
  kIntegerOverflow,     // an integer (or BIT, SET mask, ENUM index) too large for the target
  kNegativeToUnsigned,  // a negative number into an unsigned target
  kDecimalOverflow,     // a DECIMAL with more integer digits than the target Decimal holds
  kStringTooLong,       // a value longer than FixedString(N)
  kInvalidEnum,         // ENUM's error value '' (index 0) into an Enum that lacks ''
  kNullIntoNotNull,     // NULL into a column that is not Nullable
};
inline constexpr size_t kRangeRuleCount = 10;

// "zero_date", "date_before_range", ... (the names used in the configuration and in metrics).
std::string_view RangeRuleName(RangeRule rule);
// Inverse of RangeRuleName; nullopt for an unknown name.
std::optional<RangeRule> RangeRuleFromName(std::string_view name);

enum class RangePolicy : uint8_t { kClamp, kError };
std::string_view RangePolicyName(RangePolicy policy);  // "clamp", "error"

struct RangePolicies {
  std::array<RangePolicy, kRangeRuleCount> by_rule{};  // all kClamp

  RangePolicy operator[](RangeRule rule) const { return by_rule[static_cast<size_t>(rule)]; }
  RangePolicies& Set(RangeRule rule, RangePolicy policy) {
    by_rule[static_cast<size_t>(rule)] = policy;
    return *this;
  }
  static RangePolicies AllError() {
    RangePolicies p;
    p.by_rule.fill(RangePolicy::kError);
    return p;
  }
};

// A source column, its parts kept apart (a name may hold a dot).
struct ColumnName {
  std::string database;
  std::string table;
  std::string column;
  std::string Qualified() const { return database + "." + table + "." + column; }
  bool operator==(const ColumnName&) const = default;
};

// Clamp counters per db.table.column and rule: the metrics a status page or Prometheus endpoint
// reads. Slots are created at plan time and have stable addresses, so the hot path only does a
// relaxed atomic increment. Thread-safe.
//
// SlotFor is a hash look-up in one of kShards maps, each under its own mutex (the hash is
// computed before any lock): building the converters of thousands of tables, from several
// threads, costs the same per column whatever the number of slots already made.
class ConversionCounters {
 public:
  // Adds `n` clamped values to a tally of the exporter's (e.g. a Prometheus counter).
  using Sink = std::function<void(uint64_t n)>;
  // Called once per column and rule, at its first clamped value (so that a column that never
  // clamps exports nothing), for where to count it as well; may return an empty Sink.
  using Exporter = std::function<Sink(const ColumnName& column, RangeRule rule)>;

  struct Slot {
    Slot(ColumnName n, RangeRule r, const Exporter* e)
        : name(std::move(n)), column(name.Qualified()), rule(r), exporter(e) {}
    const ColumnName name;
    const std::string column;  // db.table.column
    const RangeRule rule;
    std::atomic<uint64_t> count{0};
    std::atomic<bool> logged{false};
    const Exporter* exporter;  // the owner's; null or empty: none
    std::once_flag export_once;
    Sink sink;  // set under export_once
  };
  struct Entry {
    std::string column;
    RangeRule rule;
    uint64_t count;
    bool operator==(const Entry&) const = default;
  };

  ConversionCounters() = default;
  // Counts also go to what `exporter` returns per column and rule.
  explicit ConversionCounters(Exporter exporter) : exporter_(std::move(exporter)) {}

  // The slot for (column, rule), created on first use. O(1): one hash look-up.
  Slot& SlotFor(const ColumnName& column, RangeRule rule);
  // Clamped values of a column under a rule so far (0 if none).
  uint64_t Count(std::string_view column, RangeRule rule) const;
  // Every non-zero counter, sorted by column then rule.
  std::vector<Entry> Snapshot() const;

 private:
  // The slots of one column, one per rule, made together on the column's first look-up.
  struct ColumnSlots {
    std::array<Slot*, kRangeRuleCount> by_rule{};
  };
  // Key: the column's qualified parts joined by '\0' (no part of a name holds a NUL byte).
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, ColumnSlots> columns;
    std::deque<Slot> slots;
  };
  static constexpr size_t kShards = 16;

  const Exporter exporter_;
  std::array<Shard, kShards> shards_;
  // "db.table.column" -> the first column of that qualified name (Count; cold).
  mutable std::mutex qualified_mutex_;
  std::unordered_map<std::string, ColumnSlots> by_qualified_;
};

// Reports one out-of-range value. With kError throws Error(kConversion):
//   "cannot convert db.table.column value '<value>' (<source type>) to <target type>: <what>
//    (rule <name>, policy error); to write <clamped_to> instead, set <policy_key>: clamp"
// (the last part only with a `policy_key`, the configuration key that chose the policy). With
// kClamp counts it in `slot` and logs the first one of the slot; `clamped_to` names the value
// written instead. Call only on the (cold) out-of-range path.
void ReportOutOfRange(RangePolicy policy, ConversionCounters::Slot& slot, RangeRule rule,
                      std::string_view source_type, std::string_view target_type,
                      std::string_view value, std::string_view what, std::string_view clamped_to,
                      std::string_view policy_key = {});

}  // namespace rowbridge::mapping
