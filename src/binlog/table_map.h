// What a TABLE_MAP event tells about a table: its id, names, and per-column type, metadata and the
// optional metadata fields (binlog_row_metadata=MINIMAL/FULL). Plain data; the parser lives in
// table_map_event.{h,cpp}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binlog/column_type.h"

namespace rowbridge::binlog {

struct ColumnDef {
  // The column's real type. TABLE_MAP writes ENUM and SET as STRING with the real type hidden in
  // the metadata; the parser resolves that, so `type` is kEnum/kSet here. `wire_type` keeps the
  // code exactly as it appeared in the event.
  ColumnType type = ColumnType::kNull;
  ColumnType wire_type = ColumnType::kNull;

  // Type metadata, normalised by the parser. Its meaning depends on `type`:
  //   kFloat, kDouble             pack length (4 or 8)
  //   kNewDecimal                 see precision/scale below (meta unused)
  //   kBit                        number of bits, 1..64
  //   kTimestamp2/kDateTime2/kTime2  fractional-second precision 0..6
  //   kString (CHAR/BINARY)       maximum length in bytes
  //   kVarchar, kVarString        maximum length in bytes
  //   kBlob family, kJson, kGeometry, kVector  bytes of the length prefix (1..4)
  //   kEnum, kSet                 pack length in bytes (ENUM 1-2, SET 1-8)
  //   others                      0
  uint32_t meta = 0;
  uint8_t precision = 0;  // kNewDecimal only
  uint8_t scale = 0;      // kNewDecimal only

  bool nullable = true;

  // Optional metadata. `*_known` says whether the server sent the field at all.
  bool signedness_known = false;
  bool is_unsigned = false;
  uint32_t charset = 0;  // collation id, 0 = unknown; 63 = binary
  std::string name;      // empty when not logged
  std::vector<std::string> enum_values;
  std::vector<std::string> set_values;
  uint32_t geometry_type = 0;
  bool is_primary_key = false;
  uint32_t primary_key_prefix = 0;  // 0 = whole column
  bool visible = true;
  uint32_t vector_dimensions = 0;

  // The column's DEFAULT. No TABLE_MAP carries it: the schema history fills it from DDL and
  // information_schema (schema::CanonicalDefault() gives the form), and `default_known` says it
  // did. nullopt: no default, or DEFAULT NULL (the same for every row the source fills).
  bool default_known = false;
  std::optional<std::string> default_value;
};

struct TableMap {
  uint64_t table_id = 0;
  uint16_t flags = 0;
  std::string database;
  std::string table;
  std::vector<ColumnDef> columns;
  // Indices into `columns`, in key order; empty if the server did not log the primary key.
  std::vector<uint32_t> primary_key;
};

}  // namespace rowbridge::binlog
