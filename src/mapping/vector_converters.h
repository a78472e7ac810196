// Converters for VECTOR(n) (MySQL 9 / MariaDB 11.7; little-endian float32 elements), into
//   Array(Float32)   the elements
//   Array(Float64)   the elements, widened exactly
//   String, LowCardinality(String)   "[e1,e2,...]" with the shortest float text
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectVectorConverter(Converter& c, std::string& why_not);

}  // namespace rowbridge::mapping
