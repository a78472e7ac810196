// What the load generator knows about one column of the table it writes: read from
// information_schema.COLUMNS so that any table works, not only the seed's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rowbridge::loadgen {

enum class ValueKind {
  kSignedInt,
  kUnsignedInt,
  kFloat,
  kDecimal,
  kString,  // CHAR/VARCHAR/TEXT
  kBinary,  // BINARY/VARBINARY/BLOB
  kEnum,
  kSet,
  kBit,
  kYear,
  kDate,
  kTime,
  kDateTime,  // DATETIME and TIMESTAMP
  kJson,
  kGeometry,
};

struct ColumnSpec {
  std::string name;
  ValueKind kind = ValueKind::kString;
  bool nullable = false;
  bool auto_increment = false;
  bool primary_key = false;
  // Integers: value range. Strings: max characters. Decimal: precision/scale. Bit: width.
  int64_t min_value = 0;
  uint64_t max_value = 0;
  uint32_t max_length = 0;
  uint32_t precision = 0;
  uint32_t scale = 0;
  uint32_t fsp = 0;                 // fractional seconds of TIME/DATETIME/TIMESTAMP
  bool timestamp = false;           // TIMESTAMP range is 1970..2038
  std::vector<std::string> labels;  // ENUM/SET members
  // Which characters a string column can hold: 1 = ASCII only, 3 = BMP, 4 = any (utf8mb4).
  int max_char_bytes = 1;
};

// Builds a spec from information_schema.COLUMNS fields (DATA_TYPE, COLUMN_TYPE, ...).
// Throws Error(kUnsupported) naming the column for a type it cannot generate.
ColumnSpec MakeColumnSpec(const std::string& name, const std::string& data_type,
                          const std::string& column_type, bool nullable, const std::string& extra,
                          const std::string& column_key, uint64_t char_max_length,
                          uint32_t numeric_precision, uint32_t numeric_scale,
                          uint32_t datetime_precision, const std::string& charset);

}  // namespace rowbridge::loadgen
