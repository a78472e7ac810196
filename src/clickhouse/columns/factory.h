// CreateColumn: an empty column for a ClickHouse type. Types we cannot serialize throw
// Error(kUnsupported) naming the type (e.g. LowCardinality of anything but String and
// Nullable(String)).
#pragma once

#include <string_view>

#include "clickhouse/columns/column.h"
#include "clickhouse/type_name.h"

namespace rowbridge::clickhouse {

ColumnPtr CreateColumn(const TypeDesc& type);
// ParseTypeName + CreateColumn.
ColumnPtr CreateColumn(std::string_view type_name);

}  // namespace rowbridge::clickhouse
