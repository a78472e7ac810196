// Converters for FLOAT and DOUBLE, into
//   Float32   FLOAT only (the same float)
//   Float64   DOUBLE: the same double; FLOAT: the double nearest to the float's shortest decimal
//             text, so FLOAT 1.1 becomes 1.1, not 1.100000023841858 (what MySQL shows is kept)
//   String, LowCardinality(String), FixedString   the shortest round-trip text ("1.1", "1e+20")
// DOUBLE into Float32 is refused (it would round).
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectFloatConverter(Converter& c, std::string& why_not);

}  // namespace rowbridge::mapping
