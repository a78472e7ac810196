#include "mapping/type_mapping.h"

#include "common/error.h"
#include "mapping/mysql_text.h"

namespace rowbridge::mapping {

namespace {

using binlog::ColumnType;
using clickhouse::TypeCode;
using clickhouse::TypeDesc;

// Experimental types that need a session setting are not used by default: a table rowbridge
// creates must work for every client without special settings.
bool UsableLowCardinality(const clickhouse::ServerFeatures& f) {
  return f.HasLowCardinality() && !f.LowCardinalityNeedsSetting();
}
bool UsableDecimal256(const clickhouse::ServerFeatures& f) {
  return f.HasBigIntegers() && !f.BigIntegersNeedSetting();
}

TypeDesc Integer(bool is_unsigned, TypeCode signed_code, TypeCode unsigned_code) {
  return clickhouse::MakeType(is_unsigned ? unsigned_code : signed_code);
}

// DATETIME spans the years 1000-9999, DateTime only 1970-2105, so every DATETIME becomes a
// DateTime64 (1900-2299) where the server has it, and fewer values are out of range. TIMESTAMP
// (1970-2038) fits DateTime, which keeps the smaller type where no fraction needs DateTime64.
TypeDesc DateTimeType(uint32_t fsp, bool is_datetime, const TypeMappingOptions& options,
                      const clickhouse::ServerFeatures& features) {
  if ((fsp > 0 || is_datetime) && features.HasDateTime64())
    return clickhouse::MakeDateTime64(fsp, options.time_zone);
  return clickhouse::MakeDateTime(options.time_zone);
}

TypeDesc LabelString(const clickhouse::ServerFeatures& features, bool& low_cardinality) {
  low_cardinality = UsableLowCardinality(features);
  return low_cardinality ? clickhouse::MakeWrapper(TypeCode::kLowCardinality,
                                                   clickhouse::MakeType(TypeCode::kString))
                         : clickhouse::MakeType(TypeCode::kString);
}

TypeDesc EnumType(const binlog::ColumnDef& column, const TypeMappingOptions& options,
                  const clickhouse::ServerFeatures& features, bool& low_cardinality) {
  low_cardinality = false;
  const auto& labels = column.enum_values;
  if (options.enum_mapping == EnumMapping::kEnum && !labels.empty() && labels.size() <= 32767) {
    std::vector<std::pair<std::string, int16_t>> items;
    bool has_empty = false;
    for (const auto& label : labels) has_empty = has_empty || label.empty();
    if (!has_empty) items.emplace_back("", 0);  // MySQL's error value, index 0
    for (size_t i = 0; i < labels.size(); ++i)
      items.emplace_back(labels[i], static_cast<int16_t>(i + 1));
    return clickhouse::MakeEnum(labels.size() <= 127 ? TypeCode::kEnum8 : TypeCode::kEnum16,
                                std::move(items));
  }
  if (options.enum_mapping == EnumMapping::kString) return clickhouse::MakeType(TypeCode::kString);
  return LabelString(features, low_cardinality);
}

}  // namespace

TypeDesc DefaultClickHouseType(const binlog::ColumnDef& column, const TypeMappingOptions& options,
                               const clickhouse::ServerFeatures& features, bool key_column) {
  bool low_cardinality = false;
  bool nullable_ok = true;
  TypeDesc type;
  switch (column.type) {
    case ColumnType::kTiny:
      type = Integer(column.is_unsigned, TypeCode::kInt8, TypeCode::kUInt8);
      break;
    case ColumnType::kShort:
      type = Integer(column.is_unsigned, TypeCode::kInt16, TypeCode::kUInt16);
      break;
    case ColumnType::kInt24:
    case ColumnType::kLong:
      type = Integer(column.is_unsigned, TypeCode::kInt32, TypeCode::kUInt32);
      break;
    case ColumnType::kLongLong:
      type = Integer(column.is_unsigned, TypeCode::kInt64, TypeCode::kUInt64);
      break;
    case ColumnType::kFloat:
      type = clickhouse::MakeType(TypeCode::kFloat32);
      break;
    case ColumnType::kDouble:
      type = clickhouse::MakeType(TypeCode::kFloat64);
      break;
    case ColumnType::kNewDecimal:
      if (column.precision <= 38 || (column.precision <= 76 && UsableDecimal256(features)))
        type = clickhouse::MakeDecimal(column.precision, column.scale);
      else
        type = clickhouse::MakeType(TypeCode::kString);
      break;
    case ColumnType::kBit: {
      const uint32_t bits = column.meta;
      type = clickhouse::MakeType(bits <= 8    ? TypeCode::kUInt8
                                  : bits <= 16 ? TypeCode::kUInt16
                                  : bits <= 32 ? TypeCode::kUInt32
                                               : TypeCode::kUInt64);
      break;
    }
    case ColumnType::kYear:
      type = clickhouse::MakeType(TypeCode::kUInt16);
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
      type = clickhouse::MakeType(features.HasDate32() ? TypeCode::kDate32 : TypeCode::kDate);
      break;
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      type = DateTimeType(
          TemporalFsp(column),
          column.type == ColumnType::kDateTime || column.type == ColumnType::kDateTime2, options,
          features);
      break;
    case ColumnType::kTime:
    case ColumnType::kTime2:
      type = clickhouse::MakeType(options.time_mapping == TimeMapping::kInt64Microseconds
                                      ? TypeCode::kInt64
                                      : TypeCode::kString);
      break;
    case ColumnType::kEnum:
      type = EnumType(column, options, features, low_cardinality);
      break;
    case ColumnType::kSet:
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
      type = clickhouse::MakeType(TypeCode::kString);
      break;
    case ColumnType::kVector:
      type = clickhouse::MakeWrapper(TypeCode::kArray, clickhouse::MakeType(TypeCode::kFloat32));
      nullable_ok = false;  // Array cannot be Nullable; NULL becomes [] (rule null_into_not_null)
      break;
    default:
      Fail(ErrorCode::kUnsupported, "MySQL column type {} has no ClickHouse mapping",
           MysqlTypeName(column));
  }
  if (!column.nullable || key_column || !nullable_ok) return type;
  if (low_cardinality) {
    return clickhouse::MakeWrapper(
        TypeCode::kLowCardinality,
        clickhouse::MakeWrapper(TypeCode::kNullable, clickhouse::MakeType(TypeCode::kString)));
  }
  return clickhouse::MakeWrapper(TypeCode::kNullable, std::move(type));
}

}  // namespace rowbridge::mapping
