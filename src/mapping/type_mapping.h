// The ClickHouse type rowbridge gives a MySQL column in the tables it creates: exact where the
// connected server can be exact, the best type it supports otherwise (docs/type-mapping.md has the
// full table). Tables the user made are not typed here; conversion_plan.h maps into whatever
// types they declare.
#pragma once

#include <string>

#include "binlog/table_map.h"
#include "clickhouse/server_features.h"
#include "clickhouse/type_name.h"

namespace rowbridge::mapping {

enum class EnumMapping {
  kLowCardinality,  // LowCardinality(String) where the server has it without a setting, else String
  kEnum,            // Enum8/Enum16 with the MySQL labels at their MySQL index ('' = 0)
  kString,
};

enum class TimeMapping {
  kString,             // "[-]HH:MM:SS[.f]", exactly as MySQL shows it
  kInt64Microseconds,  // signed microseconds
};

struct TypeMappingOptions {
  EnumMapping enum_mapping = EnumMapping::kLowCardinality;
  TimeMapping time_mapping = TimeMapping::kString;
  // The zone DATETIME values are read in (ConverterSettings::zone); DateTime/DateTime64 columns
  // for DATETIME and TIMESTAMP carry it, so ClickHouse shows the same wall time MySQL does.
  std::string time_zone = "UTC";
};

// The default type of `column` on a server with `features`. A `key_column` (part of ORDER BY) is
// never Nullable: old servers refuse nullable sorting keys. Throws Error(kUnsupported) for types
// no supported server writes into row events (pre-5.0 DECIMAL, NULL, BOOL, TYPED_ARRAY).
clickhouse::TypeDesc DefaultClickHouseType(const binlog::ColumnDef& column,
                                           const TypeMappingOptions& options,
                                           const clickhouse::ServerFeatures& features,
                                           bool key_column = false);

}  // namespace rowbridge::mapping
