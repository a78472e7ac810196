// Converters for DECIMAL(p, s) values, into
//   Decimal(P, S) with S >= s     exact: the unscaled value times 10^(S - s); a value with more
//                                 integer digits than P - S allows goes through decimal_overflow
//                                 (clamp to ±(10^P - 1) / 10^S)
//   String, LowCardinality(String), FixedString   the exact text ("-0.50")
//   Float64                       the nearest double to the exact value
//   Int*/UInt* when s == 0        the integer, range-checked like integer converters
// S < s is refused at plan time: it would silently drop fraction digits.
//
// StoreDecimal is shared with the integer converters (integers into Decimal columns).
#pragma once

#include <string>

#include "clickhouse/columns/wide_int.h"
#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectDecimalConverter(Converter& c, std::string& why_not);

// Prepares c.decimal_limit and c.scale_up for a Decimal target given the source's scale;
// false (why_not set) if the target scale is smaller than the source scale.
bool SetupDecimalTarget(Converter& c, uint32_t source_scale, std::string& why_not);

// Scales `unscaled` (two's complement, at the source's scale) up by c.scale_up digits, applies the
// decimal_overflow rule against c.decimal_limit and appends to the ColumnDecimal<T> `column`.
// T is int32_t, int64_t, clickhouse::Int128 or clickhouse::Wide256.
template <typename T>
void StoreDecimal(const Converter& c, const binlog::Cell& cell, clickhouse::Column& column,
                  clickhouse::Wide256 unscaled);

}  // namespace rowbridge::mapping
