// Converters for ENUM and SET by their labels (the numbers behind them go through
// integer_converters.h):
//   ENUM → String, LowCardinality(String), FixedString   the label ('' for the error value 0)
//   ENUM → Enum8/Enum16    by label; every source label must exist in the target (checked at plan
//                          time); the error value 0 maps to the target's '' if it declares one,
//                          otherwise invalid_enum (clamp: the target's smallest value)
//   SET  → String, LowCardinality(String), FixedString   labels joined by ',' in declaration
//                          order, as MySQL shows them
//   SET  → Array(String)   the labels
// Labels come from the TABLE_MAP's optional metadata (binlog_row_metadata=FULL) or from the
// caller; without them these pairs are refused at plan time.
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectLabelConverter(Converter& c, std::string& why_not);

}  // namespace rowbridge::mapping
