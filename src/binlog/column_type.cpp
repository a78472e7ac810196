#include "binlog/column_type.h"

namespace rowbridge::binlog {

std::string_view ColumnTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kDecimal:
      return "DECIMAL";
    case ColumnType::kTiny:
      return "TINY";
    case ColumnType::kShort:
      return "SHORT";
    case ColumnType::kLong:
      return "LONG";
    case ColumnType::kFloat:
      return "FLOAT";
    case ColumnType::kDouble:
      return "DOUBLE";
    case ColumnType::kNull:
      return "NULL";
    case ColumnType::kTimestamp:
      return "TIMESTAMP";
    case ColumnType::kLongLong:
      return "LONGLONG";
    case ColumnType::kInt24:
      return "INT24";
    case ColumnType::kDate:
      return "DATE";
    case ColumnType::kTime:
      return "TIME";
    case ColumnType::kDateTime:
      return "DATETIME";
    case ColumnType::kYear:
      return "YEAR";
    case ColumnType::kNewDate:
      return "NEWDATE";
    case ColumnType::kVarchar:
      return "VARCHAR";
    case ColumnType::kBit:
      return "BIT";
    case ColumnType::kTimestamp2:
      return "TIMESTAMP2";
    case ColumnType::kDateTime2:
      return "DATETIME2";
    case ColumnType::kTime2:
      return "TIME2";
    case ColumnType::kTypedArray:
      return "TYPED_ARRAY";
    case ColumnType::kVector:
      return "VECTOR";
    case ColumnType::kInvalid:
      return "INVALID";
    case ColumnType::kBool:
      return "BOOL";
    case ColumnType::kJson:
      return "JSON";
    case ColumnType::kNewDecimal:
      return "NEWDECIMAL";
    case ColumnType::kEnum:
      return "ENUM";
    case ColumnType::kSet:
      return "SET";
    case ColumnType::kTinyBlob:
      return "TINY_BLOB";
    case ColumnType::kMediumBlob:
      return "MEDIUM_BLOB";
    case ColumnType::kLongBlob:
      return "LONG_BLOB";
    case ColumnType::kBlob:
      return "BLOB";
    case ColumnType::kVarString:
      return "VAR_STRING";
    case ColumnType::kString:
      return "STRING";
    case ColumnType::kGeometry:
      return "GEOMETRY";
  }
  return "UNKNOWN";
}

}  // namespace rowbridge::binlog
