#include "clickhouse/columns/factory.h"

#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"

namespace rowbridge::clickhouse {

ColumnPtr CreateColumn(const TypeDesc& type) {
  switch (type.code) {
    case TypeCode::kInt8: return std::make_unique<ColumnInt8>();
    case TypeCode::kInt16: return std::make_unique<ColumnInt16>();
    case TypeCode::kInt32: return std::make_unique<ColumnInt32>();
    case TypeCode::kInt64: return std::make_unique<ColumnInt64>();
    case TypeCode::kInt128: return std::make_unique<ColumnInt128>();
    case TypeCode::kInt256: return std::make_unique<ColumnWide256>(true);
    case TypeCode::kUInt8: return std::make_unique<ColumnUInt8>();
    case TypeCode::kUInt16: return std::make_unique<ColumnUInt16>();
    case TypeCode::kUInt32: return std::make_unique<ColumnUInt32>();
    case TypeCode::kUInt64: return std::make_unique<ColumnUInt64>();
    case TypeCode::kUInt128: return std::make_unique<ColumnUInt128>();
    case TypeCode::kUInt256: return std::make_unique<ColumnWide256>(false);
    case TypeCode::kFloat32: return std::make_unique<ColumnFloat32>();
    case TypeCode::kFloat64: return std::make_unique<ColumnFloat64>();
    case TypeCode::kString: return std::make_unique<ColumnString>();
    case TypeCode::kFixedString: return std::make_unique<ColumnFixedString>(type.width);
    default: break;
  }
  Fail(ErrorCode::kUnsupported, "ClickHouse type {} is not supported by rowbridge columns",
       type.name);
}

ColumnPtr CreateColumn(std::string_view type_name) { return CreateColumn(ParseTypeName(type_name)); }

}  // namespace rowbridge::clickhouse
