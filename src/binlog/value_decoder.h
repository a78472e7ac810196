// Typed accessors on a Cell for the hot path (row → ClickHouse column). They read the stored
// bytes directly: no allocation, no virtual calls. Each checks that the cell holds exactly
// (or, for fixed widths, at least) the bytes its type needs and throws Error(kCorruption)
// otherwise, so a mis-typed call or a corrupt row cannot read out of bounds.
//
// Integers are little-endian in row events; BIT is big-endian; VECTOR is little-endian float32.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "binlog/cell.h"
#include "binlog/column_type.h"
#include "common/error.h"

namespace rowbridge::binlog {

namespace value_detail {

[[noreturn]] void ThrowCellSize(const Cell& cell, size_t wanted, const char* what);

inline void NeedBytes(const Cell& cell, size_t n, const char* what) {
  if (cell.is_null || cell.size < n) ThrowCellSize(cell, n, what);
}

inline uint64_t LoadLittleEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

inline int64_t SignExtend(uint64_t v, unsigned bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

}  // namespace value_detail

// Bytes an integer type takes: TINY 1, SHORT 2, INT24 3, LONG 4, LONGLONG 8, YEAR 1; 0 otherwise.
inline size_t IntegerWidth(ColumnType type) {
  switch (type) {
    case ColumnType::kTiny:
      return 1;
    case ColumnType::kShort:
      return 2;
    case ColumnType::kInt24:
      return 3;
    case ColumnType::kLong:
      return 4;
    case ColumnType::kLongLong:
      return 8;
    case ColumnType::kYear:
      return 1;
    default:
      return 0;
  }
}

// Fixed-width integers, by width in bytes.
inline int8_t CellInt8(const Cell& c) {
  value_detail::NeedBytes(c, 1, "TINYINT");
  return static_cast<int8_t>(c.data[0]);
}
inline uint8_t CellUInt8(const Cell& c) {
  value_detail::NeedBytes(c, 1, "TINYINT");
  return c.data[0];
}
inline int16_t CellInt16(const Cell& c) {
  value_detail::NeedBytes(c, 2, "SMALLINT");
  return static_cast<int16_t>(value_detail::LoadLittleEndian(c.data, 2));
}
inline uint16_t CellUInt16(const Cell& c) {
  value_detail::NeedBytes(c, 2, "SMALLINT");
  return static_cast<uint16_t>(value_detail::LoadLittleEndian(c.data, 2));
}
// MEDIUMINT: 3 bytes, sign-extended from bit 23.
inline int32_t CellInt24(const Cell& c) {
  value_detail::NeedBytes(c, 3, "MEDIUMINT");
  return static_cast<int32_t>(
      value_detail::SignExtend(value_detail::LoadLittleEndian(c.data, 3), 24));
}
inline uint32_t CellUInt24(const Cell& c) {
  value_detail::NeedBytes(c, 3, "MEDIUMINT");
  return static_cast<uint32_t>(value_detail::LoadLittleEndian(c.data, 3));
}
inline int32_t CellInt32(const Cell& c) {
  value_detail::NeedBytes(c, 4, "INT");
  return static_cast<int32_t>(value_detail::LoadLittleEndian(c.data, 4));
}
inline uint32_t CellUInt32(const Cell& c) {
  value_detail::NeedBytes(c, 4, "INT");
  return static_cast<uint32_t>(value_detail::LoadLittleEndian(c.data, 4));
}
inline int64_t CellInt64(const Cell& c) {
  value_detail::NeedBytes(c, 8, "BIGINT");
  return static_cast<int64_t>(value_detail::LoadLittleEndian(c.data, 8));
}
inline uint64_t CellUInt64(const Cell& c) {
  value_detail::NeedBytes(c, 8, "BIGINT");
  return value_detail::LoadLittleEndian(c.data, 8);
}

// Any integer column (TINY, SHORT, INT24, LONG, LONGLONG, YEAR's raw byte) widened: signed
// (sign-extended) and unsigned (zero-extended) views. Throws kCorruption for other types.
inline int64_t CellSignedInteger(const Cell& c) {
  const size_t width = IntegerWidth(c.column->type);
  if (width == 0) value_detail::ThrowCellSize(c, 0, "integer (column is not an integer type)");
  value_detail::NeedBytes(c, width, "integer");
  return value_detail::SignExtend(value_detail::LoadLittleEndian(c.data, width),
                                  static_cast<unsigned>(width * 8));
}
inline uint64_t CellUnsignedInteger(const Cell& c) {
  const size_t width = IntegerWidth(c.column->type);
  if (width == 0) value_detail::ThrowCellSize(c, 0, "integer (column is not an integer type)");
  value_detail::NeedBytes(c, width, "integer");
  return value_detail::LoadLittleEndian(c.data, width);
}

inline float CellFloat(const Cell& c) {
  value_detail::NeedBytes(c, 4, "FLOAT");
  return std::bit_cast<float>(static_cast<uint32_t>(value_detail::LoadLittleEndian(c.data, 4)));
}
inline double CellDouble(const Cell& c) {
  value_detail::NeedBytes(c, 8, "DOUBLE");
  return std::bit_cast<double>(value_detail::LoadLittleEndian(c.data, 8));
}

// BIT(n): (n + 7) / 8 bytes, big-endian.
inline uint64_t CellBit(const Cell& c) {
  if (c.is_null || c.size == 0 || c.size > 8) value_detail::ThrowCellSize(c, 8, "BIT (1..8 bytes)");
  uint64_t v = 0;
  for (size_t i = 0; i < c.size; ++i) v = (v << 8) | c.data[i];
  return v;
}

// YEAR: 0 → 0, otherwise 1900 + stored byte.
inline uint16_t CellYear(const Cell& c) {
  value_detail::NeedBytes(c, 1, "YEAR");
  return c.data[0] == 0 ? 0 : static_cast<uint16_t>(1900 + c.data[0]);
}

// ENUM: 1-based index of the value (0 = the '' error value), stored in 1 or 2 bytes.
inline uint16_t CellEnumIndex(const Cell& c) {
  if (c.is_null || c.size == 0 || c.size > 2)
    value_detail::ThrowCellSize(c, 2, "ENUM (1..2 bytes)");
  return static_cast<uint16_t>(value_detail::LoadLittleEndian(c.data, c.size));
}

// SET: bit i set = member i (0-based) present; 1..8 bytes little-endian.
inline uint64_t CellSetBits(const Cell& c) {
  if (c.is_null || c.size == 0 || c.size > 8) value_detail::ThrowCellSize(c, 8, "SET (1..8 bytes)");
  return value_detail::LoadLittleEndian(c.data, c.size);
}

// VECTOR: little-endian float32 elements. On little-endian hosts this is a view of the cell's
// bytes when they are 4-byte aligned; otherwise it copies into `scratch` (which must hold
// size/4 floats) and returns a view of that. Throws kCorruption if size is not a multiple of 4.
std::span<const float> CellVector(const Cell& c, std::span<float> scratch);
// Number of float32 elements in a VECTOR cell.
inline size_t CellVectorLength(const Cell& c) {
  if (c.is_null || c.size % 4 != 0) value_detail::ThrowCellSize(c, (c.size + 3) / 4 * 4, "VECTOR");
  return c.size / 4;
}

// The payload of a string-like column (CHAR, VARCHAR, BLOB, TEXT, GEOMETRY, JSON bytes).
inline std::string_view CellBytes(const Cell& c) {
  return c.size == 0 ? std::string_view()
                     : std::string_view(reinterpret_cast<const char*>(c.data), c.size);
}

}  // namespace rowbridge::binlog
