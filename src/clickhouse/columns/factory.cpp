#include "clickhouse/columns/factory.h"

#include "clickhouse/columns/array.h"
#include "clickhouse/columns/date.h"
#include "clickhouse/columns/decimal.h"
#include "clickhouse/columns/enum.h"
#include "clickhouse/columns/low_cardinality.h"
#include "clickhouse/columns/nullable.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/columns/uuid.h"

namespace rowbridge::clickhouse {

ColumnPtr CreateColumn(const TypeDesc& type) {
  switch (type.code) {
    case TypeCode::kInt8:
      return std::make_unique<ColumnInt8>();
    case TypeCode::kInt16:
      return std::make_unique<ColumnInt16>();
    case TypeCode::kInt32:
      return std::make_unique<ColumnInt32>();
    case TypeCode::kInt64:
      return std::make_unique<ColumnInt64>();
    case TypeCode::kInt128:
      return std::make_unique<ColumnInt128>();
    case TypeCode::kInt256:
      return std::make_unique<ColumnWide256>(true);
    case TypeCode::kUInt8:
      return std::make_unique<ColumnUInt8>();
    case TypeCode::kUInt16:
      return std::make_unique<ColumnUInt16>();
    case TypeCode::kUInt32:
      return std::make_unique<ColumnUInt32>();
    case TypeCode::kUInt64:
      return std::make_unique<ColumnUInt64>();
    case TypeCode::kUInt128:
      return std::make_unique<ColumnUInt128>();
    case TypeCode::kUInt256:
      return std::make_unique<ColumnWide256>(false);
    case TypeCode::kFloat32:
      return std::make_unique<ColumnFloat32>();
    case TypeCode::kFloat64:
      return std::make_unique<ColumnFloat64>();
    case TypeCode::kString:
      return std::make_unique<ColumnString>();
    case TypeCode::kFixedString:
      return std::make_unique<ColumnFixedString>(type.width);
    case TypeCode::kDecimal32:
      return std::make_unique<ColumnDecimal32>(type.precision, type.scale);
    case TypeCode::kDecimal64:
      return std::make_unique<ColumnDecimal64>(type.precision, type.scale);
    case TypeCode::kDecimal128:
      return std::make_unique<ColumnDecimal128>(type.precision, type.scale);
    case TypeCode::kDecimal256:
      return std::make_unique<ColumnDecimal256>(type.precision, type.scale);
    case TypeCode::kDate:
      return std::make_unique<ColumnDate>();
    case TypeCode::kDate32:
      return std::make_unique<ColumnDate32>();
    case TypeCode::kDateTime:
      return std::make_unique<ColumnDateTime>(type.timezone);
    case TypeCode::kDateTime64:
      return std::make_unique<ColumnDateTime64>(type.precision, type.timezone);
    case TypeCode::kUUID:
      return std::make_unique<ColumnUuid>();
    case TypeCode::kEnum8:
      return std::make_unique<ColumnEnum8>(type.enum_items);
    case TypeCode::kEnum16:
      return std::make_unique<ColumnEnum16>(type.enum_items);
    case TypeCode::kBool:
      return std::make_unique<ColumnBool>();
    case TypeCode::kNullable:
      return std::make_unique<ColumnNullable>(CreateColumn(type.nested.at(0)));
    case TypeCode::kArray:
      return std::make_unique<ColumnArray>(CreateColumn(type.nested.at(0)));
    case TypeCode::kLowCardinality: {
      const TypeDesc& inner = type.nested.at(0);
      if (inner.code == TypeCode::kString)
        return std::make_unique<ColumnLowCardinalityString>(false);
      if (inner.code == TypeCode::kNullable && inner.nested.at(0).code == TypeCode::kString)
        return std::make_unique<ColumnLowCardinalityString>(true);
      break;
    }
  }
  Fail(ErrorCode::kUnsupported, "ClickHouse type {} is not supported by rowbridge columns",
       type.name);
}

ColumnPtr CreateColumn(std::string_view type_name) {
  return CreateColumn(ParseTypeName(type_name));
}

}  // namespace rowbridge::clickhouse
