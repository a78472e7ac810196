// Converter: how one source MySQL column is written into one target ClickHouse column. It is
// chosen once, at plan time (SelectConverter), for a (ColumnDef, ClickHouse type) pair; at run
// time Append() costs one indirect call and writes the cell straight into the target column's
// buffer. No converter allocates per value: short renderings use stack buffers, long ones
// (DECIMAL text, JSON, SET labels) reuse ConvertScratch, whose capacity persists.
//
// Target types as converters see them: the plan strips Nullable(...) and handles NULL itself.
// LowCardinality(String) and LowCardinality(Nullable(String)) are text targets whose column is
// the ColumnLowCardinalityString itself. `target` is that unwrapped type.
//
// Append() takes the target column as a Column& that MUST be of the class CreateColumn makes for
// the converter's target type (the plan guarantees it; converters static_cast).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/cell.h"
#include "binlog/table_map.h"
#include "clickhouse/columns/column.h"
#include "clickhouse/columns/wide_int.h"
#include "clickhouse/type_name.h"
#include "mapping/out_of_range.h"
#include "mapping/time_zone.h"

namespace rowbridge::mapping {

// Buffers a converter may reuse between values (one per plan; not shared between threads).
struct ConvertScratch {
  std::string text;
  std::vector<float> floats;
};

class Converter;
using ConvertFn = void (*)(const Converter& self, const binlog::Cell& cell,
                           clickhouse::Column& target, ConvertScratch& scratch);

// What SelectConverter needs besides the two types.
struct ConverterSettings {
  // DATETIME values are wall times in this zone; TIMESTAMP values are rendered (String targets)
  // and cut into dates (Date targets) in it. Null means UTC.
  std::shared_ptr<const TimeZone> zone;
  RangePolicies policies;
  // Where clamps are counted; null means a private counter set (tests).
  std::shared_ptr<ConversionCounters> counters;
  // The configuration key that sets `policies` ("tables[0].conversion.on_out_of_range"), named
  // by an out-of-range error as the thing to change; empty: not named.
  std::string policy_key;
};

// How text reaches the column.
enum class TextSink : uint8_t { kNone, kString, kLowCardinality, kFixedString };

// The converters whose whole effect is one plain store. The plan's row loop does these inline
// instead of calling fn (an indirect call, a Cell and a non-inlined append per value); fn still
// does the same, for every other caller.
enum class DirectStore : uint8_t {
  kNone,
  // The value's W little-endian bytes, as they are, into a W-byte integer column (an integer
  // source whose every value fits the target): W = 1, 2, 4 or 8.
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kBytesToString,  // the value's bytes into a String column
};

class Converter {
 public:
  void Append(const binlog::Cell& cell, clickhouse::Column& target, ConvertScratch& scratch) const {
    fn(*this, cell, target, scratch);
  }

  // ---- chosen at plan time (read by the converter functions) ----
  ConvertFn fn = nullptr;
  binlog::ColumnDef source;
  clickhouse::TypeDesc target;  // Nullable stripped; LowCardinality kept
  TextSink text_sink = TextSink::kNone;
  DirectStore direct = DirectStore::kNone;
  // Integer-like targets: the accepted range of the value before it is stored.
  clickhouse::Int128 min = 0;
  clickhouse::Int128 max = 0;
  // Temporal targets: accepted range in the target's unit (days or seconds).
  int64_t range_min = 0;
  int64_t range_max = 0;
  // Decimal and DateTime64 targets: 10^(target scale - source scale) or 10^precision.
  clickhouse::Wide256 decimal_limit;  // 10^P of a Decimal target
  uint32_t scale_up = 0;              // digits to append to the source's unscaled value
  int64_t ticks_per_second = 1;       // DateTime64
  const TimeZone* zone = nullptr;
  std::shared_ptr<const TimeZone> zone_owner;
  std::vector<int16_t> enum_values;  // ENUM index → target Enum value (index 0 = '')
  // SET with at most kMaxPrecomputedSetMembers members into text: the text of every bit pattern.
  static constexpr size_t kMaxPrecomputedSetMembers = 8;
  std::vector<std::string> set_texts;
  bool enum_zero_valid = false;  // the target Enum declares ''
  bool bit_cast_signed = false;  // BIT(n) into a signed n-bit integer keeps the bits

  // ---- reporting ----
  std::string column;       // db.table.column
  std::string source_type;  // "INT UNSIGNED"
  std::string target_type;  // "Nullable(Int8)" as the target table declares it
  RangePolicies policies;
  std::array<ConversionCounters::Slot*, kRangeRuleCount> slots{};
  std::shared_ptr<ConversionCounters> counters;
  std::string policy_key;  // ConverterSettings::policy_key

  // A NULL VECTOR into an Array (which cannot be Nullable) is the empty array: no vector has
  // zero dimensions, so [] stands for NULL without loss, and no policy is asked.
  bool NullIsEmptyArray() const {
    return source.type == binlog::ColumnType::kVector &&
           target.code == clickhouse::TypeCode::kArray;
  }

  // The cold path for a value out of the target's range: counts and logs (clamp) or throws
  // (error). `what` says why, `clamped_to` what is written instead.
  void OutOfRange(RangeRule rule, const binlog::Cell& cell, std::string_view what,
                  std::string_view clamped_to) const;
};

// Chooses the converter for `source` into `target` (the type the target table declares, Nullable
// and all). Returns a converter with fn == nullptr and sets `why_not` when the pair is not
// convertible; throws nothing for unconvertible pairs. `column` names the source column in
// messages and counters.
Converter SelectConverter(const binlog::ColumnDef& source, const clickhouse::TypeDesc& target,
                          const ColumnName& column, const ConverterSettings& settings,
                          std::string& why_not);

}  // namespace rowbridge::mapping
