// Converters for CHAR, VARCHAR, BINARY, VARBINARY, TEXT, BLOB, JSON and GEOMETRY, into
//   String, LowCardinality(String)  the bytes as stored (JSON: MySQL's JSON text; GEOMETRY: WKB,
//                                   i.e. without MySQL's 4-byte SRID prefix; BINARY(n): padded
//                                   with zero bytes to n, as SELECT shows it — the binlog drops
//                                   trailing zeros)
//   FixedString(N)                  the bytes, zero-padded; longer values: string_too_long
//                                   (clamp keeps the first N bytes)
//   UUID                            BINARY(16)/VARBINARY 16-byte values in RFC 4122 byte order,
//                                   or text columns holding xxxxxxxx-xxxx-... (anything else is
//                                   an Error(kConversion): there is no nearest UUID)
#pragma once

#include <string>

#include "mapping/converter.h"

namespace rowbridge::mapping {

bool SelectStringConverter(Converter& c, std::string& why_not);

}  // namespace rowbridge::mapping
