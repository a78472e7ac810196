// ClickHouse type names parsed into a TypeDesc tree: "UInt64", "Nullable(String)",
// "LowCardinality(Nullable(String))", "DateTime64(3, 'UTC')", "Decimal(18, 4)" (a Decimal64),
// "Enum8('a' = 1, 'b' = 2)", "FixedString(16)", "Array(Nullable(Int32))", ...
//
// ParseTypeName accepts what a server sends in a block header and what users write in DDL, and
// applies ClickHouse's nesting rules (Nullable cannot wrap Nullable, LowCardinality or Array;
// LowCardinality wraps only strings, numbers, dates and Nullable of those). Anything else throws
// Error(kUnsupported) naming the type (types we do not handle) or Error(kInvalidArgument)
// (malformed text). TypeDesc::name is the canonical spelling the server itself uses, e.g.
// "Decimal(18, 4)" for "Decimal64(4)".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowbridge::clickhouse {

enum class TypeCode {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kInt128,
  kInt256,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kUInt128,
  kUInt256,
  kFloat32,
  kFloat64,
  kDecimal32,
  kDecimal64,
  kDecimal128,
  kDecimal256,
  kString,
  kFixedString,
  kDate,
  kDate32,
  kDateTime,
  kDateTime64,
  kUUID,
  kEnum8,
  kEnum16,
  kBool,
  kNullable,
  kLowCardinality,
  kArray,
};

struct TypeDesc {
  TypeCode code = TypeCode::kString;
  std::string name;        // canonical type name
  uint32_t precision = 0;  // Decimal: P; DateTime64: sub-second digits
  uint32_t scale = 0;      // Decimal: S
  uint32_t width = 0;      // FixedString: N
  std::string timezone;    // DateTime/DateTime64; empty = the server's
  std::vector<std::pair<std::string, int16_t>> enum_items;  // in declaration order
  std::vector<TypeDesc> nested;  // one element for Nullable, LowCardinality, Array

  bool operator==(const TypeDesc&) const = default;
};

TypeDesc ParseTypeName(std::string_view text);

// Canonical spelling of a parsed or hand-built type (recomputes what ParseTypeName stores in name).
std::string FormatTypeName(const TypeDesc& type);

// Convenience constructors for hand-built types; each fills `name`.
TypeDesc MakeType(TypeCode code);  // parameterless types only
TypeDesc MakeDecimal(uint32_t precision, uint32_t scale);
TypeDesc MakeFixedString(uint32_t width);
TypeDesc MakeDateTime(std::string timezone = {});
TypeDesc MakeDateTime64(uint32_t precision, std::string timezone = {});
TypeDesc MakeEnum(TypeCode code, std::vector<std::pair<std::string, int16_t>> items);
TypeDesc MakeWrapper(TypeCode code, TypeDesc nested);  // Nullable, LowCardinality, Array

// Int8..Int256 and UInt8..UInt256.
bool IsIntegerCode(TypeCode code);

}  // namespace rowbridge::clickhouse
