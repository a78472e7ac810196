// Converters for FLOAT and DOUBLE, into
//   Float32   FLOAT only (the same float)
//   Float64   DOUBLE: the same double; FLOAT: the double nearest to the float's shortest decimal
//             text, so FLOAT 1.1 becomes 1.1, not 1.100000023841858 (what MySQL shows is kept)
//   String, LowCardinality(String), FixedString   the shortest round-trip text ("1.1", "1e+20")
// DOUBLE into Float32 is refused (it would round).
#pragma once

#include <string>
#include <string_view>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectFloatConverter(Converter& c, std::string& why_not);

// The FLOAT → Float64 hot path: parses `text` as std::to_chars writes a float ([-]digits[.digits]
// [e(+|-)digits]) into the nearest double when that takes one exact IEEE operation (at most 15
// significant digits, a power of ten within 10^±22), which is then the same double from_chars
// gives. Returns false (leaving `out` alone) for anything else; callers fall back to from_chars.
bool ParseShortDecimal(std::string_view text, double& out);

// The double nearest to `f`'s shortest round-trip decimal (what std::to_chars writes), computed
// without text when that decimal has at most 4 decimal places and |f| < 2^23 (typical FLOAT(M,D)
// values): m / 10^k for the least k whose nearest k-place decimal m / 10^k reads back as f. Every
// integer below 2^23 is a float, so a shorter decimal with trailing zeros would be f itself, and
// of the decimals with k places only the nearest can be the shortest text's choice. Returns false
// (leaving `out` alone) when it cannot decide exactly: bigger magnitudes, more places, or f * 10^k
// within rounding error of a tie between two k-place decimals.
bool ShortestFloatAsDouble(float f, double& out);

}  // namespace rowbridge::mapping
